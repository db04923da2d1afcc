"""The explorer: the graph canvas plus controls — start, find, expand by type and direction, undo.

The canvas is the drawing and the inspector (click a node to see its properties, double-click to
expand it). Expansions reach the canvas as deltas, so drawn nodes keep their places; a new start
or a reset redraws. All state and database work lives in :class:`gestalt_nb.graph.explorer.Explorer`;
this module only wires controls and the canvas to it.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from ..canvas import GraphCanvas
from ..canvas.expand import add_expansion
from ..errors import GestaltError
from ..graph import catalog
from ..graph.explorer import DIRECTIONS, Explorer
from ..graph.ids import resolve
from ..render import render
from . import html as h
from .tabs import View

#: The largest per-hop sample the box accepts (the node budget still bounds each step).
MAX_PER_HOP = 10_000


class ExplorerView(View):
    def __init__(self, explorer: Explorer, **overrides: Any) -> None:
        super().__init__(**overrides)
        self.explorer = explorer
        self._steps: list[str] = []  # per explorer step: "delta" (sent as an undoable delta) or "reset"

    @cached_property
    def canvas(self) -> GraphCanvas:
        return GraphCanvas(
            self.explorer.subgraph,
            caption_property=self.options.caption_property,
            height=self.options.graph_height,
            max_nodes=self.options.max_nodes,
            max_edges=self.options.max_edges,
            expander=lambda canvas, node_id: self._act(lambda: self.expand([node_id], **self._choices())),
        )

    @cached_property
    def widget(self):
        import ipywidgets as w

        wide = {"style": {"description_width": "initial"}}
        self.status = w.HTML()
        self.start_id = w.Text(placeholder="node id", description="Start at")
        self.start_button = w.Button(description="Start", button_style="primary")
        db = self.explorer.connection.db
        self.find_label = w.Dropdown(options=catalog.labels(db, self.explorer.connection.graph), description="Label")
        self.find_property = w.Dropdown(options=sorted(db.indexed_node_properties), description="Indexed")
        self.find_value = w.Text(placeholder="value", description="equals")
        self.find_button = w.Button(description="Find")
        self.direction = w.ToggleButtons(options=list(DIRECTIONS), value="both", description="Direction", **wide)
        self.types = w.SelectMultiple(options=self.explorer.relationship_types(), description="Types", rows=4)
        per_hop = self.explorer.sample_size or self.explorer.node_budget
        self.sample_size = w.BoundedIntText(value=min(per_hop, MAX_PER_HOP), min=1, max=MAX_PER_HOP, description="Per hop", **wide)
        self.budget = w.BoundedIntText(value=self.explorer.node_budget, min=1, max=self.options.max_nodes, description="Node budget", **wide)
        self.expand_button = w.Button(description="Expand selected", button_style="success", tooltip="the nodes selected on the canvas, else the start")
        self.expand_all_button = w.Button(
            description="Expand all", tooltip="draw every neighbour the last expansion left out, within the node budget",
            layout=w.Layout(display="none"),
        )
        self.undo_button = w.Button(description="Undo")
        self.reset_button = w.Button(description="Reset")
        self.cypher = w.Textarea(layout=w.Layout(width="100%", height="90px"), description="Cypher")

        self.start_button.on_click(lambda _: self._act(lambda: self.start(self.start_id.value.strip())))
        self.find_button.on_click(lambda _: self._act(self._find))
        self.expand_button.on_click(lambda _: self._act(lambda: self.expand(self.canvas.node_ids(self.canvas.selected) or None, **self._choices())))
        self.expand_all_button.on_click(lambda _: self._act(self.expand_all))
        self.undo_button.on_click(lambda _: self._act(self.undo))
        self.reset_button.on_click(lambda _: self._act(self.reset))

        controls = w.VBox(
            [
                w.HBox([self.start_id, self.start_button]),
                w.HBox([self.find_label, self.find_property, self.find_value, self.find_button]),
                w.HBox([self.types, w.VBox([self.direction, w.HBox([self.sample_size, self.budget])])]),
                w.HBox([self.expand_button, self.expand_all_button, self.undo_button, self.reset_button]),
            ]
        )
        self.cypher.value = self.explorer.cypher()
        return w.VBox([controls, self.status, self.canvas, self.cypher])

    def _choices(self) -> dict[str, Any]:
        """Direction, types and per-hop sample from the controls (their defaults without a widget)."""
        if "widget" not in self.__dict__:
            return {"direction": "both"}
        self.explorer.node_budget = self.budget.value
        return {"direction": self.direction.value, "types": list(self.types.value) or None, "sample_size": self.sample_size.value}

    # -- the same steps from code and from the controls ---------------------------------
    def start(self, node_id: str) -> ExplorerView:
        self.explorer.start(node_id)
        return self._redraw()

    def expand(self, node_ids: list[str] | None = None, **options: Any) -> ExplorerView:
        anchor = (node_ids or sorted(self.explorer.subgraph.highlight_nodes, key=str) or [None])[0]
        return self._step(lambda: self.explorer.expand(node_ids, **options), anchor)

    def expand_all(self) -> ExplorerView:
        """Draw every neighbour the last expansion's sample left out, within the node budget."""
        last = self.explorer.last_expansion
        anchor = (last.get("node_ids") or sorted(self.explorer.subgraph.highlight_nodes, key=str) or [None])[0]
        return self._step(self.explorer.expand_all, anchor)

    def _step(self, expand: Any, anchor: Any) -> ExplorerView:
        anchor = resolve(self.explorer.connection.db, anchor) if anchor is not None else None  # 0 → its stored key
        notes_before = list(self.explorer.subgraph.notes)
        expand()
        self._steps.append("delta")
        if "canvas" in self.__dict__:
            add_expansion(self.canvas, self.explorer.subgraph, anchor, notes_before, on_undo=self._step_back)
        self._show_cypher()
        return self

    def undo(self) -> ExplorerView:
        if not self.explorer.history:
            raise GestaltError("Nothing to undo.")
        if self._steps and self._steps[-1] == "delta" and "canvas" in self.__dict__ and self.canvas.undo():
            return self  # the canvas took the delta back and called _step_back
        self._step_back()
        return self._redraw(remember=False)

    def reset(self) -> ExplorerView:
        self.explorer.reset()
        return self._redraw()

    def _step_back(self) -> None:
        self.explorer.undo()
        if self._steps:
            self._steps.pop()
        self._show_cypher()

    def _redraw(self, *, remember: bool = True) -> ExplorerView:
        if remember:
            self._steps.append("reset")
        if "canvas" in self.__dict__:
            self.canvas.reset(self.explorer.subgraph)
        self._show_cypher()
        return self

    def _show_cypher(self) -> None:
        if "widget" in self.__dict__:
            self.cypher.value = self.explorer.cypher()
            self.expand_all_button.layout.display = "" if self.explorer.left_out else "none"

    # -- actions -----------------------------------------------------------------------
    def _act(self, action) -> None:
        try:
            action()
            if "widget" in self.__dict__:
                self.status.value = ""
        except GestaltError as exc:
            if "widget" in self.__dict__:
                self.status.value = f"<span style='color:#b00'>{h.esc(exc)}</span>"
            if "canvas" in self.__dict__:
                self.canvas.say(str(exc), "error")

    def _find(self) -> None:
        found = self.explorer.find(self.find_label.value, self.find_property.value, self.find_value.value)
        if not found:
            raise GestaltError(f"No {self.find_label.value} node has {self.find_property.value} = {self.find_value.value!r}.")
        self.start(found[0])

    # -- display -----------------------------------------------------------------------
    def static_html(self) -> str:
        subgraph = self.explorer.subgraph
        static = ""
        if subgraph:
            drawing = render(subgraph, self.options)
            canvas = self.__dict__.get("canvas")  # once a page has shown it: that picture
            picture = canvas.snapshot() if canvas is not None and canvas.shown is not None else drawing.svg()
            static = h.banner(drawing.static.notes) + h.svg_image(picture, alt=repr(subgraph))
        return static + f"<pre>{h.esc(self.explorer.cypher())}</pre>"

    def canvases(self) -> list[GraphCanvas]:
        return [self.canvas] if "canvas" in self.__dict__ else []

    def text(self) -> str:
        return f"Explorer on '{self.explorer.connection.alias}': {self.explorer.subgraph.summary()}"

    def close(self) -> None:
        super().close()
        if "canvas" in self.__dict__:
            self.canvas.close()
