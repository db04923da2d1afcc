"""A small guarded LangGraph agent over the adapter's tools, and a scripted model for offline runs.

``build_graph_agent`` is model → tools → model … in a ``StateGraph``. A refused tool call (the
read-only check rejects a write, a query fails, an answer is over its cap) goes back to the model
as a ``ToolMessage`` that says why, so it can retry; after ``max_refusals`` refusals in one run
the graph stops with a message saying so instead of looping. Needs the ``agents`` extra.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import BaseTool
from pydantic import Field
from typing_extensions import TypedDict

from .trace import REFUSED, is_refusal, refusal_reason

try:
    from langgraph.graph import END, START, StateGraph
    from langgraph.graph.message import add_messages
    from langgraph.prebuilt import ToolNode
except ImportError as exc:  # exercised by tests/test_first_run.py with LangGraph hidden
    from ..errors import missing

    raise missing("LangGraph", "agents", "gestalt_nb.agents") from exc

class AgentState(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    refusals: int


def _bound(model: Any, tools: Sequence[BaseTool]) -> Any:
    if isinstance(model, BaseChatModel):
        return model.bind_tools(list(tools))
    if hasattr(model, "invoke") or callable(model):
        return model
    raise TypeError("model must be a chat model, a runnable, or a callable returning an AIMessage")


def _checked(reply: Any) -> dict[str, Any]:
    if not isinstance(reply, AIMessage):
        raise TypeError(f"the model returned {type(reply).__name__}, not an AIMessage")
    return {"messages": [reply]}


def build_graph_agent(model: Any, tools: Sequence[BaseTool], *, max_refusals: int = 3, context_schema: Any = None, store: Any = None):
    """Compile the guarded agent graph. Call ``.invoke({"messages": [...]})`` or ``.ainvoke``.

    ``model`` is a chat model (bound to ``tools`` here), an already-bound runnable, or a plain
    callable taking the message list and returning an ``AIMessage``. ``store`` (e.g. a
    ``GestaltStore``) is LangGraph's long-term store, injected into tools that ask for it.
    """
    if max_refusals < 1:
        raise ValueError("max_refusals must be at least 1")
    bound = _bound(model, tools)

    def model_node(state: AgentState) -> dict[str, Any]:
        return _checked(bound.invoke(state["messages"]) if hasattr(bound, "invoke") else bound(state["messages"]))

    async def amodel_node(state: AgentState) -> dict[str, Any]:
        if hasattr(bound, "ainvoke"):
            return _checked(await bound.ainvoke(state["messages"]))
        return model_node(state)

    def guard(state: AgentState) -> dict[str, Any]:
        """Count this round's refusals; say why in the ToolMessage; stop once there are too many."""
        recent: list[ToolMessage] = []
        for message in reversed(state["messages"]):
            if not isinstance(message, ToolMessage):
                break
            recent.append(message)
        updates: list[BaseMessage] = []
        refusals = state.get("refusals", 0)
        for message in reversed(recent):
            if not is_refusal(message):
                continue
            refusals += 1
            if isinstance(message.content, str) and not message.content.startswith(REFUSED):
                updates.append(message.model_copy(update={"content": f"{REFUSED}{refusal_reason(message)} — change the call and try again."}))
        if refusals >= max_refusals:
            updates.append(AIMessage(content=f"Stopped: {refusals} tool calls were refused in this run (max_refusals={max_refusals}). Last reason: {refusal_reason(recent[0]) if recent else 'n/a'}"))
        return {"messages": updates, "refusals": refusals}

    def after_model(state: AgentState) -> str:
        last = state["messages"][-1]
        return "tools" if isinstance(last, AIMessage) and last.tool_calls else END

    def after_guard(state: AgentState) -> str:
        return END if state.get("refusals", 0) >= max_refusals else "model"

    graph = StateGraph(AgentState, context_schema=context_schema) if context_schema is not None else StateGraph(AgentState)
    graph.add_node("model", RunnableLambda(model_node, afunc=amodel_node))
    graph.add_node("tools", ToolNode(list(tools), handle_tool_errors=True))
    graph.add_node("guard", guard)
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", after_model, ["tools", END])
    graph.add_edge("tools", "guard")
    graph.add_conditional_edges("guard", after_guard, ["model", END])
    return graph.compile(store=store)


class ScriptedChatModel(BaseChatModel):
    """A real chat model that answers with prepared messages, in order: no network, no key.

    Each response is an ``AIMessage`` (with ``tool_calls`` to call tools) or a callable taking the
    conversation so far and returning one, for scripts that react to a refusal. After the script
    ends it answers "(script finished)".
    """

    responses: list[Any] = Field(default_factory=list)
    position: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        if self.position < len(self.responses):
            response = self.responses[self.position]
            message = response(messages) if callable(response) else response
        else:
            message = AIMessage(content="(script finished)")
        self.position += 1
        return ChatResult(generations=[ChatGeneration(message=message)])


def tool_call(name: str, call_id: str, **args: Any) -> AIMessage:
    """An AIMessage that calls one tool — handy for scripts."""
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}])
