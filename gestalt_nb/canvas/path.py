"""The shortest path between two nodes, drawn on the canvas and highlighted.

The path comes from the database through the connection's own ``shortest_path`` (the same answer
``connection.shortest_path(a, b)`` gives); what is not drawn yet is added as one undoable delta
(within the drawing caps, which say what they leave out), then the path alone is highlighted.
"""

from __future__ import annotations

from typing import Any

from ..errors import GestaltError


def connection_of(canvas: Any) -> Any:
    """The connection the canvas's nodes come from, or a clear error."""
    expander = canvas.expander
    source = getattr(expander, "connection", None)
    connection = source() if callable(source) else None
    if connection is None:
        raise GestaltError("This drawing is not connected to an open database, so it cannot look up a path; "
                           "draw a query result (or reopen its connection) and try again.")
    return connection


def draw_path(canvas: Any, a: Any, b: Any, **options: Any) -> Any:
    """Find the shortest path from ``a`` to ``b`` (``options`` go to ``shortest_path``), draw and highlight it.

    Returns the path as a ``QueryResult`` (``.subgraph`` holds it; no path: empty, its notes say why).
    """
    connection = connection_of(canvas)
    grouped = [end for end in (a, b) if isinstance(end, str) and end in canvas.subgraph.groups]
    if grouped:
        raise GestaltError(f"{grouped[0]!r} is a group of the overview, not a node: double-click it to draw its members, "
                           "then find a path between two of them.")
    result = connection.shortest_path(a, b, **options)
    path = result.subgraph
    if not path.nodes:
        canvas.say(" ".join(result.notes) or f"No path from {a!r} to {b!r}.", "warning")
        return result
    anchor = next((node_id for node_id in path.nodes if node_id in canvas.subgraph.nodes), None)
    added = canvas.add(path, anchor=anchor, undoable=True)
    canvas.highlight([*path.nodes, *path.edges])
    hops = len(path.edges)
    more = f" (+{added['nodes']} nodes, +{added['edges']} relationships drawn)" if added["nodes"] or added["edges"] else ""
    missing = [item for item in [*path.nodes, *path.edges] if item not in canvas.subgraph.nodes and item not in canvas.subgraph.edges]
    cut = " Part of it is past the drawing caps and not drawn." if missing else ""
    canvas.say(f"Shortest path: {hops} hop{'s' if hops != 1 else ''}{more}.{cut}", "warning" if missing else "info")
    return result
