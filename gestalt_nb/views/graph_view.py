"""A view of a bare ``Subgraph``: the drawing, with a static picture and text where widgets can't run."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from ..options import settings
from ..render import Drawing, render
from ..subgraph import Subgraph
from . import html as h
from .tabs import TabbedView


class GraphView(TabbedView):
    def __init__(self, subgraph: Subgraph, **overrides: Any) -> None:
        self.subgraph = subgraph
        self.options = settings.with_overrides(**overrides)

    @cached_property
    def drawing(self) -> Drawing:
        return render(self.subgraph, self.options)

    def tabs(self) -> list[tuple[str, str]]:
        return [("Graph", h.banner(self.drawing.subgraph.notes) + self.drawing.iframe())]

    def static_html(self) -> str:
        notes = h.banner(self.drawing.static.notes)
        return notes + h.svg_image(self.drawing.svg(), alt=f"graph: {self.subgraph.summary()}")

    def text(self) -> str:
        return "\n".join([repr(self.subgraph), *self.drawing.subgraph.notes])
