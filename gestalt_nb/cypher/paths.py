"""Shortest paths between two nodes, as a result that draws like any other.

The search is a bidirectional breadth-first search over GestaltDB's typed adjacency
(:mod:`gestalt_nb.graph.shortest`): O(V + E) time and O(V) memory whatever the number of paths,
where the engine's ``MATCH SHORTEST`` grows with the paths it enumerates. The answer is an
ordinary ``QueryResult``: ``.records`` holds ``{"p": path, "hops": n}`` rows in the shape a
Cypher path has, ``.subgraph`` the path (highlighted), ``.df`` the row, ``show()`` draws it.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ..errors import GestaltError
from ..graph import catalog
from ..graph.ids import resolve
from ..graph.shortest import DIRECTIONS, shortest_paths
from ..graph.subgraph import from_records
from ..options import settings
from .budget import run_within
from .query import cell_budget
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


def shortest_path(
    connection: Connection,
    a: str | int,
    b: str | int,
    *,
    types: str | list[str] | None = None,
    max_hops: int | None = None,
    direction: str = "both",
    all_shortest: bool = False,
    timeout: float | None = None,
) -> QueryResult:
    """The work of :meth:`Connection.shortest_path <gestalt_nb.capabilities.Capabilities.shortest_path>`, ``connection`` first (documented there, once)."""
    if direction not in DIRECTIONS:
        raise GestaltError(f"direction must be one of both, out, in — not {direction!r}.")
    capped = max_hops is not None
    if max_hops is None:
        max_hops = MAX_HOPS
    if not isinstance(max_hops, int) or isinstance(max_hops, bool) or not 1 <= max_hops <= MAX_HOPS:
        raise GestaltError(f"max_hops must be a whole number from 1 to {MAX_HOPS:,}, not {max_hops!r}.")
    if isinstance(types, str):
        types = [types]
    if types is not None and (not isinstance(types, (list, tuple, set)) or not all(isinstance(kind, str) for kind in types)):
        raise GestaltError(f"types is a relationship type or a list of them, e.g. types=['KNOWS'], not {types!r}.")
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
    found, _usage = run_within(lambda: shortest_paths(db, ends[0], ends[1], kinds, direction, max_hops, limit=limit),
                               cell_budget(timeout, None), describe="shortest-path search")
    records = [{"p": _path(connection, nodes, edges), "hops": len(edges)} for nodes, edges in found.paths]
    return _result(connection, a, b, records, found, kinds, direction, max_hops if capped else None, time.perf_counter() - started)


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
        if max_hops is not None:
            notes.append(f"No path from {a!r} to {b!r} within {max_hops} hops {over} ({direction}; searched {found.depth} hops deep)."
                         + (" Raise max_hops or add types." if found.depth >= max_hops else " Check the types and the direction."))
        else:
            notes.append(f"No path from {a!r} to {b!r} {over} ({direction}): searched {found.depth} hops deep, "
                         "every node reachable from one end. Check the types and the direction.")
    subgraph = from_records(records, title=f"shortest path {a!r} → {b!r}", fetch=connection.nodes)
    subgraph.notes.extend(notes)
    return QueryResult(
        query=f"shortest_path({a!r}, {b!r}, direction={direction!r}, max_hops={max_hops})",
        params={}, records=records, columns=["p", "hops"], truncated=found.more, row_limit=settings.row_limit,
        elapsed=elapsed, alias=connection.alias, write=False, executed="breadth-first search over typed adjacency (no Cypher)",
        notes=notes, subgraph=subgraph, work_bound="one breadth-first search: each node read at most once"
        + (f" ({max_hops} hops at most)" if max_hops is not None else f" (searched {found.depth} hops deep)"),
    )
