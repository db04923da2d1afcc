"""Handing the open graph to agents: the adapter's toolkits, bound to a connection, and what they allow.

The toolkits are the adapter's own classes, subclassed only so that every tool they make reports
a closed connection in plain words (instead of the adapter's generic failure sentence).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import json

from langchain_core.callbacks import BaseCallbackHandler
from langchain_gestaltdb import GestaltDBClaimToolkit, GestaltDBToolkit
from pydantic import PrivateAttr

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
    from .errors import GestaltError
    from .query import prepare

    try:
        return isinstance(query, str) and bool(prepare(query, 1).writes)
    except GestaltError:
        return False


class _ClearErrors:
    _on_error: Callable[[Exception], str] | None = PrivateAttr(default=None)
    _publish: Callable[..., Any] | None = PrivateAttr(default=None)

    def get_tools(self):  # type: ignore[override]
        tools = super().get_tools()  # type: ignore[misc]
        for tool in tools:
            if self._on_error is not None:
                tool.handle_tool_error = self._on_error
            if self._publish is not None and (getattr(tool, "allow_writes", False) or tool.name in CLAIM_WRITES):
                tool.callbacks = [*(tool.callbacks or []), FeedCallback(self._publish, tool.name)]
        return tools


class Toolkit(_ClearErrors, GestaltDBToolkit):
    """``GestaltDBToolkit`` (schema + query tools), read-only unless ``allow_writes=True``."""


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
        rows.append({"tool": tool.name, "writes": writes, "arguments": arguments, "caps": caps, "description": tool.description})
    return pd.DataFrame(rows, columns=["tool", "writes", "arguments", "caps", "description"])
