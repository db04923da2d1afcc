"""``overview(connection, by=...)``: read the compact copy, group it, and say what was reused.

The read and the grouping run inside the cell's time and memory budget (``--timeout``,
``--memory-limit``, the kernel's stop button), like every read; a stop leaves nothing half-made.
The grouping is kept with the compact copy, per database state, so a second overview of an
unchanged database — and every drill and collapse — reads nothing again; after a write the next
call reads and groups afresh, and its note says so.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ..cypher.budget import run_within
from ..cypher.query import cell_budget
from ..errors import GestaltError
from . import compact as compacts
from . import grouping as groupings
from .result import OverviewResult

if TYPE_CHECKING:
    from ..session import Connection

#: The last database state an overview was read at, per store (to say when a write made it read again).
_LAST_STATE: dict[int, int] = {}


def _group(db: Any, copy: compacts.Compact, by: str, resolution: float, max_groups: int) -> groupings.Grouping:
    kept = copy.groupings
    key = (by, resolution, max_groups)
    if key not in kept:
        if by == "community":
            kept[key] = groupings.by_community(copy, resolution=resolution, max_groups=max_groups)
        elif by == "label":
            kept[key] = groupings.by_label(copy, max_groups=max_groups)
        elif db is None:
            raise GestaltError("A query's result groups by community or label; group the database by a property with %goverview --by PROP.")
        else:
            kept[key] = groupings.by_property(db, copy, by, max_groups=max_groups)
    return kept[key]


def _check(by: Any, max_groups: Any) -> None:
    if not isinstance(by, str) or not by:
        raise GestaltError(f"by is 'community', 'label' or a property name, not {by!r}.")
    if isinstance(max_groups, bool) or not isinstance(max_groups, int) or max_groups < 2:
        raise GestaltError(f"max_groups must be a whole number of at least 2, not {max_groups!r}.")


def overview(
    connection: Connection,
    by: str = "community",
    *,
    labels: list[str] | None = None,
    types: list[str] | None = None,
    resolution: float = 1.0,
    max_groups: int = 300,
    timeout: float | None = None,
    memory_limit: int | str | None = None,
) -> OverviewResult:
    """The whole graph (or the nodes with ``labels`` and relationships of ``types``) seen as groups.

    ``by``: ``"community"`` (Leiden communities of the undirected graph), ``"label"`` (one group per
    label set) or a property name (one group per value; numbers with many values in stated bins).
    More than ``max_groups`` groups: the smallest are merged into one "other" group, and the note
    says so. Bounded like a cell's read (``timeout`` seconds, ``memory_limit``).
    """
    _check(by, max_groups)
    db = connection.db
    store = compacts.store_of(db)
    started = time.perf_counter()
    state = compacts.state_of(db)
    kept = compacts.cached(db, labels=labels, types=types)
    reused = kept is not None and (by, resolution, max_groups) in kept.groupings

    def work() -> tuple[compacts.Compact, groupings.Grouping]:
        copy = compacts.read(db, labels=labels, types=types)
        return copy, _group(db, copy, by, resolution, max_groups)

    (copy, grouping), _usage = run_within(work, cell_budget(timeout, memory_limit), describe="overview")
    notes = [*copy.notes, *grouping.notes]
    if reused:
        notes.append("The database is unchanged since the last overview: its copy and grouping were reused (nothing was read).")
    elif _LAST_STATE.get(id(store)) not in (None, state):
        notes.append("The graph was written to since the last overview: it was read and grouped again.")
    _LAST_STATE[id(store)] = state
    result = OverviewResult(copy, grouping, by, connection, notes, time.perf_counter() - started, reused)
    return result


def of_subgraph(subgraph: Any, by: str = "community", *, resolution: float = 1.0, max_groups: int = 300) -> OverviewResult:
    """The same grouping over a drawn ``Subgraph`` (``%%gcypher --overview``: every node of a query's result)."""
    _check(by, max_groups)
    started = time.perf_counter()
    copy = compacts.from_subgraph(subgraph)
    grouping = _group(None, copy, by, resolution, max_groups)
    notes = [f"The query's result, grouped: {copy.node_count:,} nodes and {copy.edge_count:,} relationships.", *grouping.notes]
    return OverviewResult(copy, grouping, by, None, notes, time.perf_counter() - started)
