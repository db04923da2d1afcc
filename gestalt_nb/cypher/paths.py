"""Shortest paths between two nodes, as a result that draws like any other.

The search is a bidirectional breadth-first search over GestaltDB's typed adjacency
(:mod:`gestalt_nb.graph.shortest`): O(V + E) time and O(V) memory whatever the number of paths,
where the engine's ``MATCH SHORTEST`` grows with the paths it enumerates. The answer is an
ordinary ``QueryResult``: ``.records`` holds ``{"p": path, "hops": n}`` rows in the shape a
Cypher path has, ``.subgraph`` the path (highlighted), ``.df`` the row, ``show()`` draws it.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ..errors import GestaltError
from ..graph import catalog
from ..graph.ids import resolve
from ..graph.shortest import DIRECTIONS, shortest_paths
from ..graph.subgraph import from_records
from ..options import settings
from .result import QueryResult

if TYPE_CHECKING:  # only for annotations: capabilities never import the session at run time
    from ..session import Connection

#: The longest path that may be asked for (a BFS reads each node once, so this bounds nothing costly).
MAX_HOPS = 100_000
_FOLLOWED = {
    "both": "relationships followed either way (direction='both', the default; direction='out' follows them only from a towards b)",
    "out": "relationships followed only in their direction, from a towards b (direction='out')",
    "in": "relationships followed only against their direction (direction='in')",
}


def _type_names(types: Any) -> list[str] | None:
    """``types`` as a list of relationship type names (None: every type); a clear error for anything else."""
    if types is None or isinstance(types, str):
        return None if types is None else [types]
    try:
        names = list(types)
    except TypeError:
        names = None
    if names is None or not all(isinstance(name, str) for name in names):
        raise GestaltError(f"types must be a relationship type name or a list of names (e.g. types=['KNOWS']), not {types!r}.")
    return names


def shortest_path(
    connection: Connection,
    a: str | int,
    b: str | int,
    *,
    types: list[str] | None = None,
    max_hops: int = 10,
    direction: str = "both",
    all_shortest: bool = False,
) -> QueryResult:
    """The shortest path from ``a`` to ``b`` over ``types`` (default: every type), at most ``max_hops`` long.

    ``direction`` is ``"both"`` (default: relationships followed either way — on a DAG that is
    not a directed path), ``"out"`` or ``"in"``; the result's note says which. ``max_hops`` may
    be up to 100,000. ``all_shortest=True`` returns every path of the shortest length (at most the
    row limit; the notes say when there are more). No path within ``max_hops`` gives an empty
    result whose notes say so. Integer ids may be given as written (``0``).
    """
    if direction not in DIRECTIONS:
        raise GestaltError(f"direction must be one of both, out, in — not {direction!r}.")
    if not isinstance(max_hops, int) or isinstance(max_hops, bool) or not 1 <= max_hops <= MAX_HOPS:
        raise GestaltError(f"max_hops must be a whole number from 1 to {MAX_HOPS:,}, not {max_hops!r}.")
    types = _type_names(types)
    db = connection.db
    ends = []
    for name, value in (("a", a), ("b", b)):
        key = resolve(db, value)
        if db.get_node(key.encode("utf-8")) is None:
            raise GestaltError(f"No node with id {value!r} ({name}). Check the id, e.g. with %%gcypher MATCH (n) RETURN id(n) LIMIT 5.")
        ends.append(key)
    if ends[0] == ends[1]:
        raise GestaltError("a and b are the same node; a shortest path needs two different nodes.")
    kinds = list(types) if types else catalog.relationship_types(db, connection.graph)
    if not kinds:
        raise GestaltError("The graph has no relationship types to walk; load some relationships first.")
    started = time.perf_counter()
    limit = settings.row_limit if all_shortest else 1
    found = shortest_paths(db, ends[0], ends[1], kinds, direction, max_hops, limit=limit)
    records = [{"p": _path(connection, nodes, edges), "hops": len(edges)} for nodes, edges in found.paths]
    return _result(connection, a, b, records, found, kinds, direction, max_hops, time.perf_counter() - started)


def _path(connection: Connection, nodes: list[str], edges: list[str]) -> dict:
    """A path in the shape Cypher returns it: its nodes in order from a, its relationships as stored."""
    fetched_nodes = {raw["id"]: raw for raw in connection.nodes(list(dict.fromkeys(nodes)))}
    fetched_edges = {raw["id"]: raw for raw in connection.edges(edges)}
    return {"nodes": [fetched_nodes[node] for node in nodes], "edges": [fetched_edges[edge] for edge in edges]}


def _result(connection, a, b, records, found, kinds, direction, max_hops, elapsed) -> QueryResult:
    over = f"over {', '.join(kinds)}"
    notes = [f"Shortest path by breadth-first search {over}: {_FOLLOWED[direction]}; {found.reached:,} nodes reached."]
    if found.more:
        notes.append(f"More than {len(records):,} shortest paths exist; showing {len(records):,} (the row limit).")
    if not records:
        notes.append(f"No path from {a!r} to {b!r} within {max_hops} hops {over} ({direction}). Raise max_hops or add types.")
    subgraph = from_records(records, title=f"shortest path {a!r} → {b!r}", fetch=connection.nodes)
    subgraph.notes.extend(notes)
    return QueryResult(
        query=f"shortest_path({a!r}, {b!r}, direction={direction!r}, max_hops={max_hops})",
        params={}, records=records, columns=["p", "hops"], truncated=found.more, row_limit=settings.row_limit,
        elapsed=elapsed, alias=connection.alias, write=False, executed="breadth-first search over typed adjacency (no Cypher)",
        notes=notes, subgraph=subgraph, work_bound=f"one breadth-first search: each node read at most once ({max_hops} hops at most)",
    )
