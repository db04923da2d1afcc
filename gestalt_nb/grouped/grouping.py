"""Which group each node is in: communities (networkit's Leiden), label sets, or a property's values or bins.

Every function returns a :class:`Grouping`: ``membership[i]`` is node i's group (``-1`` for nodes
outside the overview), groups numbered from 0 by size, largest first, and each group's name. Past
``max_groups`` the smallest groups are merged into one "other" group, and a note says so.
Communities come from networkit's Leiden (``detect``: modularity, the undirected graph; in the kernel
one thread and a fixed seed, so the same database gives the same groups); nothing here detects
communities by hand.
"""

from __future__ import annotations

import bisect
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import GestaltError
from .compact import Compact
from .detect import Beside, Feeder, communities, weighted_leiden

#: Links drawn per group (its strongest): a graph of many groups is connected almost everywhere.
STRONGEST = 3
#: Distinct numeric values up to which a property groups by value; above it, by bins.
MAX_VALUES = 12
BINS = 10


@dataclass
class Grouping:
    membership: np.ndarray
    names: list[str]
    notes: list[str] = field(default_factory=list)


def dense(values: np.ndarray, *, inverse: bool = True) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """``np.unique(values, return_inverse=True, return_counts=True)`` of non-negative integers (group numbers,
    group-pair keys): counted in one pass when they are below ``COUNTED_UP_TO`` (at 1M nodes, 30 ms against
    120 ms), sorted otherwise. ``inverse=False``: None in its place, not computed (a count of pairs needs none)."""
    if values.size and int(values.max()) >= COUNTED_UP_TO:
        found = np.unique(values, return_inverse=inverse, return_counts=True)
        return found if inverse else (found[0], None, found[1])
    counts = np.bincount(values)
    present = counts > 0
    return np.flatnonzero(present), (np.cumsum(present) - 1)[values] if inverse else None, counts[present]


#: Values counted in one pass below this (a bincount of 8 MiB), sorted from it.
COUNTED_UP_TO = 1 << 20


def _numbered(raw: np.ndarray, names: list[str], kept: np.ndarray, max_groups: int, notes: list[str]) -> Grouping:
    """Renumber raw group ids (>= 0 where kept) by size, largest first; merge past ``max_groups``."""
    membership = np.full(raw.shape, -1, dtype=np.int64)
    if not kept.any():
        return Grouping(membership, [], notes)
    ids, inverse, sizes = dense(raw[kept])
    order = np.argsort(-sizes, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    ranked = rank[inverse]
    chosen = [names[int(ids[number])] for number in order]
    if order.size > max_groups:
        merged = order.size - (max_groups - 1)
        people = int(sizes[order[max_groups - 1:]].sum())
        ranked = np.minimum(ranked, max_groups - 1)
        chosen = chosen[: max_groups - 1] + [f"other ({merged:,} groups, {people:,} nodes)"]
        notes.append(f"{order.size:,} groups: the {merged:,} smallest are merged into one group, "
                     f"\"other\" ({people:,} nodes); raise max_groups to see them apart.")
    membership[kept] = ranked
    return Grouping(membership, chosen, notes)


def by_community(compact: Compact, *, resolution: float = 1.0, max_groups: int = 300,
                 watch: Callable[[int, float], None] | None = None, feeder: Feeder | Beside | None = None) -> Grouping:
    """Leiden communities (modularity) of the undirected graph of the kept nodes (``detect``: a big
    graph's in a child process, ``watch`` called while it runs; ``feeder``: the child or thread that was given
    the relationships while they were read, numbered over every node of the copy). More communities than fit in
    ``max_groups`` are grouped themselves (``regions``: Leiden on the graph of communities), not folded into "other"."""
    kept = compact.kept
    numbers = np.flatnonzero(kept)
    if feeder is not None and feeder.fed:
        everyone, modularity = feeder.result(watch)
        membership = dense(everyone[numbers])[1].astype(np.int32)  # numbered 0.. over the kept nodes
    else:
        local = np.full(kept.size, -1, dtype=np.int32)
        local[numbers] = np.arange(numbers.size, dtype=np.int32)
        membership, modularity = communities(local[compact.src], local[compact.dst], int(numbers.size), resolution, watch)
    raw = np.full(kept.size, -1, dtype=np.int64)
    raw[numbers] = membership
    alone = kept & (compact.degree == 0)  # each would be a community of one: together they are one group
    raw[alone] = -1
    found = int(np.unique(raw[raw >= 0]).size)
    notes = [f"Communities: Leiden (modularity, resolution {resolution:g}) on the undirected graph, modularity {modularity:.3f}."]
    raw, rounds = regions(compact, raw, max_groups - 2, resolution)  # room for "no relationships" and "small communities"
    grouped = int(np.unique(raw[raw >= 0]).size)
    if rounds:
        notes.append(f"{found:,} communities are more than max_groups ({max_groups:,}): they are grouped into {grouped:,} groups "
                     "of communities (Leiden on the graph of communities); .within(group) shows the communities inside one.")
    names = [f"community {number + 1}" for number in range(int(raw.max(initial=-1)) + 1)]
    _small(compact, raw, names, notes, numbers.size)
    if alone.any():
        raw[alone] = len(names)
        names.append("no relationships")
        notes.append(f"{int(alone.sum()):,} nodes have no relationship: they are one group, \"no relationships\".")
    grouping = _numbered(raw, names, kept, max_groups, notes)
    grouping.names = [name if own_group(name) else f"community {number + 1}" for number, name in enumerate(grouping.names)]
    return grouping


def own_group(name: str) -> bool:
    """A group of our own making, not a community ("no relationships", "small communities", "other"): named by what it is."""
    return name.startswith(("other", "no relationships", "small communities"))


def _small(compact: Compact, raw: np.ndarray, names: list[str], notes: list[str], kept: int) -> None:
    """On a big graph, fold groups of a handful of nodes (mostly tiny components) into one "small communities"
    group, said in a note that counts what it holds."""
    small = max(3, kept // 5000)
    if kept < 1000 or not names:
        return
    sizes = np.bincount(raw[raw >= 0], minlength=len(names))
    tiny = (sizes > 0) & (sizes < small)
    if tiny.sum() <= 1:
        return
    chosen = (raw >= 0) & tiny[np.maximum(raw, 0)]
    raw[chosen] = len(names)
    names.append("small communities")
    notes.append(f"{int(tiny.sum()):,} communities of fewer than {small} nodes ({int(chosen.sum()):,} nodes in all, most of them "
                 "small separate parts of the graph) are drawn as one group, \"small communities\".")


def regions(compact: Compact, raw: np.ndarray, room: int, resolution: float) -> tuple[np.ndarray, int]:
    """Communities grouped into groups of communities while there are more than ``room``: Leiden on the graph whose
    nodes are the communities, each pair joined once, weighted by the relationships between them (no self-loops: on
    the communities' own modularity Leiden would merge nothing more). Stops when a round merges nothing (communities
    that are separate parts of the graph). Returns the grouping and how many rounds ran."""
    current, rounds = raw.copy(), 0
    while rounds < 4:
        inside = current >= 0
        ids, inverse, _ = dense(current[inside])
        if ids.size <= room:
            break
        current[inside] = inverse
        count = int(ids.size)
        a, b = current[compact.src], current[compact.dst]
        joined = (a >= 0) & (b >= 0) & (a != b)
        keys, _, weights = dense(np.minimum(a, b)[joined] * count + np.maximum(a, b)[joined], inverse=False)
        if not keys.size:
            break
        grouped, _ = weighted_leiden(keys // count, keys % count, weights, count, resolution)
        if np.unique(grouped).size >= count:
            break
        current[inside] = grouped[current[inside]]
        rounds += 1
    return current, rounds


def by_label(compact: Compact, *, max_groups: int = 300) -> Grouping:
    """One group per label set (a node with two labels is in the group of both, "A+B")."""
    code = np.zeros(len(compact.keys), dtype=np.int64)
    if len(compact.labels) <= 62:
        for bit, numbers in enumerate(compact.label_members):
            code[numbers[numbers >= 0]] |= 1 << bit
        names = {}
        for value in np.unique(code[compact.kept]):
            names[int(value)] = "+".join(label for bit, label in enumerate(compact.labels) if value >> bit & 1) or "(no label)"
        unique = sorted(names)
        position = {value: number for number, value in enumerate(unique)}
        raw = np.fromiter((position.get(int(value), -1) for value in code), dtype=np.int64, count=code.size)
        return _numbered(raw, [names[value] for value in unique], compact.kept, max_groups, [])
    sets: list[list[str]] = [[] for _ in range(len(compact.keys))]  # more labels than bits: one list per node
    for label, numbers in zip(compact.labels, compact.label_members):
        for number in numbers:
            sets[number].append(label)
    texts = ["+".join(labels) or "(no label)" for labels in sets]
    unique = sorted(set(texts))
    position = {text: number for number, text in enumerate(unique)}
    raw = np.fromiter((position[text] for text in texts), dtype=np.int64, count=len(texts))
    return _numbered(raw, unique, compact.kept, max_groups, [])


def _values(db: Any, compact: Compact, name: str) -> list[Any]:
    """Property ``name`` of every node (None where absent), read from the node table in one pass."""
    from ..engine.store import lmdb_store  # the same store the copy was read from

    store = lmdb_store(db)
    found: list[Any] = [None] * len(compact.keys)
    index = compact.index
    with store.env.begin(write=False) as txn:
        for key, value in txn.cursor(db=store.nodes_db):
            number = index.get(key)
            if number is not None:
                found[number] = (json.loads(value).get("properties") or {}).get(name)
    return found


def by_property(db: Any, compact: Compact, name: str, *, max_groups: int = 300) -> Grouping:
    """One group per value of ``name``; numbers with more than ``MAX_VALUES`` values in ``BINS`` equal-count bins
    (NaN, inf and -inf each in a group of their own, named so; integers of any size shown in full)."""
    values = _values(db, compact, name)
    present = [value for number, value in enumerate(values) if value is not None and compact.kept[number]]
    if not present:
        raise GestaltError(f"No node in the overview has a property {name!r}; group by community, label or another property.")
    number = lambda value: isinstance(value, (int, float)) and not isinstance(value, bool)
    finite = [value for value in present if number(value) and math.isfinite(value)]
    notes: list[str] = []
    if all(number(value) for value in present) and len(set(finite)) > MAX_VALUES:
        edges, shown = _edges(finite)
        labels = [f"{name} {shown(low)} – {shown(high)}" for low, high in zip(edges[:-1], edges[1:])]
        odd = {"nan": f"{name} = NaN", "inf": f"{name} = inf", "-inf": f"{name} = -inf"}

        def bin_of(value: Any) -> str:
            if not number(value):
                return f"{name}: none"
            if not math.isfinite(value):
                return odd[str(float(value))]
            return labels[min(max(bisect.bisect_right(edges, value) - 1, 0), len(labels) - 1)]

        texts = [bin_of(value) for value in values]
        names = [*labels, *sorted(set(texts) - set(labels))]
        apart = sorted(set(texts) & set(odd.values()))
        notes.append(f"{name} is a number with {len(set(finite)):,} values: grouped in {len(labels)} equal-count bins "
                     f"({', '.join(labels)}); nodes without it are in \"{name}: none\"" +
                     (f"; {', '.join(apart)} are groups of their own." if apart else "."))
    else:
        texts = [f"{name} = {_shown(value)}" if value is not None else f"{name}: none" for value in values]
        names = sorted(set(texts))
    position = {text: number_ for number_, text in enumerate(names)}
    raw_list = [position[text] for text in texts]
    return _numbered(np.asarray(raw_list, dtype=np.int64), names, compact.kept, max_groups, notes)


def _edges(finite: list[Any]) -> tuple[list[Any], Callable[[Any], str]]:
    """``BINS`` equal-count bins' edges and how an edge is written: integers' edges are stored values, compared and
    written exactly (a float rounds 12345678901234567890 to ...168); other numbers' are quantiles, written short."""
    if all(isinstance(value, int) for value in finite):
        ordered = sorted(finite)
        return sorted({ordered[round(step * (len(ordered) - 1) / BINS)] for step in range(BINS + 1)}), lambda edge: f"{edge:,}"
    quantiles = np.unique(np.quantile(np.asarray(finite, dtype=float), np.linspace(0, 1, BINS + 1)))
    return [float(edge) for edge in quantiles], lambda edge: f"{edge:g}"


def _shown(value: Any) -> str:
    """A property value as a group's name: the value it is (NaN, inf, the full integer), text quoted as JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return {"nan": "NaN", "inf": "inf", "-inf": "-inf"}[str(value)]
    return json.dumps(value, ensure_ascii=False, default=str)
