"""The trace view: each step of an agent run in order, then everything it touched as one graph."""

from __future__ import annotations

import json
from typing import Any

from ..agents.trace import Records, Step, Trace
from ..graph.subgraph import Subgraph
from . import html as h
from .tabs import Page, TabbedView

TAG = "display:inline-block;padding:0 6px;border-radius:8px;color:white;font-size:smaller;background:"


def _tag(text: str, colour: str) -> str:
    return f'<span style="{TAG}{colour}">{h.esc(text)}</span>'


class TraceView(TabbedView):
    def __init__(self, trace: Trace, **overrides: Any) -> None:
        self.trace = trace
        super().__init__(**overrides)

    def graph(self) -> Subgraph:
        return self.trace.subgraph

    def step_html(self, step: Step) -> str:
        head = f"<b>{step.number}.</b> "
        if step.kind == "human":
            return f"<div>{head}{_tag('person', '#57606a')} {h.esc(h.shorten(step.text, 500))}</div>"
        if step.kind == "model":
            return f"<div>{head}{_tag('model', '#0969da')} {h.esc(h.shorten(step.text, 1000))}</div>"
        if step.kind == "call":
            arguments = dict(step.arguments)
            query = arguments.pop("query", None)
            body = f"<pre>{h.esc(query)}</pre>" if query else ""
            if arguments:
                body += f"<code>{h.esc(json.dumps(arguments, ensure_ascii=False, default=str))}</code>"
            return f"<div>{head}{_tag('call', '#0969da')} <code>{h.esc(step.tool)}</code>{body}</div>"
        return f"<div style='margin-left:1.5em'>{head}{self.answer_html(step)}</div>"

    def answer_html(self, step: Step) -> str:
        if step.refused:
            return f"{_tag('refused', '#cf222e')} <code>{h.esc(step.tool)}</code>: {h.esc(h.shorten(step.reason, 1000))}"
        marks = _tag("truncated", "#bf8700") + " " if step.truncated else ""
        head = f"{_tag('answer', '#1a7f37')} {marks}<code>{h.esc(step.tool)}</code> "
        result = step.result
        limit = min(self.options.display_limit, 20)
        if isinstance(result, Records):
            summary = f"{len(result.records)} records; {result.subgraph.summary()}"
            return head + h.esc(summary) + h.table(result.df, limit)
        if result is not None and hasattr(result, "show"):
            return head + result.show(**self._overrides()).static_html()  # no widget: this is only text on the page
        return head + h.pre(step.text, 2000)

    def _overrides(self) -> dict[str, Any]:
        return {"display_limit": min(self.options.display_limit, 20), "renderer": self.options.renderer, "graph_height": 320}

    def steps_html(self) -> str:
        notes = [f"{len(self.trace.refusals)} tool calls were refused."] if self.trace.refusals else []
        return h.banner(notes) + "".join(self.step_html(step) for step in self.trace.steps)

    def tabs(self) -> list[tuple[str, Page]]:
        def graph() -> Any:
            return self.drawing.widget() if self.trace.subgraph else "<p>No tool answer held nodes or relationships.</p>"

        def messages() -> str:
            dumped = [message.model_dump(mode="json", exclude={"response_metadata", "usage_metadata"}) for message in self.trace.messages]
            return h.json_block(dumped, self.options.json_max_chars)

        return [("Steps", self.steps_html), ("Graph", graph), ("Messages", messages)]

    def static_html(self) -> str:
        picture = h.svg_image(self.drawing.svg(), alt=repr(self.trace)) if self.trace.subgraph else ""
        return self.steps_html() + picture

    def text(self) -> str:
        lines = [repr(self.trace)]
        for step in self.trace.steps:
            if step.kind == "call":
                lines.append(f"{step.number}. call {step.tool} {json.dumps(step.arguments, ensure_ascii=False, default=str)}")
            elif step.kind == "answer":
                state = f"REFUSED: {step.reason}" if step.refused else ("truncated " if step.truncated else "") + "ok"
                lines.append(f"{step.number}.   {step.tool} → {state}")
            else:
                lines.append(f"{step.number}. {step.kind}: {h.shorten(step.text, 200)}")
        return "\n".join(lines)
