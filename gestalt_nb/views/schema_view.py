"""The schema view: meta-graph | labels | relationship types | indexes, always saying it is a sample."""

from __future__ import annotations

from typing import Any

from ..graph.schema import SchemaResult
from ..graph.subgraph import Subgraph
from . import html as h
from .tabs import Page, TabbedView


class SchemaView(TabbedView):
    def __init__(self, result: SchemaResult, **overrides: Any) -> None:
        self.result = result
        super().__init__(**overrides)

    def graph(self) -> Subgraph:
        return self.result.subgraph

    def indexes_html(self) -> str:
        rows = [(kind, h.esc(", ".join(names) or "none")) for kind, names in self.result.indexes.items()]
        return h.key_values(rows)

    def tabs(self) -> list[tuple[str, Page]]:
        note = h.banner([self.result.note()], kind="info")
        limit = self.options.display_limit
        return [
            ("Graph", self.drawing.widget),
            ("Labels", lambda: note + h.table(self.result.labels_df, limit)),
            ("Relationships", lambda: note + h.table(self.result.relationships_df, limit)),
            ("Indexes", self.indexes_html),
        ]

    def static_html(self) -> str:
        limit = self.options.display_limit
        return "".join(
            [
                h.banner(self.drawing.static.notes, kind="info"),
                h.svg_image(self.drawing.svg(), alt=f"schema: {self.result.subgraph.summary()}"),
                "<h4>Labels</h4>",
                h.table(self.result.labels_df, limit),
                "<h4>Relationship types</h4>",
                h.table(self.result.relationships_df, limit),
                "<h4>Property indexes</h4>",
                self.indexes_html(),
            ]
        )

    def text(self) -> str:
        result = self.result
        lines = [repr(result), result.note()]
        lines += [f"  (:{row.label}) {row.nodes} nodes — {row.properties}" for row in result.labels_df.itertuples()]
        lines += [f"  (:{rel['start']})-[:{rel['type']}]->(:{rel['end']})" for rel in result.schema.get("relationships", [])]
        lines += [f"  indexes on {kind}: {', '.join(names) or 'none'}" for kind, names in result.indexes.items()]
        return "\n".join(lines)
