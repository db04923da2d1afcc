"""The view of a ``Plan``: what was planned (entities, relations, hops, reasoning, fallback) above its result."""

from __future__ import annotations

from typing import Any

from ..agents.planner import Plan
from ..graph.subgraph import Subgraph
from . import html as h
from .tabs import Page, TabbedView


class PlanView(TabbedView):
    def __init__(self, plan: Plan, **overrides: Any) -> None:
        self.plan = plan
        self.overrides = overrides
        super().__init__(**overrides)

    def graph(self) -> Subgraph:
        return self.plan.subgraph

    @property
    def canvas(self):
        """The canvas of the plan's result (the drawing shown under the plan)."""
        return self.result_view.canvas if self.result_view is not None else self.drawing.canvas

    @property
    def result_view(self):
        if self.plan.result is None:
            return None
        view = self.__dict__.get("_result_view")
        if view is None:
            view = self.__dict__["_result_view"] = self.plan.result.show(**self.overrides)
        return view

    def plan_html(self) -> str:
        plan = self.plan
        banner = h.banner([f"Broad search: {plan.fallback_reason}."]) if plan.is_broad_search else ""
        if plan.unresolved_entities:
            banner += h.banner([f"No node is named {', '.join(plan.unresolved_entities)}."], kind="info")
        rows = [(key, f"<pre style='margin:0;white-space:pre-wrap'>{h.esc(value)}</pre>" if key == "cypher" else h.esc(value)) for key, value in plan.rows()]
        return banner + h.key_values(rows)

    def page(self) -> Any:
        import ipywidgets as widgets

        parts = [widgets.HTML(self.plan_html())]
        if self.result_view is not None:
            parts.append(self.result_view.widget)
        else:
            parts.append(widgets.HTML("<p>Not run yet: call plan.execute().</p>"))
        return widgets.VBox(parts)

    def tabs(self) -> list[tuple[str, Page]]:
        return [("Plan", self.page)]

    def static_html(self) -> str:
        rest = self.result_view.static_html() if self.result_view is not None else ""
        return self.plan_html() + rest

    def text(self) -> str:
        lines = [repr(self.plan), *(f"  {key}: {value}" for key, value in self.plan.rows())]
        if self.result_view is not None:
            lines.append(self.result_view.text())
        return "\n".join(lines)

    def close(self) -> None:
        if self.__dict__.get("_result_view") is not None:
            self.__dict__["_result_view"].close()
        super().close()
