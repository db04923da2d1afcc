"""Double-click to expand: a canvas node's neighbours, read from the database through ``Explorer``.

Typed adjacency in both directions by default, the explorer's node budget and notes; the new
neighbours arrive as one undoable delta anchored at the expanded node, so the old nodes keep
their places.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import GestaltError
from ..graph.explorer import Explorer
from ..graph.ids import as_loaded
from ..graph.subgraph import Subgraph


class DatabaseExpander:
    """``expander(canvas, node_id)`` for canvases whose nodes are database nodes of one connection."""

    def __init__(
        self,
        connection: Callable[[], Any],
        *,
        direction: str = "both",
        types: list[str] | None = None,
        sample_size: int = 25,
        node_budget: int | None = None,
    ) -> None:
        self.connection = connection
        self.direction, self.types, self.sample_size, self.node_budget = direction, types, sample_size, node_budget

    def __call__(self, canvas: Any, node_id: str) -> dict[str, int] | None:
        connection = self.connection()
        if connection is None:
            canvas.say("The connection this drawing came from is closed; reopen it to expand nodes.", "warning")
            return None
        if node_id not in canvas.subgraph.nodes:
            canvas.say(f"{node_id!r} is not drawn.", "warning")
            return None
        explorer = Explorer(connection, node_budget=self.node_budget or canvas.max_nodes, sample_size=self.sample_size)
        explorer.adopt(canvas.subgraph)
        try:
            explorer.expand([node_id], direction=self.direction, types=self.types)
        except GestaltError as exc:
            canvas.say(str(exc), "error")
            return None
        return add_expansion(canvas, explorer.subgraph, node_id, canvas.subgraph.notes)


def add_expansion(canvas: Any, expanded: Subgraph, node_id: str, notes_before: list[str], on_undo: Callable[[], Any] | None = None,
                  said: Callable[[dict[str, int]], str] | None = None) -> dict[str, int]:
    """Send what ``expanded`` has beyond the canvas as one undoable delta, and say what happened (``said(added)``:
    the first sentence, when the caller words it)."""
    before = set(notes_before)
    added = canvas.add(expanded, anchor=node_id, undoable=True, on_undo=on_undo)
    node = canvas.subgraph.nodes.get(node_id)
    name = node.properties.get(canvas.caption_property, as_loaded(node_id)) if node else as_loaded(node_id)
    text = said(added) if said is not None else f"Expanded {name}: +{added['nodes']} nodes, +{added['edges']} relationships."
    if not added["nodes"] and not added["edges"]:
        text = f"{name}: no more neighbours to draw."
    news = [note for note in expanded.notes if note not in before]
    canvas.say(" ".join([text, *news]), "warning" if news and said is None else "info")
    return added
