"""The view of a ``TimelineResult``: Graph (the canvas with its time slider) | Moments | Query."""

from __future__ import annotations

from typing import Any

from ..canvas.timeline import Frames
from ..graph.subgraph import Subgraph
from ..temporal.timeline import TimelineResult
from . import html as h
from .tabs import Page, TabbedView


class TimelineView(TabbedView):
    def __init__(self, result: TimelineResult, **overrides: Any) -> None:
        self.result = result
        super().__init__(**overrides)

    def graph(self) -> Subgraph:
        return self.result.subgraph

    @property
    def canvas(self):
        """The canvas, its slider set to the result's moments (on first use)."""
        canvas = self.drawing.canvas
        if canvas.timeline is None:
            result = self.result
            canvas.timeline = Frames(result.valid, result.known, result.frames)
        return canvas

    def summary(self) -> str:
        result = self.result
        axes = f"{len(result.valid)} moments" + (f" × {len(result.known)} recorded" if result.known else "")
        return f"{axes}, {result.valid[0]} … {result.valid[-1]}: {result.subgraph.summary()} in all"

    def moments_html(self) -> str:
        return h.banner(self.result.notes) + h.table(self.result.table, self.options.display_limit)

    def query_html(self) -> str:
        return h.key_values([("query", f"<pre>{h.esc(self.result.query)}</pre>")])

    def tabs(self) -> list[tuple[str, Page]]:
        pages: list[tuple[str, Page]] = [("Moments", self.moments_html), ("Query", self.query_html)]
        if not self.result.subgraph.nodes:
            return pages
        graph = (lambda: self.canvas) if self.options.renderer == "canvas" else (lambda: self.drawing.widget())
        return [("Graph", graph), *pages]

    def static_html(self) -> str:
        parts = [f"<div><b>{h.esc(self.summary())}</b></div>", h.banner(self.result.notes)]
        if self.result.subgraph.nodes:
            parts.append(h.svg_image(self.drawing.svg(), alt=f"every moment: {self.summary()}"))
        parts.append(h.table(self.result.table, self.options.display_limit))
        return "".join(parts)

    def text(self) -> str:
        return "\n".join([self.summary(), *self.result.notes, self.result.table.to_string(index=False)])
