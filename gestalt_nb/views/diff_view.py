"""The view of a ``DiffResult``: Graph (coloured by change) | Changes | Query."""

from __future__ import annotations

from typing import Any

from ..graph.subgraph import Subgraph
from ..temporal.diff import DiffResult
from . import html as h
from .tabs import Page, TabbedView


class DiffView(TabbedView):
    def __init__(self, result: DiffResult, **overrides: Any) -> None:
        self.result = result
        super().__init__(**overrides)

    def graph(self) -> Subgraph:
        return self.result.subgraph

    def summary(self) -> str:
        counts = ", ".join(f"{number:,} {change}" for change, number in self.result.counts().items())
        return f"{self.result.before} → {self.result.after}: {counts}"

    def changes_html(self) -> str:
        return h.banner(self.result.notes) + h.table(self.result.changes, self.options.display_limit)

    def query_html(self) -> str:
        result = self.result
        return h.key_values([("query", f"<pre>{h.esc(result.query)}</pre>"), ("before", h.esc(result.before)),
                             ("after", h.esc(result.after)), ("coloured by", h.esc(result.change_property))])

    def tabs(self) -> list[tuple[str, Page]]:
        pages: list[tuple[str, Page]] = [("Changes", self.changes_html), ("Query", self.query_html)]
        return [("Graph", lambda: self.drawing.widget()), *pages] if self.result.subgraph.nodes else pages

    def static_html(self) -> str:
        parts = [f"<div><b>{h.esc(self.summary())}</b></div>", h.banner(self.result.notes)]
        if self.result.subgraph.nodes:
            parts.append(h.svg_image(self.drawing.svg(), alt=f"changes: {self.summary()}"))
        parts.append(h.table(self.result.changes, self.options.display_limit))
        return "".join(parts)

    def text(self) -> str:
        return "\n".join([self.summary(), *self.result.notes, self.result.changes.head(20).to_string(index=False)])
