"""Shortest paths as a bidirectional breadth-first search over GestaltDB's typed adjacency.

Both ends grow one whole level at a time, always the end whose frontier is smaller, until they
meet or the two depths add up to ``max_hops``: O(V + E) adjacency records read and O(V) memory
(each reached node's depth and the relationships that reached it at that depth). It reads the
store's typed adjacency (``iter_typed_adjacency``) per node, type and direction, never the
engine's path enumeration (``MATCH SHORTEST``), whose cost grows with the number of paths.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

#: For each direction asked: the stored directions read from a's end, and from b's end.
DIRECTIONS = {"out": (("out",), ("in",)), "in": (("in",), ("out",)), "both": (("out", "in"), ("out", "in"))}

Step = tuple[bytes, bytes]  # (previous node, relationship id)


@dataclass
class _End:
    """One end of the search: each reached node's depth and the steps that reached it at that depth."""

    start: bytes
    directions: tuple[str, ...]
    depth: int = 0
    seen: dict[bytes, int] = field(default_factory=dict)
    parents: dict[bytes, list[Step]] = field(default_factory=dict)
    frontier: list[bytes] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.seen[self.start] = 0
        self.parents[self.start] = []
        self.frontier = [self.start]


@dataclass
class Found:
    """The shortest length (None: no path within max_hops), and its paths as (node ids, relationship ids)."""

    hops: int | None
    paths: list[tuple[list[str], list[str]]]
    #: More shortest paths exist than were kept (``limit``).
    more: bool = False
    #: Nodes reached from both ends together (the work done, for notes and benchmarks).
    reached: int = 0
    #: How deep the search looked (hops from both ends together).
    depth: int = 0


def shortest_paths(db: Any, a: str, b: str, types: list[str], direction: str, max_hops: int, *, limit: int = 1) -> Found:
    """Up to ``limit`` shortest paths from ``a`` to ``b`` (stored ids) over ``types``, at most ``max_hops`` long."""
    forward, backward = DIRECTIONS[direction]
    ends = (_End(a.encode("utf-8"), forward), _End(b.encode("utf-8"), backward))
    kinds = list(types)
    read = db.store.iter_typed_adjacency
    meets: list[tuple[bytes, bytes, bytes, bool]] = []  # (node on a's side, relationship, node on b's side, grown from a)
    while all(end.frontier for end in ends) and ends[0].depth + ends[1].depth < max_hops:
        grown = 0 if len(ends[0].frontier) <= len(ends[1].frontier) else 1
        meets = _grow(ends[grown], ends[1 - grown], kinds, read, want_all=limit > 1)
        if meets:
            meets = [(u, e, v, True) if grown == 0 else (v, e, u, False) for u, e, v in meets]
            break
    reached = len(ends[0].seen) + len(ends[1].seen)
    if not meets:
        return Found(None, [], reached=reached, depth=ends[0].depth + ends[1].depth)
    hops = ends[0].depth + ends[1].depth
    paths, more = [], False
    for path in _paths(ends, meets):
        if len(paths) >= limit:
            more = True
            break
        paths.append(path)
    return Found(hops, paths, more, reached, hops)


def _grow(end: _End, other: _End, kinds: list[str], read: Any, *, want_all: bool) -> list[tuple[bytes, bytes, bytes]]:
    """Read one whole level of ``end``; the (node, relationship, neighbour) steps that reach ``other``."""
    depth = end.depth + 1
    following: list[bytes] = []
    meets: list[tuple[bytes, bytes, bytes]] = []
    seen, parents, there = end.seen, end.parents, other.seen
    for node in end.frontier:
        for kind in kinds:
            for stored in end.directions:
                for edge, neighbour in read(node, kind, stored):
                    known = seen.get(neighbour)
                    if known is None:
                        seen[neighbour] = depth
                        parents[neighbour] = [(node, edge)]
                        following.append(neighbour)
                    elif known == depth and want_all:
                        parents[neighbour].append((node, edge))
                    else:
                        continue
                    if neighbour in there:
                        meets.append((node, edge, neighbour))
                        if not want_all:
                            end.depth = depth
                            return meets
    end.depth, end.frontier = depth, following
    return meets


def _walks(end: _End, node: bytes) -> Iterator[tuple[list[bytes], list[bytes]]]:
    """Every way back from ``node`` to the end's start: (nodes from the start, relationships), lazily.

    Iterative (a path may be thousands of hops long); a run of single parents is followed in place.
    """
    stack: list[tuple[bytes, list[bytes], list[bytes]]] = [(node, [node], [])]
    while stack:
        current, nodes, edges = stack.pop()
        while current != end.start and len(end.parents[current]) == 1:
            current, edge = end.parents[current][0]
            nodes.append(current)
            edges.append(edge)
        if current == end.start:
            yield nodes[::-1], edges[::-1]
            continue
        for previous, edge in reversed(end.parents[current]):
            stack.append((previous, [*nodes, previous], [*edges, edge]))


def _paths(ends: tuple[_End, _End], meets: list[tuple[bytes, bytes, bytes, bool]]) -> Iterator[tuple[list[str], list[str]]]:
    """Whole paths a → b through each meeting step, as text ids; each distinct path once."""
    done: set[tuple[bytes, ...]] = set()
    for u, edge, v, _ in meets:
        for left_nodes, left_edges in _walks(ends[0], u):
            for right_nodes, right_edges in _walks(ends[1], v):
                edges = (*left_edges, edge, *reversed(right_edges))
                if edges in done:
                    continue
                done.add(edges)
                nodes = [*left_nodes, *reversed(right_nodes)]
                yield [n.decode("utf-8") for n in nodes], [e.decode("utf-8") for e in edges]
