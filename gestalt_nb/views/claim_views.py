"""Claim views: a status badge with evidence and time travel, claim tables, explanation graphs."""

from __future__ import annotations

import json
import re
from functools import cached_property
from typing import Any

from ..claims.api import ClaimExplanation, ClaimStatus, ClaimTable
from ..errors import GestaltError
from ..graph.subgraph import Subgraph
from ..shorten import shorten
from . import html as h
from .tabs import Page, TabbedView, View

BADGE = {"supported": "#1a7f37", "refuted": "#cf222e", "both": "#bf8700", "unknown": "#6e7781"}


def badge(result: ClaimStatus) -> str:
    colour = BADGE.get(result.status, "#6e7781")
    return (
        f'<div style="margin:4px 0"><span class="gestalt-status" style="background:{colour};color:white;'
        f'padding:2px 10px;border-radius:10px;font-weight:bold">{h.esc(result.status.upper())}</span> '
        f"<b>{h.esc(result.statement())}</b><br><small>{h.esc(result.horizon())}</small></div>"
    )


#: What an evidence row shows; the statement itself is in the badge (the frames keep every column).
EVIDENCE = ["agent", "source", "confidence", "valid", "system time", "world", "provenance", "claim_id", "version_id"]
_MIDNIGHT = re.compile(r"T00:00:00(?:\.0+)?(?:Z|\+00:00)")
_FRACTION = re.compile(r"(T\d\d:\d\d):\d\d(?:\.\d+)?")


def _short_time(text: Any) -> Any:
    """``2024-01-01T00:00:00Z`` → ``2024-01-01``; other times to the minute (the frames keep them whole)."""
    return _FRACTION.sub(r"\1", _MIDNIGHT.sub("", text)) if isinstance(text, str) else text


def _short_id(text: Any, keep: int = 14) -> Any:
    return shorten(text, keep + 1) if isinstance(text, str) else text


def evidence_frame(frame):
    """The evidence columns made to read at a 900 px notebook width: short times and ids, bounded provenance."""
    shown = frame[EVIDENCE].copy()
    for column in ("valid", "system time"):
        shown[column] = shown[column].map(_short_time)
    for column in ("claim_id", "version_id"):
        shown[column] = shown[column].map(_short_id)
    shown["provenance"] = shown["provenance"].map(lambda text: h.shorten(text, 60))
    for column in ("agent", "source", "confidence", "world"):
        shown[column] = shown[column].map(lambda value: "" if value is None or value != value else value)
    return shown.rename(columns={"claim_id": "claim", "version_id": "version"})


def evidence_html(result: ClaimStatus, limit: int) -> str:
    notes = [f"Evidence was cut at {len(result.evidence)} versions (the tool's cap)."] if result.truncated else []
    parts = [h.banner(notes)]
    for title, frame in (("Supporting", result.supporting), ("Refuting", result.refuting)):
        parts.append(f"<h4>{title} ({len(frame)})</h4>")
        if len(frame):
            table = h.table(evidence_frame(frame), limit)
            parts.append(f'<div style="font-size:12px;max-width:100%;overflow-x:auto">{table}</div>')
        else:
            parts.append("<p><i>none</i></p>")
    parts.append("<p><small>Times are shortened and ids cut here; <code>.supporting</code> / <code>.refuting</code> hold them whole.</small></p>")
    return "".join(parts)


class ClaimStatusView(View):
    """Badge and evidence; in a widget frontend, valid-time and knowledge-time controls recompute it."""

    def __init__(self, result: ClaimStatus, **overrides: Any) -> None:
        self.result = result
        super().__init__(**overrides)

    def body(self) -> str:
        return badge(self.result) + evidence_html(self.result, self.options.display_limit)

    @cached_property
    def widget(self):
        import ipywidgets as w

        self.content = w.HTML(self.body())
        self.message = w.HTML()
        self.valid_time = w.Text(value=self.result.data["valid_time"], description="Valid time", continuous_update=False)
        latest = self._latest()
        through = self.result.data.get("through_commit")
        self.through_commit = w.IntSlider(
            value=latest if through is None else through, min=0, max=max(latest, 1), description="Knowledge",
            continuous_update=False,
        )
        self.valid_time.observe(lambda _: self.recompute(), names="value")
        self.through_commit.observe(lambda _: self.recompute(), names="value")
        note = w.HTML("<small>Knowledge: what the database knew through commit N (system time).</small>")
        return w.VBox([w.HBox([self.valid_time, self.through_commit]), note, self.message, self.content])

    def _latest(self) -> int:
        return self.result.api.latest_commit() if self.result.api is not None else 0

    def recompute(self) -> None:
        """Ask again for the chosen valid time and knowledge horizon (the latest commit means now)."""
        through = self.through_commit.value
        self.through_commit.max = max(self._latest(), 1)  # new commits since the view was drawn
        try:
            self.result = self.result.recompute(
                valid_time=self.valid_time.value, through_commit=None if through >= self._latest() else through
            )
            self.message.value = ""
        except GestaltError as exc:
            self.message.value = f"<span style='color:#b00'>{h.esc(exc)}</span>"
            return
        self.content.value = self.body()

    def static_html(self) -> str:
        return self.body()

    def text(self) -> str:
        text = [repr(self.result)]
        for title, frame in (("supporting", self.result.supporting), ("refuting", self.result.refuting)):
            text += [f"{title}:"] + [f"  {row.agent} ({row.source}) confidence={row.confidence} valid={row.valid}" for row in frame.itertuples()]
        return "\n".join(text)


SORTABLE = ("system time", "valid", "subject", "predicate", "object", "polarity", "agent", "source", "confidence", "world")


class ClaimTableView(View):
    """Search results or a history as a table, sortable by any column in a widget frontend."""

    def __init__(self, table: ClaimTable, **overrides: Any) -> None:
        self.table = table
        super().__init__(**overrides)

    def body(self, sort_by: str | None = None) -> str:
        frame = self.table.df
        if sort_by:
            frame = frame.sort_values(sort_by, kind="stable", na_position="last")
        notes = [f"Results were cut at {len(self.table)} claims (the tool's cap)."] if self.table.truncated else []
        title = f"<div><b>{h.esc(self.table.kind)}</b>: {h.esc(self.table.title)} — {len(self.table)} versions</div>"
        return title + h.banner(notes) + h.table(frame, self.options.display_limit)

    @cached_property
    def widget(self):
        import ipywidgets as w

        content = w.HTML(self.body())
        sort = w.Dropdown(options=[("(as returned)", "")] + [(name, name) for name in SORTABLE], description="Sort by")
        sort.observe(lambda change: setattr(content, "value", self.body(change["new"] or None)), names="value")
        self.sort, self.content = sort, content
        return w.VBox([sort, content])

    def static_html(self) -> str:
        return self.body()

    def text(self) -> str:
        lines = [repr(self.table)] + [
            f"  {row.polarity} {row.subject} {row.predicate} {row.object} by {row.agent} valid={row.valid} ({row.operation})"
            for row in self.table.df.head(20).itertuples()
        ]
        return "\n".join(lines)


class ClaimExplanationView(TabbedView):
    def __init__(self, explanation: ClaimExplanation, **overrides: Any) -> None:
        self.explanation = explanation
        super().__init__(**overrides)

    def graph(self) -> Subgraph:
        return self.explanation.subgraph

    def tabs(self) -> list[tuple[str, Page]]:
        notes = h.banner(self.drawing.subgraph.notes)
        return [
            ("Graph", self.drawing.widget),
            ("Nodes", lambda: notes + h.table(self.explanation.df, self.options.display_limit)),
            ("JSON", lambda: h.pre(json.dumps(self.explanation.data, indent=2, ensure_ascii=False), self.options.json_max_chars)),
        ]

    def static_html(self) -> str:
        return (
            h.banner(self.drawing.static.notes)
            + h.svg_image(self.drawing.svg(), alt=repr(self.explanation))
            + h.table(self.explanation.df, self.options.display_limit)
        )

    def text(self) -> str:
        lines = [repr(self.explanation), *self.drawing.subgraph.notes]
        lines += [f"  [{row.kind}] {row.what} {row.rule}".rstrip() for row in self.explanation.df.itertuples()]
        return "\n".join(lines)
