"""Views of GraphRAG results, built on the existing ``GraphView`` (the drawing is the shared canvas, unchanged).

``AnswerView``: the answer, the path behind it and the sources beside the drawn evidence, plus the
exact context sent. ``ExtractionView``: the extracted graph (merged nodes highlighted), what was
dropped and why, and what was merged.
"""

from __future__ import annotations

from typing import Any

from ..graphrag.answering import Answer
from ..graphrag.writing import ExtractionResult
from ..shorten import shorten
from . import html as h
from .graph_view import GraphView

PASSAGE_CHARS = 400


class AnswerView(GraphView):
    def __init__(self, answer: Answer, **overrides: Any) -> None:
        self.answer = answer
        super().__init__(answer.subgraph, **overrides)

    def answer_html(self) -> str:
        a = self.answer
        banner = h.banner(a.notes, kind="info") if a.notes else ""
        rows = [("question", h.esc(a.question)), ("answer", f"<b>{h.esc(a.answer)}</b>"),
                ("names", h.esc(", ".join(a.names) or "(none)")), ("seeds", h.esc(", ".join(a.seeds) or "(none found)"))]
        if a.paths:
            rows.append(("path", "<br>".join(h.esc(" ".join(path)) for path in a.paths)))
        for number, source in enumerate(a.sources, start=1):
            rows.append((f"source [{number}]", h.esc(shorten(source["text"], PASSAGE_CHARS))))
        return banner + h.key_values(rows)

    def page(self) -> Any:
        import ipywidgets as widgets

        left = widgets.HTML(self.answer_html(), layout=widgets.Layout(width="38%", overflow="auto"))
        right = widgets.Box([self.drawing.widget()], layout=widgets.Layout(width="62%"))
        return widgets.HBox([left, right])

    def tabs(self):
        return [("Answer", self.page), ("Context", lambda: h.pre(self.answer.context, 20_000))]

    def static_html(self) -> str:
        return self.answer_html() + super().static_html()

    def text(self) -> str:
        a = self.answer
        lines = [f"Q: {a.question}", f"A: {a.answer}", f"seeds: {', '.join(a.seeds) or '(none)'}"]
        lines += [f"path: {' '.join(path)}" for path in a.paths]
        lines += [f"[{n}] {shorten(s['text'], PASSAGE_CHARS)}" for n, s in enumerate(a.sources, start=1)]
        return "\n".join([*lines, *a.notes, super().text()])


class ExtractionView(GraphView):
    def __init__(self, result: ExtractionResult, **overrides: Any) -> None:
        self.result = result
        super().__init__(result.subgraph, **overrides)

    def summary_html(self) -> str:
        r = self.result
        notes = list(r.notes)
        if r.dropped:
            notes.insert(0, f"{len(r.dropped)} parts were dropped (see the Dropped tab).")
        return h.banner(notes, kind="info") + f"<p>{h.esc(r.summary())}</p>"

    def merges_html(self) -> str:
        rows = [(m.name, h.esc(f"→ {m.into} ({m.reason})")) for m in self.result.merges]
        return h.key_values(rows) if rows else "<p>No merges.</p>"

    def page(self) -> Any:
        import ipywidgets as widgets

        return widgets.VBox([widgets.HTML(self.summary_html()), self.drawing.widget()])

    def tabs(self):
        return [("Graph", self.page), ("Dropped", lambda: h.table(self.result.dropped_df, 200)), ("Merges", self.merges_html),
                ("Entities", lambda: h.table(self.result.df, 500))]

    def static_html(self) -> str:
        return self.summary_html() + super().static_html()

    def text(self) -> str:
        r = self.result
        lines = [repr(r), *(f"dropped: {d}" for d in r.dropped[:20]), *(f"merged: {m.name!r} → {m.into!r}" for m in r.merges[:20])]
        return "\n".join([*lines, *r.notes])
