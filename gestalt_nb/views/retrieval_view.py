"""The retrieval view: the traversed paths drawn from their seeds, the documents, the settings."""

from __future__ import annotations

from typing import Any

from ..graph.retrieval import Retrieval
from ..graph.subgraph import Subgraph
from . import html as h
from .tabs import Page, TabbedView


class RetrievalView(TabbedView):
    def __init__(self, retrieval: Retrieval, **overrides: Any) -> None:
        self.retrieval = retrieval
        super().__init__(**overrides)

    def graph(self) -> Subgraph:
        return self.retrieval.subgraph

    def settings_html(self) -> str:
        return h.key_values([(key, h.esc(value)) for key, value in self.retrieval.settings_rows()])

    def connection(self):
        connection = self.retrieval.connection
        return lambda: connection if not connection.closed else None

    def tabs(self) -> list[tuple[str, Page]]:
        documents = ("Documents", lambda: h.banner(self.drawing.subgraph.notes) + h.table(self.retrieval.df, self.options.display_limit))
        if not self.retrieval.documents:
            return [documents, ("Settings", self.settings_html)]
        return [("Graph", self.drawing.widget), documents, ("Settings", self.settings_html)]

    def static_html(self) -> str:
        parts = [h.banner(self.drawing.static.notes)]
        if self.retrieval.documents:
            parts.append(h.svg_image(self.drawing.svg(), alt=repr(self.retrieval)))
        parts += [h.table(self.retrieval.df, self.options.display_limit), self.settings_html()]
        return "".join(parts)

    def text(self) -> str:
        lines = [repr(self.retrieval), *self.retrieval.notes()]
        lines += [f"  {row.id} ({row.labels}) hops={row.hops} seed={row.seed}" for row in self.retrieval.df.head(20).itertuples()]
        return "\n".join(lines)
