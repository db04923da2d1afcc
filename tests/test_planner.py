"""The natural-language planner with a scripted chat model: valid plans are checked, every failure falls back."""

from __future__ import annotations

import json
import time

import pytest
from IPython.core.error import UsageError
from langchain_core.messages import AIMessage

import gestalt_nb
from gestalt_nb.agents import ScriptedChatModel
from gestalt_nb.agents.planner import QueryPlan
from gestalt_nb.cypher.result import QueryResult
from gestalt_nb.graph.neighbourhood import SubgraphResult

from .conftest import run


def planned(**args):
    return AIMessage(content="", tool_calls=[{"name": "QueryPlan", "args": args, "id": "p1", "type": "tool_call"}])


QUESTION = "Who does Alice Chen work with at Acme Robotics?"


def test_valid_plan_is_checked_and_executed(demo):
    prompts = []

    def answer(messages):
        prompts.append(messages[-1].content)
        return planned(entities=["alice chen", "Nobody Known"], relations=["works_for", "MARRIED_TO"], max_hops=1,
                       min_confidence=0.0, reasoning="Alice's employer and colleagues.")

    model = ScriptedChatModel(responses=[answer])
    plan = gestalt_nb.plan(QUESTION, model)
    assert "WORKS_FOR" in prompts[0] and "MENTIONS" not in prompts[0] and QUESTION in prompts[0] and "__name_lc" not in prompts[0]
    assert not plan.is_broad_search and plan.fallback_reason is None
    assert plan.relations == ["WORKS_FOR"] and plan.dropped_relations == ["MARRIED_TO"]
    assert plan.unresolved_entities == ["Nobody Known"] and plan.reasoning.startswith("Alice")
    result = plan.execute()
    direct = demo.subgraph(["alice chen", "Nobody Known"], ["WORKS_FOR"], 0.0, 1, drop_isolated=True)
    assert isinstance(result, SubgraphResult)
    assert [n["id"] for n in result.nodes] == [n["id"] for n in direct.nodes] and result.edges == direct.edges
    assert {e["properties"]["type"] for e in result.edges} == {"WORKS_FOR"}
    assert result.unresolved_entities == ["Nobody Known"]


def slow(messages):
    time.sleep(1.5)
    return planned(entities=["Alice Chen"])


def boom(messages):
    raise RuntimeError("rate limited")


@pytest.mark.parametrize(
    "response, reason",
    [
        (planned(entities=["Alice Chen"], max_hops=9), "max_hops"),  # out of range: invalid, not clamped
        (planned(entities=["Alice Chen"], min_confidence=1.5), "min_confidence"),
        (planned(entities="Alice Chen"), "entities"),  # wrong type
        (AIMessage(content="I think you should look at Alice."), "no structured plan"),
        (AIMessage(content='{"entities": ["Alice Chen"], "max_hops": 7}'), "invalid"),
        (boom, "RuntimeError: rate limited"),
        (slow, "did not answer within 0.3 s"),
    ],
)
def test_each_failure_falls_back_to_a_broad_search(demo, response, reason):
    plan = gestalt_nb.plan(QUESTION, ScriptedChatModel(responses=[response]), timeout=0.3)
    assert plan.is_broad_search and reason in plan.fallback_reason
    assert plan.max_hops == 1 and plan.relations is None  # the broad search, never the clamped plan
    assert plan.entities == ["Alice Chen", "Acme Robotics"]
    result = plan.execute()
    assert set(result.seed_node_ids) == {"alice", "acme"} and not result.truncated


def test_plan_as_json_text_is_accepted(demo):
    content = json.dumps({"entities": ["Bob Okafor"], "max_hops": 0, "reasoning": "just Bob"})
    plan = gestalt_nb.plan("Tell me about Bob", ScriptedChatModel(responses=[AIMessage(content=content)]))
    assert not plan.is_broad_search and plan.entities == ["Bob Okafor"] and plan.max_hops == 0
    assert [n["id"] for n in plan.execute().nodes] == ["bob"]


def test_no_named_word_means_a_bounded_whole_graph_sample(demo):
    plan = gestalt_nb.plan("What is going on here?", ScriptedChatModel(responses=[boom]))
    assert plan.is_broad_search and plan.entities == [] and "whole-graph sample" in plan.fallback_reason
    result = plan.execute(max_nodes=5)
    assert len(result.nodes) == 5 and result.truncated


def test_proposed_cypher_goes_through_the_read_only_check(demo):
    read = planned(entities=["Alice Chen"], cypher="MATCH (p:Person)-[r:WORKS_FOR]->(c:Company {name: 'Acme Robotics'}) RETURN p, r, c")
    plan = gestalt_nb.plan("Who works for Acme?", ScriptedChatModel(responses=[read]))
    assert plan.uses_cypher
    result = plan.execute()
    assert isinstance(result, QueryResult) and {"alice", "carla", "acme"} <= set(result.subgraph.nodes)
    write = planned(entities=["Alice Chen"], cypher="MATCH (p:Person {name: 'Alice Chen'}) DETACH DELETE p RETURN 1 AS x")
    plan = gestalt_nb.plan("Remove Alice", ScriptedChatModel(responses=[write]))
    assert not plan.uses_cypher and "writes" in plan.cypher_refused
    assert isinstance(plan.execute(), SubgraphResult) and demo.db.get_node(b"alice") is not None
    broken = planned(entities=["Alice Chen"], cypher="MATCH (p RETURN p")
    plan = gestalt_nb.plan("?", ScriptedChatModel(responses=[broken]))
    assert not plan.uses_cypher and "syntax" in plan.cypher_refused.lower()
    assert QueryPlan.model_fields["max_hops"].metadata  # the bound is part of the schema the model sees


def test_gask_magic_shows_plan_and_result(shell, demo):
    shell.user_ns["llm"] = ScriptedChatModel(responses=[planned(entities=["Carla Ruiz"], relations=["KNOWS"], max_hops=1, reasoning="people Carla knows")])
    plan = run(shell, "%%gask --model llm -o asked\nWho does Carla Ruiz know?")
    assert shell.user_ns["asked"] is plan and isinstance(plan.result, SubgraphResult)
    assert {n["id"] for n in plan.result.nodes} == {"carla", "alice", "dev"}
    view = plan.show()
    page = view.widget
    assert "people Carla knows" in page.children[0].value and "KNOWS" in page.children[0].value
    assert view.canvas is view.result_view.canvas and set(view.canvas.subgraph.nodes) == {"carla", "alice", "dev"}
    assert "Plan" in view.text() and "reasoning" in view.text()
    shell.user_ns["llm"] = ScriptedChatModel(responses=[boom])
    plan = run(shell, "%%gask --model llm\nWho does Carla Ruiz know?")
    html = plan.show().static_html()
    assert "Broad search" in html and "rate limited" in html
    with pytest.raises(UsageError, match="Say which chat model"):
        run(shell, "%%gask\nWho does Carla Ruiz know?")
