"""Handing the open graph to agents: the adapter's toolkits, bound to a connection, and what they allow.

The toolkits are the adapter's own classes, subclassed only so that every tool they make reports
a closed connection in plain words (instead of the adapter's generic failure sentence).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_gestaltdb import GestaltDBClaimToolkit, GestaltDBToolkit
from pydantic import PrivateAttr

CAPS = ("max_rows", "max_chars", "max_evidence", "max_claims", "max_depth", "max_nodes", "max_edges")


class _ClearErrors:
    _on_error: Callable[[Exception], str] | None = PrivateAttr(default=None)

    def get_tools(self):  # type: ignore[override]
        tools = super().get_tools()  # type: ignore[misc]
        for tool in tools:
            if self._on_error is not None:
                tool.handle_tool_error = self._on_error
        return tools


class Toolkit(_ClearErrors, GestaltDBToolkit):
    """``GestaltDBToolkit`` (schema + query tools), read-only unless ``allow_writes=True``."""


class ClaimToolkit(_ClearErrors, GestaltDBClaimToolkit):
    """``GestaltDBClaimToolkit`` (status, search, explanation; writes only with ``allow_writes=True``)."""


def bind(toolkit: Any, on_error: Callable[[Exception], str]) -> Any:
    toolkit._on_error = on_error
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
