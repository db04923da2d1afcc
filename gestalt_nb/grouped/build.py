"""``overview(connection, by=...)``: read the compact copy, group it, and say what was reused.

The read and the grouping run inside the cell's time and memory budget (``--timeout``,
``--memory-limit``, the kernel's stop button), like every read; a stop leaves nothing half-made.
The grouping is kept with the compact copy, per database state, so a second overview of an
unchanged database — and every drill and collapse — reads nothing again; after a write the next
call reads and groups afresh, and its note says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from ..cypher.budget import Budget, BudgetExceeded, Usage, raised, resident, run_within, size
from ..cypher.query import cell_budget
from ..errors import GestaltError
from ..graph.subgraph import Subgraph
from . import compact as compacts
from . import detect, growth
from . import grouping as groupings
from .progress import SHOW_FROM, Progress
from .result import OverviewResult

if TYPE_CHECKING:
    from ..session import Connection

#: The last database state an overview was read at, per store (to say when a write made it read again).
_LAST_STATE: dict[int, int] = {}


def _group(db: Any, copy: compacts.Compact, by: str, resolution: float, max_groups: int,
           watch: Callable[[int, float], None] | None = None, feeder: detect.Feeder | None = None) -> groupings.Grouping:
    kept = copy.groupings
    key = (by, resolution, max_groups)
    if key not in kept:
        if by == "community":
            kept[key] = groupings.by_community(copy, resolution=resolution, max_groups=max_groups, watch=watch, feeder=feeder)
        elif by == "label":
            kept[key] = groupings.by_label(copy, max_groups=max_groups)
        elif db is None:
            raise GestaltError("A query's result groups by community or label; group the database by a property with %goverview --by PROP.")
        else:
            kept[key] = groupings.by_property(db, copy, by, max_groups=max_groups)
    return kept[key]


def _names(value: Any, what: str) -> list[str] | None:
    """``labels=`` / ``types=``: None, one name, or a list of names (one clear line otherwise)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple, set, frozenset)) or not value or not all(isinstance(item, str) and item for item in value):
        raise GestaltError(f"{what} is a list of {what[:-1]} names (e.g. [\"Person\"]), not {value!r}.")
    return sorted(value) if isinstance(value, (set, frozenset)) else list(value)


def _check(by: Any, max_groups: Any, resolution: Any) -> None:
    if not isinstance(by, str) or not by:
        raise GestaltError(f"by is 'community', 'label' or a property name, not {by!r}.")
    if isinstance(resolution, bool) or not isinstance(resolution, (int, float)) or not resolution > 0:
        raise GestaltError(f"resolution must be a positive number (1.0 is plain modularity), not {resolution!r}.")
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
    as_of: Any = None,
    known_at: Any = None,
    since: Any = None,
) -> OverviewResult:
    """The work of :meth:`Connection.overview <gestalt_nb.capabilities.Capabilities.overview>`, ``connection`` first (documented there, once)."""
    _check(by, max_groups, resolution)
    labels, types = _names(labels, "labels"), _names(types, "types")
    budget = cell_budget(timeout, memory_limit)
    started = time.perf_counter()
    moment = None
    if as_of is not None or known_at is not None or since is not None:  # the graph at a moment: a scratch database
        connection, moment = growth.at(connection, as_of, known_at, since, budget)
    db = connection.db
    store = compacts.store_of(db)
    state = compacts.state_of(db)
    kept = compacts.cached(db, labels=labels, types=types)
    reused = kept is not None and (by, resolution, max_groups) in kept.groupings
    total = 0 if reused else compacts.relationships_about(db)
    progress = Progress(total >= SHOW_FROM)

    def work() -> OverviewResult:
        with _feeder(by, kept is None, total, resolution) as feeder:  # Leiden starts while the graph is read
            copy = compacts.read(db, labels=labels, types=types, step=_reading(progress, total), sink=feeder)
            progress.show("finding groups" if by != "community" else "finding communities (Leiden)", READ_SHARE)
            grouping = _group(db, copy, by, resolution, max_groups, _watching(progress, budget), feeder)
        progress.show("summarising", READ_SHARE + GROUP_SHARE)
        notes = [*(moment.notes() if moment else ()), *copy.notes, *grouping.notes]
        if reused:
            notes.append("The database is unchanged since the last overview: its copy and grouping were reused (nothing was read).")
        elif _LAST_STATE.get(id(store)) not in (None, state):
            notes.append("The graph was written to since the last overview: it was read and grouped again.")
        result = OverviewResult(copy, grouping, by, connection, notes, 0.0, reused, moment=moment.words if moment else "")
        if moment is not None and moment.since is not None:
            result.growth = growth.counts(moment, copy, grouping.membership, len(grouping.names))
        _drawn(copy, (by, resolution, max_groups), result)
        return result

    try:
        result, _usage = run_within(work, budget, describe="overview")
    except BaseException as exc:
        progress.stopped(getattr(exc, "kind", None) or ("interrupted" if isinstance(exc, KeyboardInterrupt) else "an error"))
        raise
    progress.close()
    _LAST_STATE[id(store)] = state
    result.elapsed = time.perf_counter() - started
    return result


def _drawn(copy: compacts.Compact, key: tuple, result: OverviewResult) -> None:
    """Draw ``result`` inside the budget (a stop never leaves half a picture), or take what an earlier overview of
    this copy computed (its summaries, and a copy of its drawing with this call's notes): a reuse draws nothing again."""
    slot = ("drawn", *key)
    earlier = copy.groupings.get(slot)
    if earlier is None:
        result.subgraph  # noqa: B018 - computed now, inside the budget
        copy.groupings[slot] = result
        return
    result.__dict__.update({name: value for name, value in earlier.__dict__.items() if name in REUSED})
    drawn = earlier.subgraph
    result.__dict__["subgraph"] = Subgraph(dict(drawn.nodes), dict(drawn.edges), set(drawn.highlight_nodes), set(drawn.highlight_edges),
                                           drawn.truncated, [*result.notes, *drawn.notes[len(earlier.notes):]], drawn.title,
                                           {name: dict(value) for name, value in drawn.groups.items()})


#: What an overview computes once per copy and grouping (``OverviewResult``'s cached properties), reused by the next.
REUSED = {"prefix", "_label_counts", "_type_counts", "sizes", "groups", "links", "membership", "_tops", "_member_names", "naming"}

#: The progress bar's share (of ``STEPS``) for reading, then for grouping; summarising has the rest.
READ_SHARE, GROUP_SHARE = 40, 50


def _feeder(by: str, read: bool, total: int, resolution: float) -> Any:
    """Where Leiden runs when the graph will be read now and grouped by community: a child process fed while the
    graph is read (a big graph), else a thread of the kernel started once the relationships are read; both run
    while the labels are read. Otherwise a context that gives None."""
    return detect.runner(resolution, total) if by == "community" and read else nullcontext()


def _reading(progress: Progress, total: int) -> Callable[[int], None]:
    done = [0]

    def step(count: int) -> None:
        done[0] += count
        progress.show("reading", READ_SHARE * done[0] // max(total, 1), f" {done[0]:,} of ~{total:,} relationships")

    return step


def _watching(progress: Progress, budget: Budget) -> Callable[[int, float], None]:
    """What runs between two looks at the community detection's process: the progress line, and the memory
    budget counting that process's memory with what the kernel gained."""
    baseline, started = resident(), time.monotonic()

    def watch(child: int, seconds: float) -> None:
        progress.show("finding communities (Leiden", READ_SHARE + min(int(seconds), GROUP_SHARE - 1), f"; its process holds {size(child)})")
        used = child + max(resident() - baseline, 0)
        if used > budget.memory:
            raise BudgetExceeded(
                f"Stopped: the overview's community detection grew to {size(used)} (its process and the kernel's growth), over "
                f"its memory budget of {size(budget.memory)} (stopped after {time.monotonic() - started:.1f} s). Nothing was "
                f"returned; the database is unchanged and usable. To let it run, raise it with --memory-limit SIZE (e.g. {raised(budget.memory)}) "
                f"on the cell or %config GestaltMagic.memory_limit = '{raised(budget.memory)}'.",
                kind="memory", budget=budget, usage=Usage(time.monotonic() - started, used))

    return watch


#: Rows a query's result may have for ``%%gcypher --overview`` to group (the drawing's row limit does not apply).
QUERY_ROWS = 1_000_000


def of_subgraph(subgraph: Any, by: str = "community", *, resolution: float = 1.0, max_groups: int = 300,
                rows: int | None = None, cut: bool = False) -> OverviewResult:
    """The same grouping over a drawn ``Subgraph`` (``%%gcypher --overview``: every node of a query's result;
    ``rows``: how many rows it had, ``cut``: whether the query had more, left out)."""
    _check(by, max_groups, resolution)
    started = time.perf_counter()
    copy = compacts.from_subgraph(subgraph)
    grouping = _group(None, copy, by, resolution, max_groups)
    of = f" of {rows:,} rows" if rows is not None else ""
    whole = (f"; the query had more than {rows:,} rows, and only these were grouped (raise --limit to group more)" if cut
             else " (every row)" if rows is not None else "")
    notes = [f"The query's result, grouped: {copy.node_count:,} nodes and {copy.edge_count:,} relationships{of}{whole}.", *grouping.notes]
    return OverviewResult(copy, grouping, by, None, notes, time.perf_counter() - started)
