"""Shortest paths between two nodes, as a result that draws like any other.

GestaltDB runs ``MATCH SHORTEST k p = ...`` / ``MATCH ALL SHORTEST p = ...`` (and ``shortestPath(...)``
as a ``RETURN`` expression) but not ``MATCH p = shortestPath(...)``. ``shortest_path`` writes the
supported form with typed relationships (an untyped ``[*]`` scans every edge per node) and runs
it read-only through :func:`gestalt_nb.cypher.query.run`, so the answer is an ordinary ``QueryResult``:
``.subgraph`` holds the path, ``.df`` the row, ``show()`` draws it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import json
import re

from ..errors import GestaltError
from ..graph.ids import resolve
from .result import QueryResult

if TYPE_CHECKING:  # only for annotations: capabilities never import the session at run time
    from ..session import Connection

_ARROWS = {"out": ("-", "->"), "in": ("<-", "-"), "both": ("-", "-")}
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _type(name: str) -> str:
    return name if _NAME.match(name) else "`" + name.replace("`", "``") + "`"


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

    ``direction`` is ``"both"`` (default: relationships followed either way), ``"out"`` or ``"in"``.
    ``all_shortest=True`` returns every path of the shortest length. No path within ``max_hops``
    gives an empty result whose notes say so. Integer ids may be given as written (``0``).
    """
    if direction not in _ARROWS:
        raise GestaltError(f"direction must be one of both, out, in — not {direction!r}.")
    if not isinstance(max_hops, int) or isinstance(max_hops, bool) or not 1 <= max_hops <= 50:
        raise GestaltError(f"max_hops must be a whole number from 1 to 50, not {max_hops!r}.")
    if isinstance(types, str):
        types = [types]
    db = connection.db
    ends = []
    for name, value in (("a", a), ("b", b)):
        key = resolve(db, value)
        if db.get_node(key.encode("utf-8")) is None:
            raise GestaltError(f"No node with id {value!r} ({name}). Check the id, e.g. with %%gcypher MATCH (n) RETURN id(n) LIMIT 5.")
        ends.append(key)
    kinds = list(types) if types else sorted({rel["type"] for rel in connection.graph.get_structured_schema.get("relationships", [])} - {"__untyped__"})
    if not kinds:
        raise GestaltError("The graph has no relationship types to walk; load some relationships first.")
    left, right = _ARROWS[direction]
    selector = "ALL SHORTEST" if all_shortest else "SHORTEST 1"
    query = (
        f"MATCH {selector} p = (a {{id: {json.dumps(ends[0])}}}){left}[:{'|'.join(_type(kind) for kind in kinds)}*1..{max_hops}]{right}"
        f"(b {{id: {json.dumps(ends[1])}}}) RETURN p, length(p) AS hops"
    )
    if ends[0] == ends[1]:
        raise GestaltError("a and b are the same node; a shortest path needs two different nodes.")
    result = connection.run(query)
    result.subgraph.title = f"shortest path {a!r} → {b!r}"
    if not result.records:
        note = f"No path from {a!r} to {b!r} within {max_hops} hops over {', '.join(kinds)} ({direction}). Raise max_hops or add types."
        result.notes.append(note)
        result.subgraph.notes.append(note)
    return result
