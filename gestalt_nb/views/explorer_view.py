"""The explorer widget: start from a node, expand by type and direction, undo, see the Cypher.

Pure ipywidgets (no custom JavaScript), so it works in every widget frontend. All state and
database work lives in :class:`gestalt_nb.explore.Explorer`; this module only wires controls.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from ..errors import GestaltError
from ..explorer import DIRECTIONS, Explorer
from ..options import settings
from ..render import Drawing, render
from ..subgraph import Subgraph
from . import html as h
from .tabs import widget_bundle


class ExplorerView:
    def __init__(self, explorer: Explorer, **overrides: Any) -> None:
        self.explorer = explorer
        self.options = settings.with_overrides(**overrides)
        self._drawn: tuple[Subgraph, Drawing] | None = None  # the last subgraph drawn, and its drawing

    @cached_property
    def widget(self):
        import ipywidgets as w

        wide = {"style": {"description_width": "initial"}}
        self.status = w.HTML()
        self.start_id = w.Text(placeholder="node id", description="Start at")
        self.start_button = w.Button(description="Start", button_style="primary")
        db = self.explorer.connection.db
        schema = self.explorer.connection.graph.get_structured_schema
        self.find_label = w.Dropdown(options=sorted(schema.get("node_props", {})), description="Label")
        self.find_property = w.Dropdown(options=sorted(db.indexed_node_properties), description="Indexed")
        self.find_value = w.Text(placeholder="value", description="equals")
        self.find_button = w.Button(description="Find")
        self.selected = w.SelectMultiple(description="Expand from", rows=6, **wide)
        self.direction = w.ToggleButtons(options=list(DIRECTIONS), value="out", description="Direction", **wide)
        self.types = w.SelectMultiple(options=self.explorer.relationship_types(), description="Types", rows=6)
        self.sample_size = w.BoundedIntText(value=self.explorer.sample_size, min=1, max=100, description="Per hop", **wide)
        self.budget = w.BoundedIntText(value=self.explorer.node_budget, min=1, max=self.options.max_nodes, description="Node budget", **wide)
        self.expand_button = w.Button(description="Expand", button_style="success")
        self.undo_button = w.Button(description="Undo")
        self.reset_button = w.Button(description="Reset")
        self.graph = w.HTML()
        self.details = w.HTML()
        self.cypher = w.Textarea(layout=w.Layout(width="100%", height="90px"), description="Cypher")

        self.start_button.on_click(lambda _: self._act(lambda: self.explorer.start(self.start_id.value.strip())))
        self.find_button.on_click(lambda _: self._act(self._find))
        self.expand_button.on_click(lambda _: self._act(self._expand))
        self.undo_button.on_click(lambda _: self._act(self.explorer.undo))
        self.reset_button.on_click(lambda _: self._act(self.explorer.reset))
        self.selected.observe(lambda _: self._show_details(), names="value")

        controls = w.VBox(
            [
                w.HBox([self.start_id, self.start_button]),
                w.HBox([self.find_label, self.find_property, self.find_value, self.find_button]),
                w.HBox([self.selected, self.types]),
                w.HBox([self.direction]),
                w.HBox([self.sample_size, self.budget, self.expand_button, self.undo_button, self.reset_button]),
            ]
        )
        self._refresh()
        return w.VBox([controls, self.status, self.graph, self.details, self.cypher])

    # -- the same steps from code (the widget redraws if it is showing) ------------
    def start(self, node_id: str) -> ExplorerView:
        self.explorer.start(node_id)
        return self._redraw()

    def expand(self, node_ids: list[str] | None = None, **options: Any) -> ExplorerView:
        self.explorer.expand(node_ids, **options)
        return self._redraw()

    def undo(self) -> ExplorerView:
        self.explorer.undo()
        return self._redraw()

    def _redraw(self) -> ExplorerView:
        if "widget" in self.__dict__:
            self._refresh()
        return self

    # -- actions ---------------------------------------------------------------
    def _act(self, action) -> None:
        try:
            action()
            self.status.value = ""
        except GestaltError as exc:
            self.status.value = f"<span style='color:#b00'>{h.esc(exc)}</span>"
        self._refresh()

    def _find(self) -> None:
        found = self.explorer.find(self.find_label.value, self.find_property.value, self.find_value.value)
        if not found:
            raise GestaltError(f"No {self.find_label.value} node has {self.find_property.value} = {self.find_value.value!r}.")
        self.explorer.start(found[0])

    def _expand(self) -> None:
        self.explorer.node_budget = self.budget.value
        self.explorer.expand(
            list(self.selected.value) or None,
            direction=self.direction.value,
            types=list(self.types.value) or None,
            sample_size=self.sample_size.value,
        )

    # -- drawing ---------------------------------------------------------------
    def _refresh(self) -> None:
        subgraph = self.explorer.subgraph
        caption = self.options.caption_property
        self.selected.options = [
            (f"{node.properties.get(caption, node.id)} ({node.id})", node.id) for node in subgraph.nodes.values()
        ]
        self.selected.value = tuple(sorted(subgraph.highlight_nodes & set(subgraph.nodes)))
        if subgraph:
            drawing = self._drawing()
            self.graph.value = h.banner(drawing.subgraph.notes) + drawing.iframe()
        else:
            self.graph.value = "<p>Start from a node id, or find one by label and an indexed property.</p>"
        self.cypher.value = self.explorer.cypher()
        self._show_details()

    def _show_details(self) -> None:
        chosen = list(self.selected.value)[:1]
        if not chosen:
            self.details.value = ""
            return
        details = self.explorer.node_details(chosen[0])
        self.details.value = h.key_values([(key, h.esc(h.shorten(value))) for key, value in details.items()])

    # -- display ---------------------------------------------------------------
    def _drawing(self) -> Drawing:
        """The drawing of the current subgraph, made once per state (widget and bundle share it)."""
        subgraph = self.explorer.subgraph
        if self._drawn is None or self._drawn[0] is not subgraph:
            self._drawn = (subgraph, render(subgraph, self.options))
        return self._drawn[1]

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        widget = self.widget
        subgraph = self.explorer.subgraph
        static = ""
        if subgraph:
            drawing = self._drawing()
            static = h.banner(drawing.static.notes) + h.svg_image(drawing.svg(), alt=repr(subgraph))
        text = f"Explorer on '{self.explorer.connection.alias}': {subgraph.summary()}"
        return widget_bundle(widget, static + f"<pre>{h.esc(self.explorer.cypher())}</pre>", text)
