"""The view of an ``OverviewResult``: Graph (super-nodes, drilled into on double-click) | Groups | Links | Info."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from ..canvas.drill import GroupExpander
from ..canvas.expand import DatabaseExpander
from ..graph.subgraph import Subgraph
from ..grouped.result import OverviewResult
from ..render import Drawing
from . import html as h
from .tabs import Page, TabbedView


class OverviewView(TabbedView):
    def __init__(self, result: OverviewResult, **overrides: Any) -> None:
        self.result = result
        if overrides.get("color") is None and result.labels_alike:  # one label: colour tells the groups apart instead
            overrides["color"] = "group"
        super().__init__(**overrides)

    def graph(self) -> Subgraph:
        return self.result.subgraph

    def connection(self):
        connection = self.result.connection
        return (lambda: None if connection is None or connection.closed else connection) if connection is not None else None

    @cached_property
    def drawing(self) -> Drawing:
        drawing = super().drawing
        if self.options.renderer == "canvas":
            members = DatabaseExpander(self.connection()) if self.connection() is not None else None
            drawing.canvas.expander = GroupExpander(self.result, members)
        return drawing

    def graph_page(self) -> Any:
        return self.drawing.widget()  # the canvas shows the notes above the drawing

    def info_html(self) -> str:
        result = self.result
        rows = [
            ("overview", h.esc(result.summary())),
            ("grouped by", h.esc(result.by)),
            ("drawn", "area = nodes in the group; a line = the relationships between two groups (their count on hover)"),
            ("drill in", "double-click a group to draw its members in place; Undo (or canvas.collapse(group)) folds them back"),
        ]
        return h.key_values(rows) + h.banner(result.notes)

    def tabs(self) -> list[tuple[str, Page]]:
        limit = self.options.display_limit
        return [
            ("Graph", self.graph_page),
            ("Groups", lambda: h.table(self.result.groups, limit)),
            ("Links", lambda: h.table(self.result.links, limit)),
            ("Info", self.info_html),
        ]

    def static_html(self) -> str:
        return "".join([f"<div><b>{h.esc(self.result.summary())}</b></div>", h.banner(self.result.notes),
                        h.svg_image(self.drawing.svg(), alt=f"overview: {self.result.summary()}"),
                        h.table(self.result.groups, self.options.display_limit)])

    def text(self) -> str:
        return "\n".join([repr(self.result), *self.result.notes, self.result.groups.head(20).to_string(index=False)])
