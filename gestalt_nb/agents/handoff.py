"""Handing the open graph to agents: the adapter's toolkits, bound to a connection, and what they allow.

The toolkits are the adapter's own classes, subclassed only so that every tool they make reports
a closed connection in plain words (instead of the adapter's generic failure sentence), and so that
the query tool runs each read within a time and memory budget (the adapter's own caps bound only
its output). A read that spends its budget is stopped and answers with an error the guarded agent
counts as a refusal.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.tools import ToolException
from langchain_gestaltdb import GestaltDBClaimToolkit, GestaltDBQueryTool, GestaltDBToolkit
from pydantic import Field, PrivateAttr

from ..cypher import untyped
from ..cypher.budget import BudgetExceeded, run_within
from ..cypher.prepare import prepare, ranges_in
from ..cypher.query import check_ranges, tool_budget
from ..errors import GestaltError

CAPS = ("max_rows", "max_chars", "max_evidence", "max_claims", "max_depth", "max_nodes", "max_edges")


CLAIM_WRITES = ("gestaltdb_claim_assert", "gestaltdb_claim_correct", "gestaltdb_claim_retract")


class FeedCallback(BaseCallbackHandler):
    """Publishes one change-feed event after a write-enabled tool call that wrote and succeeded.

    A query call counts as a write when its Cypher has write clauses and the tool returned records;
    a claim-write call when it returned its claim. Refused or failed calls publish nothing.
    """

    def __init__(self, publish: Callable[..., Any], tool_name: str) -> None:
        self.publish, self.tool_name, self.pending = publish, tool_name, {}

    def on_tool_start(self, serialized: Any, input_str: str, *, run_id: Any, inputs: Any = None, **kwargs: Any) -> None:
        self.pending[run_id] = inputs if isinstance(inputs, dict) else {}

    def on_tool_error(self, error: BaseException, *, run_id: Any, **kwargs: Any) -> None:
        self.pending.pop(run_id, None)

    def on_tool_end(self, output: Any, *, run_id: Any, **kwargs: Any) -> None:
        inputs = self.pending.pop(run_id, {})
        content = getattr(output, "content", output)
        try:
            answer = json.loads(content) if isinstance(content, str) else None
        except ValueError:
            return  # an error message, not the tool's JSON answer
        if not isinstance(answer, dict):
            return
        if self.tool_name in CLAIM_WRITES:
            claim = answer.get("logical_id") or answer.get("claim_id")
            self.publish("claim", [claim] if claim else None, exact=bool(claim))
        elif "records" in answer and _writes(inputs.get("query")):
            self.publish("agent", None, exact=False)


def _writes(query: Any) -> bool:
    try:
        return isinstance(query, str) and bool(prepare(query, 1).writes)
    except GestaltError:
        return False


class _ClearErrors:
    _on_error: Callable[[Exception], str] | None = PrivateAttr(default=None)
    _publish: Callable[..., Any] | None = PrivateAttr(default=None)

    def get_tools(self):  # type: ignore[override]  # the toolkit's own get_tools, typed by the adapter as returning its tool list
        tools = super().get_tools()  # type: ignore[misc]  # a mixin: the toolkit class it is mixed into has get_tools
        for tool in tools:
            if self._on_error is not None:
                tool.handle_tool_error = self._on_error
            if self._publish is not None and (getattr(tool, "allow_writes", False) or tool.name in CLAIM_WRITES):
                tool.callbacks = [*(tool.callbacks or []), FeedCallback(self._publish, tool.name)]
        return tools


class BudgetedQueryTool(GestaltDBQueryTool):
    """The adapter's query tool, each read run within a time and memory budget.

    Its graph (from :class:`Toolkit`) is :func:`gestalt_nb.cypher.untyped.rewriting`: reads with
    untyped relationship patterns run rewritten to every type, in one snapshot, still through the
    adapter's ``query_read_only`` check.

    ``timeout`` (seconds) and ``memory_limit`` (bytes or "512MiB") default to
    ``settings.tool_timeout`` / ``settings.tool_memory_limit``, read at each call. Writes (only
    with ``allow_writes=True``) are not budgeted: stopping one midway is unsafe.
    """

    timeout: float | None = Field(default=None, exclude=True)
    memory_limit: int | str | None = Field(default=None, exclude=True)

    def _run(self, query: str, params: dict[str, Any] | None = None, run_manager: Any = None) -> str:
        if self.allow_writes:
            return super()._run(query, params, run_manager)
        budget = tool_budget(self.timeout, self.memory_limit)
        try:
            check_ranges(ranges_in(query), dict(params or {}), budget)
            answer, _ = run_within(lambda: GestaltDBQueryTool._run(self, query, params, run_manager), budget)
        except BudgetExceeded as exc:
            raise ToolException(str(exc)) from None
        return answer


class Toolkit(_ClearErrors, GestaltDBToolkit):
    """``GestaltDBToolkit`` (schema + query tools), read-only unless ``allow_writes=True``.

    Its query tool is a :class:`BudgetedQueryTool`: ``timeout`` / ``memory_limit`` set its budget
    (default: ``settings.tool_timeout`` / ``tool_memory_limit``).
    """

    timeout: float | None = Field(default=None, exclude=True)
    memory_limit: int | str | None = Field(default=None, exclude=True)

    def get_tools(self):  # type: ignore[override]  # the toolkit's own get_tools, typed by the adapter as returning its tool list
        tools = []
        for tool in super().get_tools():
            if type(tool) is GestaltDBQueryTool:
                original, handler = tool, tool.handle_tool_error
                tool = BudgetedQueryTool(
                    graph=untyped.rewriting(tool.graph), allow_writes=tool.allow_writes, allowed_procedures=tool.allowed_procedures,
                    max_rows=tool.max_rows, max_chars=tool.max_chars, timeout=self.timeout, memory_limit=self.memory_limit,
                )
                tool.handle_tool_error = handler
                tool.callbacks = original.callbacks  # the change-feed callback for a write-enabled tool
            tools.append(tool)
        return tools


class ClaimToolkit(_ClearErrors, GestaltDBClaimToolkit):
    """``GestaltDBClaimToolkit`` (status, search, explanation; writes only with ``allow_writes=True``)."""


def bind(toolkit: Any, on_error: Callable[[Exception], str], publish: Callable[..., Any] | None = None) -> Any:
    """Give a toolkit's tools our error sentences and, when ``publish`` is given, change-feed events for their writes."""
    toolkit._on_error = on_error
    toolkit._publish = publish
    return toolkit


def describe(tools: list[Any]):
    """A table of tools: name, whether it writes, its arguments and the caps the application chose."""
    import pandas as pd

    rows = []
    for tool in tools:
        writes = bool(getattr(tool, "allow_writes", False)) or tool.name.endswith(("_assert", "_correct", "_retract"))
        required = set(tool.args_schema.model_json_schema().get("required") or [])
        arguments = ", ".join(
            f"{name}{'' if name in required else '?'}: {spec.get('type', 'any')}" for name, spec in tool.args.items()
        )
        caps = ", ".join(f"{cap}={getattr(tool, cap)}" for cap in CAPS if hasattr(tool, cap))
        if isinstance(tool, BudgetedQueryTool):
            caps += f", budget={tool_budget(tool.timeout, tool.memory_limit).describe()}"
        rows.append({"tool": tool.name, "writes": writes, "arguments": arguments, "caps": caps, "description": tool.description})
    return pd.DataFrame(rows, columns=["tool", "writes", "arguments", "caps", "description"])
