"""The view of one ``QueryResult``: Graph | Table | JSON | Info (Graph first when there is a graph)."""

from __future__ import annotations

import json
from functools import cached_property
from typing import Any

from ..cypher.budget import size
from ..cypher.result import QueryResult
from ..graph.subgraph import Subgraph
from ..session import REGISTRY
from . import html as h
from .tabs import Page, TabbedView


class ResultView(TabbedView):
    def __init__(self, result: QueryResult, **overrides: Any) -> None:
        self.result = result
        super().__init__(**overrides)

    def graph(self) -> Subgraph:
        return self.result.subgraph

    def notes(self) -> list[str]:
        return [*self.result.notes, *self.drawing.subgraph.notes]

    def static_notes(self) -> list[str]:
        return [*self.result.notes, *self.drawing.static.notes]

    @cached_property
    def head(self):
        """The first display_limit records as a DataFrame, made once for the table, the static HTML and the text."""
        return self.result.frame(self.options.display_limit, exact=True)  # a stored NaN shown, None left empty

    def connection(self):
        alias = self.result.alias
        return lambda: REGISTRY.connections.get(alias)

    def graph_page(self) -> Any:
        if self.options.renderer != "canvas" or not self.result.notes:
            return self.drawing.widget()
        import ipywidgets as widgets

        return widgets.VBox([widgets.HTML(h.banner(self.result.notes)), self.drawing.widget()])

    def tabs(self) -> list[tuple[str, Page]]:
        result = self.result
        pages: list[tuple[str, Page]] = [
            ("Table", lambda: h.banner(result.notes) + self.table_html()),
            ("JSON", lambda: h.json_block(result.rows, self.options.json_max_chars)),
            ("Info", self.info_html),
        ]
        if result.subgraph:
            return [("Graph", self.graph_page), *pages]
        return [*pages, ("Graph", lambda: "<p>This result holds no nodes, relationships or paths to draw.</p>")]

    def info_html(self) -> str:
        result = self.result
        rows = [
            ("connection", h.esc(result.alias)),
            ("mode", "write" if result.write else "read-only"),
            ("rows", f"{len(result):,}" + (" (truncated: more exist)" if result.truncated else "")),
            ("row limit", f"{result.row_limit:,}"),
            ("elapsed", f"{result.elapsed * 1000:.1f} ms"),
            ("graph", h.esc(result.subgraph.summary())),
            ("query", f"<pre>{h.esc(result.query)}</pre>"),
        ]
        if result.work_bound:
            rows.append(("work bounded by", h.esc(result.work_bound)))
        if result.budget is not None:
            used = f"; the process grew by {size(result.memory_used)} meanwhile" if result.memory_used is not None else ""
            rows.append(("budget", h.esc(f"{result.budget.describe()} (time / memory){used}")))
        elif result.write:
            rows.append(("budget", "none: writes are not stopped midway"))
        if result.rewrite:
            rows.append(("rewritten", h.esc(result.rewrite)))
        if result.executed != result.query:
            rows.append(("executed", f"<pre>{h.esc(result.executed)}</pre>"))
        if result.params_source:
            rows.append(("-P", f"<code>{h.esc(result.params_source)}</code>"))
        if result.params:
            rows.append(("parameters", f"<pre>{h.esc(json.dumps(result.params, default=str, ensure_ascii=False))}</pre>"))
        return h.key_values(rows)

    def static_html(self) -> str:
        result = self.result
        parts = [f"<div><b>{h.esc(result.summary())}</b></div>", h.banner(self.static_notes())]
        if result.subgraph:
            parts.append(h.svg_image(self.drawing.svg(), alt=f"graph: {result.subgraph.summary()}"))
        parts.append(self.table_html())
        return "".join(parts)

    def table_html(self) -> str:
        """The first display_limit rows; only those are formatted (the full frame is ``result.df``)."""
        limit = self.options.display_limit
        return h.table(self.head, limit, total=len(self.result))

    def text(self) -> str:
        result = self.result
        lines = [result.summary(), *self.notes()]
        if result.columns:
            shown = self.head.head(min(self.options.display_limit, 20)).map(h.shorten)
            lines.append(shown.to_string(index=False, max_colwidth=60))
            if len(result) > len(shown):
                lines.append(f"… {len(result) - len(shown):,} more rows (see .df)")
        return "\n".join(lines)
