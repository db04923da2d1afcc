"""A level down: the communities inside one group (``OverviewResult.within``), and that level drawn in its place.

A group is grouped again on its own: its members and the relationships among them (``Compact.induced``), Leiden
on that (``grouping.by_community``, so a group of many communities is itself grouped in groups of communities),
within the cell's time and memory budget. The level is kept with its parent, so opening it again reads and
computes nothing. Its super-nodes' ids start with the parent's id of the group (``group:3/0``), so they never
meet the parent's; ``opened`` is the level's drawing plus lines from each sub-group to its three most connected
groups of the parent, for the canvas to draw in the group's place.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np

from ..checks import whole
from ..cypher.budget import run_within
from ..cypher.query import cell_budget
from ..errors import GestaltError
from ..graph.subgraph import Edge, Subgraph
from .grouping import STRONGEST, by_community, dense

if TYPE_CHECKING:
    from .result import OverviewResult


def within(result: OverviewResult, group: Any, *, max_groups: int = 100) -> OverviewResult:
    """The communities inside ``group`` of ``result``, one level down (kept: asked again, computed once)."""
    max_groups = whole(max_groups, "max_groups", 2)
    number = result.group_number(group)
    kept = result.__dict__.setdefault("_levels", {})
    if (number, max_groups) in kept:
        return kept[(number, max_groups)]
    members = np.flatnonzero(result.membership_array == number)
    caption = result.caption(number)
    started = time.perf_counter()

    def work() -> OverviewResult:
        part = result.compact.induced(members)
        if not part.edge_count:
            raise GestaltError(f"{caption} has no relationships among its members to group them by; its members are in .members({number}).")
        grouping = by_community(part, max_groups=max_groups)
        notes = [f"Inside {caption}: {part.node_count:,} nodes and {part.edge_count:,} relationships among them.", *grouping.notes]
        return type(result)(part, grouping, "community", result.connection, notes, 0.0, trail=(*result.trail, caption),
                              base_prefix=f"{result.prefix}{number}/")

    level, _usage = run_within(work, cell_budget(), describe="overview")
    level.subgraph  # noqa: B018 - drawn (and named) inside nothing slower than the level itself
    level.elapsed = time.perf_counter() - started
    kept[(number, max_groups)] = level
    return level


def opened(result: OverviewResult, number: int, level: OverviewResult) -> Subgraph:
    """``level``'s super-nodes and super-edges, and a line from each of them to each neighbouring group of ``result``
    (the relationships between that sub-group's members and the other group's, by count)."""
    drawn = level.subgraph
    part = Subgraph(dict(drawn.nodes), dict(drawn.edges), title=drawn.title, notes=list(drawn.notes),
                    groups={key: dict(value) for key, value in drawn.groups.items()})
    top = result.membership_array
    inside = top == number
    local = np.full(top.size, -1, dtype=np.int64)
    local[np.flatnonzero(inside)] = level.membership_array
    src, dst = result.compact.src, result.compact.dst
    totals: dict[tuple[int, int], int] = {}
    for ours, theirs in ((src, dst), (dst, src)):
        leaving = inside[ours] & ~inside[theirs] & (top[theirs] >= 0)
        keys, _, counts = dense(local[ours[leaving]] * result.group_count + top[theirs[leaving]], inverse=False)
        for key, total in zip(keys.tolist(), counts.tolist()):
            pair = divmod(key, result.group_count)
            totals[pair] = totals.get(pair, 0) + total
    kept: dict[int, int] = {}
    for (sub, other), total in sorted(totals.items(), key=lambda item: -item[1]):  # each sub-group's strongest few
        if kept.get(sub, 0) >= STRONGEST:
            continue
        kept[sub] = kept.get(sub, 0) + 1
        edge_id = f"{level.node_id(sub)}~{result.node_id(other)}"
        part.edges[edge_id] = Edge(edge_id, level.node_id(sub), result.node_id(other), "", {"relationships": total})
    if len(totals) > sum(kept.values()):
        part.notes.append(f"{len(totals):,} links join these groups to the groups around them; each one's {STRONGEST} strongest are drawn.")
    return part
