"""A view of a bare ``Subgraph``: the drawing, with a static picture and text where widgets can't run."""

from __future__ import annotations

from typing import Any

from ..graph.subgraph import Subgraph
from . import html as h
from .tabs import Page, TabbedView


class GraphView(TabbedView):
    def __init__(self, subgraph: Subgraph, **overrides: Any) -> None:
        self.subgraph = subgraph
        super().__init__(**overrides)

    def graph(self) -> Subgraph:
        return self.subgraph

    def tabs(self) -> list[tuple[str, Page]]:
        return [("Graph", self.drawing.widget)]

    def static_html(self) -> str:
        notes = h.banner(self.drawing.static.notes)
        return notes + h.svg_image(self.drawing.svg(), alt=f"graph: {self.subgraph.summary()}")

    def text(self) -> str:
        return "\n".join([repr(self.subgraph), *self.drawing.subgraph.notes])
