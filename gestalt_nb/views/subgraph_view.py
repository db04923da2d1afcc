"""The view of a ``SubgraphResult``: Graph (seeds highlighted) | Nodes | Relationships | Query."""

from __future__ import annotations

import json
from typing import Any

from ..graph.neighbourhood import SubgraphResult
from ..graph.subgraph import Subgraph
from ..session import REGISTRY
from . import html as h
from .tabs import Page, TabbedView


class SubgraphView(TabbedView):
    def __init__(self, result: SubgraphResult, **overrides: Any) -> None:
        self.result = result
        super().__init__(**overrides)

    def graph(self) -> Subgraph:
        return self.result.subgraph

    def connection(self):
        alias = self.result.alias
        return lambda: REGISTRY.connections.get(alias)

    def notes(self) -> list[str]:
        result = self.result
        notes = list(result.notes)
        if result.unresolved_entities:
            notes.insert(0, f"Matched nothing: {', '.join(result.unresolved_entities)}.")
        return notes

    def graph_page(self) -> Any:
        if self.options.renderer != "canvas" or not self.notes():
            return self.drawing.widget()
        import ipywidgets as widgets

        return widgets.VBox([widgets.HTML(h.banner(self.notes())), self.drawing.widget()])

    def query_html(self) -> str:
        result = self.result
        rows = [
            ("found", h.esc(result.summary())),
            ("seeds", h.esc(", ".join(result.seed_node_ids) or "none")),
            ("unresolved", h.esc(", ".join(result.unresolved_entities) or "none")),
            ("truncated", "yes — a bound cut the walk" if result.truncated else "no (complete)"),
            ("parameters", f"<pre>{h.esc(json.dumps(result.query_params, ensure_ascii=False, indent=1))}</pre>"),
        ]
        return h.key_values(rows)

    def tabs(self) -> list[tuple[str, Page]]:
        limit = self.options.display_limit
        pages: list[tuple[str, Page]] = [
            ("Nodes", lambda: h.banner(self.notes()) + h.table(self.result.df, limit)),
            ("Relationships", lambda: h.table(self.result.edge_df, limit)),
            ("Query", self.query_html),
        ]
        if self.result.nodes:
            return [("Graph", self.graph_page), *pages]
        return pages

    def static_html(self) -> str:
        parts = [f"<div><b>{h.esc(self.result.summary())}</b></div>", h.banner(self.notes())]
        if self.result.nodes:
            parts.append(h.svg_image(self.drawing.svg(), alt=f"graph: {self.result.summary()}"))
        parts.append(h.table(self.result.df, self.options.display_limit))
        return "".join(parts)

    def text(self) -> str:
        lines = [repr(self.result), *self.notes()]
        if self.result.nodes:
            lines.append(self.result.df.head(20).to_string(index=False))
        return "\n".join(lines)
