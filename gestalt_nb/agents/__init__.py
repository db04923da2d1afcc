"""Agents: the adapter's toolkits bound to a connection (``handoff``), a guarded LangGraph agent and a
scripted chat model for offline runs (``agent``; needs the ``agents`` extra), an agent run's steps as
one drawing (``trace``) and questions in words → checked query plans (``planner``).

May import: ``errors``, ``options``, ``display``, ``graph/``, ``cypher/``, ``claims/``, ``memory/``.
``gestalt_nb.agents.build_graph_agent`` and friends load LangGraph on first use, so the toolkits
work without it.
"""

from __future__ import annotations

from typing import Any

_LAZY = {
    "AgentState": "agent", "ScriptedChatModel": "agent", "build_graph_agent": "agent", "tool_call": "agent",
    "is_refusal": "trace", "refusal_reason": "trace", "REFUSED": "trace",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f".{_LAZY[name]}", __name__), name)
