"""What an agent did, step by step, in the same visual language as a person's queries.

``show_trace`` reads a plain list of LangChain messages (or a LangGraph state holding them):
each model turn's tool calls, and each tool's answer parsed by tool name into the result objects
the notebook already draws — query records, the schema, claim status, search and explanation.
Everything the agent touched is merged into one ``Subgraph``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from ..claims.api import ClaimExplanation, ClaimStatus, ClaimTable
from ..display import Displayable
from ..graph import values
from ..graph.schema import SchemaResult
from ..graph.subgraph import Subgraph, from_records

REFUSED = "Refused: "


OVER_CAP = "the answer was over the tool's output cap and nothing fit; ask for fewer rows or columns"


def _payload(message: ToolMessage) -> Any:
    try:
        return json.loads(message.content.removeprefix(REFUSED)) if isinstance(message.content, str) else None
    except ValueError:
        return None


def _over_cap(payload: Any) -> bool:
    """A capped answer that kept nothing: truncated, and every returned count is zero."""
    if not isinstance(payload, dict) or not payload.get("truncated"):
        return False
    counts = [value for key, value in payload.items() if key.startswith("returned_")]
    return bool(counts) and not any(counts)


def is_refusal(message: BaseMessage) -> bool:
    """True for a tool answer that refused or failed: an error status, a JSON ``error`` envelope,
    or an answer cut by its output cap down to nothing."""
    if not isinstance(message, ToolMessage):
        return False
    if message.status == "error" or (isinstance(message.content, str) and message.content.startswith(REFUSED)):
        return True
    payload = _payload(message)
    return isinstance(payload, dict) and ("error" in payload or _over_cap(payload))


def refusal_reason(message: ToolMessage) -> str:
    """Why a tool answer was a refusal, without our own prefix or the JSON envelope."""
    payload = _payload(message)
    if isinstance(payload, dict) and "error" in payload:
        return str(payload["error"])
    if _over_cap(payload):
        return OVER_CAP
    text = message.content if isinstance(message.content, str) else json.dumps(message.content)
    return text.removeprefix(REFUSED)


QUERY, SCHEMA = "gestaltdb_query", "gestaltdb_schema"
CLAIM_STATUS, CLAIM_SEARCH, CLAIM_EXPLAIN = "gestaltdb_claim_status", "gestaltdb_claim_search", "gestaltdb_claim_explanation"
CLAIM_WRITES = ("gestaltdb_claim_assert", "gestaltdb_claim_correct", "gestaltdb_claim_retract")


@dataclass(eq=False)
class Records:
    """A query tool's answer: its records (adapter JSON) and what they hold."""

    records: list[dict[str, Any]]
    truncated: bool

    @cached_property
    def subgraph(self) -> Subgraph:
        return from_records(self.records)

    @cached_property
    def df(self):
        return values.frame(self.records, list(dict.fromkeys(key for record in self.records for key in record)))


@dataclass(eq=False)
class Step:
    number: int
    kind: str  # "human" | "model" | "call" | "answer"
    text: str = ""
    tool: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    call_id: str | None = None
    refused: bool = False
    reason: str = ""
    truncated: bool = False
    result: Any = None


def messages_of(value: Any) -> list[BaseMessage]:
    if isinstance(value, dict) and "messages" in value:
        value = value["messages"]
    messages = list(value)
    if not all(isinstance(message, BaseMessage) for message in messages):
        raise TypeError("show_trace takes LangChain messages, or a state dict with a 'messages' list")
    return messages


def parse_answer(tool: str | None, payload: Any) -> tuple[Any, bool]:
    """The result object for a tool's JSON answer, and whether the answer says it was truncated."""
    if not isinstance(payload, dict):
        return None, False
    truncated = bool(payload.get("truncated"))
    if tool == QUERY and "records" in payload:
        return Records(payload["records"], truncated), truncated
    if tool == SCHEMA and "node_props" in payload:
        return SchemaResult(payload, "agent"), bool(payload.get("metadata", {}).get("truncated"))
    if tool == CLAIM_STATUS and "status" in payload:
        return ClaimStatus(payload), truncated
    if tool == CLAIM_SEARCH and "claims" in payload:
        return ClaimTable("search", payload["claims"], "agent search", truncated), truncated
    if tool == CLAIM_EXPLAIN and payload.get("found"):
        return ClaimExplanation(payload), truncated
    if tool in CLAIM_WRITES and payload.get("written"):
        return ClaimTable("write", [payload], tool.removeprefix("gestaltdb_claim_")), truncated
    return None, truncated


@dataclass(eq=False)
class Trace(Displayable):
    steps: list[Step]
    messages: list[BaseMessage]

    @cached_property
    def subgraph(self) -> Subgraph:
        """Every node and relationship in the run's query answers, de-duplicated.

        Schema and claim answers are drawn in their own steps; they are not graph data.
        """
        merged = Subgraph(title="agent trace")
        for step in self.steps:
            if isinstance(step.result, Records):
                merged.merge(step.result.subgraph)
        return merged

    @property
    def refusals(self) -> list[Step]:
        return [step for step in self.steps if step.refused]

    def __repr__(self) -> str:
        calls = sum(step.kind == "call" for step in self.steps)
        return f"<Trace {calls} tool calls, {len(self.refusals)} refused; {self.subgraph.summary()}>"


def trace(messages_or_state: Any) -> Trace:
    messages = messages_of(messages_or_state)
    steps: list[Step] = []
    calls: dict[str, Step] = {}
    for message in messages:
        number = len(steps) + 1
        if isinstance(message, HumanMessage):
            steps.append(Step(number, "human", text=str(message.content)))
        elif isinstance(message, AIMessage):
            if message.content:
                steps.append(Step(number, "model", text=str(message.content)))
            for call in message.tool_calls:
                step = Step(len(steps) + 1, "call", tool=call["name"], arguments=dict(call.get("args") or {}), call_id=call.get("id"))
                calls[step.call_id or ""] = step
                steps.append(step)
        elif isinstance(message, ToolMessage):
            call = calls.get(message.tool_call_id)
            tool = message.name or (call.tool if call else None)
            step = Step(number, "answer", tool=tool, call_id=message.tool_call_id, text=str(message.content))
            if is_refusal(message):
                step.refused, step.reason = True, refusal_reason(message)
            else:
                try:
                    payload = json.loads(message.content) if isinstance(message.content, str) else message.content
                except ValueError:
                    payload = None
                step.result, step.truncated = parse_answer(tool, payload)
            steps.append(step)
    return Trace(steps, messages)
