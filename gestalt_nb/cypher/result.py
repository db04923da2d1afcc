"""``QueryResult``: what one Cypher run returned, as records, a DataFrame and a ``Subgraph``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..checks import checked_methods
from ..display import Displayable
from ..graph import values
from ..graph.convert import AsGraph
from ..graph.rows import Rows
from ..graph.subgraph import Subgraph
from .budget import Budget


class _Records:
    """``QueryResult.records``: given as a list of JSON records or as ``Rows``; read, the whole list, made once.

    A data descriptor with no class-level default, so ``records`` stays a required dataclass field.
    """

    def __get__(self, result: Any, owner: Any = None) -> list[dict[str, Any]]:
        if result is None:
            raise AttributeError("records")  # no default for the dataclass field
        return result.rows.records()

    def __set__(self, result: Any, value: Any) -> None:
        result.__dict__["rows"] = value if isinstance(value, Rows) else Rows.from_json(value)


@checked_methods
@dataclass(eq=False)
class QueryResult(Displayable, AsGraph):
    """Records in the adapter's JSON form (column → value), bounded by ``row_limit``.

    ``rows`` holds them in one compact form (see ``graph/rows.py``): ``records``, the whole JSON list, is
    made the first time it is read; the views convert only the rows they show (``rows[i]``, ``rows.head(n)``).

    ``truncated`` is True when the query had more rows than were kept. ``elapsed`` is the
    database time in seconds; ``budget`` the time/memory budget it ran within and ``memory_used``
    the most the process grew meanwhile; ``work_bound`` says what bounded the work. ``subgraph`` holds every node, relationship and path found in any
    column (relationship endpoints included) — ``subgraph.nodes`` and ``subgraph.edges`` (the relationships), dicts by id; ``df`` is a pandas view with entities as readable
    text and temporal values as Python dates and times.
    """

    query: str
    params: dict[str, Any]
    records: list[dict[str, Any]] = _Records()  # type: ignore[assignment]  # a list subclass that reads its rows on first use
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
    #: The records in compact form (set through ``records``; see the class docstring).
    rows: Rows = field(init=False, repr=False)

    @cached_property
    def df(self):
        return self.frame()

    def frame(self, rows: int | None = None, *, exact: bool = False):
        """A DataFrame of the first ``rows`` records (all by default); views show only what fits (``exact``: see ``values.frame``)."""
        return values.frame(self.rows.head(rows), self.columns, exact=exact)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.rows.head(), indent=indent, ensure_ascii=False)

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self):
        return iter(self.records)

    def summary(self) -> str:
        more = " (truncated: more rows exist)" if self.truncated else ""
        kind = "write" if self.write else "read"
        return (
            f"{len(self):,} rows × {len(self.columns)} columns{more}; {self.subgraph.summary()}; "
            f"{self.elapsed * 1000:.1f} ms on '{self.alias}' ({kind})"
        )

    def __repr__(self) -> str:
        return f"<QueryResult {self.summary()}>"
