"""``QueryResult``: what one Cypher run returned, as records, a DataFrame and a ``Subgraph``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..graph import values
from .budget import Budget
from ..display import Shown
from ..graph.convert import AsGraph
from ..graph.subgraph import Subgraph


@dataclass(eq=False)
class QueryResult(Shown, AsGraph):
    """Records in the adapter's JSON form (column → value), bounded by ``row_limit``.

    ``truncated`` is True when the query had more rows than were kept. ``elapsed`` is the
    database time in seconds; ``budget`` the time/memory budget it ran within and ``memory_used``
    the most the process grew meanwhile; ``work_bound`` says what bounded the work. ``subgraph`` holds every node, relationship and path found in any
    column (relationship endpoints included); ``df`` is a pandas view with entities as readable
    text and temporal values as Python dates and times.
    """

    query: str
    params: dict[str, Any]
    records: list[dict[str, Any]]
    columns: list[str]
    truncated: bool
    row_limit: int
    elapsed: float
    alias: str
    write: bool
    executed: str
    notes: list[str] = field(default_factory=list)
    subgraph: Subgraph = field(default_factory=Subgraph)
    #: The time and memory budget the read ran within (None for writes: they are not budgeted).
    budget: Budget | None = None
    #: The most the process's memory grew while the read ran, in bytes (None for writes).
    memory_used: int | None = None
    #: What bounded the work, in words: the added LIMIT, the query's own, or the budget alone.
    work_bound: str = ""
    #: The ``-P`` expression exactly as written and evaluated, when parameters came from one.
    params_source: str | None = None
    #: What happened to untyped relationship patterns (rewritten to every type, or why not), if any.
    rewrite: str | None = None
    #: Per-result view overrides (renderer, graph_height, ...) set by a magic's options.
    view_options: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def df(self):
        return self.frame()

    def frame(self, rows: int | None = None):
        """A DataFrame of the first ``rows`` records (all by default); views show only what fits."""
        return values.frame(self.records if rows is None else self.records[:rows], self.columns)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.records, indent=indent, ensure_ascii=False)

    def __len__(self) -> int:
        return len(self.records)

    def __iter__(self):
        return iter(self.records)

    def summary(self) -> str:
        more = " (truncated: more rows exist)" if self.truncated else ""
        kind = "write" if self.write else "read"
        return (
            f"{len(self.records):,} rows × {len(self.columns)} columns{more}; {self.subgraph.summary()}; "
            f"{self.elapsed * 1000:.1f} ms on '{self.alias}' ({kind})"
        )

    def __repr__(self) -> str:
        return f"<QueryResult {self.summary()}>"
