"""Agents on the same graph: a real LangGraph graph driven by a scripted chat model (no network)."""

from __future__ import annotations

import asyncio
import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_gestaltdb import GestaltDBClaimToolkit, GestaltDBGraph, GestaltDBToolkit
from langgraph.graph import StateGraph

import gestalt_nb
from gestalt_nb.agents import ScriptedChatModel, build_graph_agent, is_refusal, tool_call
from gestalt_nb.session import REGISTRY

from .conftest import raw, run

WORKERS = "MATCH (p:Person)-[r:WORKS_FOR]->(c:Company {name: $company}) RETURN p, r, c"


def ask(agent, text="Who works for Acme?"):
    return agent.invoke({"messages": [HumanMessage(text)]})


def tool_answers(state, name=None):
    return [m for m in state["messages"] if isinstance(m, ToolMessage) and (name is None or m.name == name)]


def test_a_read_query_is_answered(demo):
    model = ScriptedChatModel(responses=[tool_call("gestaltdb_query", "q1", query=WORKERS, params={"company": "Acme Robotics"}), AIMessage("done")])
    state = ask(build_graph_agent(model, demo.agent_tools()))
    answer = json.loads(tool_answers(state)[0].content)
    expected = {row["p"].get_id for row in raw(demo, WORKERS, {"company": "Acme Robotics"})}
    assert {record["p"]["id"] for record in answer["records"]} == expected == {"alice", "carla"}
    assert state["messages"][-1].content == "done" and state["refusals"] == 0


def test_a_write_is_refused_then_retried_as_a_read(demo):
    before = raw(demo, "MATCH (n) RETURN count(n) AS c")[0]["c"]

    def retry_as_read(messages):
        assert is_refusal(messages[-1]) and "not read-only" in messages[-1].content
        return tool_call("gestaltdb_query", "q2", query=WORKERS, params={"company": "Globex Labs"})

    model = ScriptedChatModel(responses=[tool_call("gestaltdb_query", "q1", query="CREATE (x:Hack) RETURN x"), retry_as_read, AIMessage("Bob and Eva.")])
    state = ask(build_graph_agent(model, demo.agent_tools()))
    refused, answered = tool_answers(state)
    assert refused.content.startswith("Refused: Clause CreateClause is not read-only")
    assert {r["p"]["id"] for r in json.loads(answered.content)["records"]} == {"bob", "eva"}
    assert state["refusals"] == 1 and state["messages"][-1].content == "Bob and Eva."
    assert raw(demo, "MATCH (n) RETURN count(n) AS c")[0]["c"] == before


def test_max_refusals_stops_the_run_with_a_message(demo):
    model = ScriptedChatModel(responses=[tool_call("gestaltdb_query", f"w{i}", query="MATCH (n) DETACH DELETE n RETURN 1 AS x") for i in range(10)])
    state = ask(build_graph_agent(model, demo.agent_tools(), max_refusals=2))
    assert state["refusals"] == 2 and model.position == 2
    assert state["messages"][-1].content.startswith("Stopped: 2 tool calls were refused in this run (max_refusals=2)")
    assert raw(demo, "MATCH (n) RETURN count(n) AS c")[0]["c"] > 0


def test_over_the_cap_and_failing_queries_count_as_refusals(demo):
    tools = demo.toolkit(max_chars=300).get_tools()
    model = ScriptedChatModel(responses=[tool_call("gestaltdb_query", "big", query="MATCH (n) RETURN n"), tool_call("gestaltdb_query", "bad", query="UNWIND [1] AS x RETURN x / 'a' AS y")])
    state = ask(build_graph_agent(model, tools, max_refusals=2))
    reasons = [m.content for m in tool_answers(state)]
    assert state["refusals"] == 2
    assert reasons[0].startswith("Refused: the answer was over the tool's output cap and nothing fit")
    assert reasons[1].startswith("Refused: GestaltDB query failed")


def test_ainvoke_and_a_plain_callable_model(demo):
    script = iter([tool_call("gestaltdb_schema", "s1"), AIMessage("I looked at the schema.")])
    agent = build_graph_agent(lambda messages: next(script), demo.agent_tools())
    state = asyncio.run(agent.ainvoke({"messages": [HumanMessage("What is in the graph?")]}))
    schema = json.loads(tool_answers(state, "gestaltdb_schema")[0].content)
    assert "Person" in schema["node_props"] and state["messages"][-1].content == "I looked at the schema."


def test_context_schema_is_accepted(demo):
    from typing_extensions import TypedDict

    class Context(TypedDict):
        user: str

    agent = build_graph_agent(ScriptedChatModel(responses=[AIMessage("hi")]), demo.agent_tools(), context_schema=Context)
    assert agent.invoke({"messages": [HumanMessage("hello")]}, context={"user": "ada"})["messages"][-1].content == "hi"


def test_the_trace_subgraph_equals_the_nodes_and_edges_in_the_tool_results(shell, demo):
    model = ScriptedChatModel(
        responses=[
            tool_call("gestaltdb_query", "q1", query=WORKERS, params={"company": "Acme Robotics"}),
            tool_call("gestaltdb_query", "q2", query="MATCH (:Person)-[k:KNOWS]->(:Person) RETURN k"),
            tool_call("gestaltdb_query", "q3", query="CREATE (x:Hack) RETURN x"),
            AIMessage("done"),
        ]
    )
    state = ask(build_graph_agent(model, demo.agent_tools()))
    shell.user_ns["agent_state"] = state
    trace = run(shell, "import gestalt_nb\ngestalt_nb.show_trace(agent_state)")
    nodes, edges = set(), set()
    for message in tool_answers(state):
        if is_refusal(message):
            continue
        for record in json.loads(message.content)["records"]:
            for value in record.values():
                if "source" in value:
                    edges.add(value["id"])
                    nodes |= {value["source"], value["target"]}
                else:
                    nodes.add(value["id"])
    assert set(trace.subgraph.nodes) == nodes and set(trace.subgraph.edges) == edges
    assert [step.refused for step in trace.steps if step.kind == "answer"] == [False, False, True]
    text = trace.show().text()
    assert "call gestaltdb_query" in text and "REFUSED: Clause CreateClause is not read-only" in text
    assert trace.show().tab_titles == ["Steps", "Graph", "Messages"]


def test_claim_tools_through_the_same_graph_and_their_views_in_the_trace(demo):
    claim_id = demo.claims().search(predicate="BASED_IN", subject="bob", valid_time="2024-01-01T00:00:00Z").df.iloc[0]["claim_id"]
    model = ScriptedChatModel(
        responses=[
            tool_call("gestaltdb_claim_status", "c1", subject="alice", predicate="WORKS_FOR", object="acme", valid_time="2024-07-01T00:00:00Z"),
            tool_call("gestaltdb_claim_explanation", "c2", claim_id=claim_id, valid_time="2024-01-01T00:00:00Z"),
            AIMessage("Disputed; Bob is based in Nairobi by rule."),
        ]
    )
    state = ask(build_graph_agent(model, demo.agent_tools()))
    assert json.loads(tool_answers(state, "gestaltdb_claim_status")[0].content)["status"] == "both"
    trace = gestalt_nb.show_trace(state["messages"])
    status_step, explain_step = [step for step in trace.steps if step.kind == "answer"]
    assert status_step.result.status == "both"
    assert {node.labels[0] for node in explain_step.result.subgraph.nodes.values()} == {"Claim", "Rule"}
    steps = trace.show().steps_html()
    assert "BOTH" in steps and "data:image/svg+xml" in steps


def test_show_trace_reads_any_agents_plain_message_list():
    messages = [
        HumanMessage("q"),
        AIMessage("", tool_calls=[{"name": "gestaltdb_query", "args": {"query": "MATCH (n) RETURN n"}, "id": "1"}]),
        ToolMessage(json.dumps({"records": [{"n": {"id": "a", "labels": ["X"], "properties": {}}}], "returned_rows": 1, "truncated": True}), tool_call_id="1", name="gestaltdb_query"),
    ]
    trace = gestalt_nb.show_trace(messages)
    answer = trace.steps[-1]
    assert answer.truncated and set(trace.subgraph.nodes) == {"a"}
    assert "truncated" in trace.show().steps_html()
    with pytest.raises(TypeError, match="LangChain messages"):
        gestalt_nb.show_trace([{"role": "user"}])


def test_handoff_objects_are_the_adapters_and_read_only_by_default(demo):
    toolkit, claims = demo.toolkit(), demo.claim_toolkit()
    assert isinstance(toolkit, GestaltDBToolkit) and isinstance(claims, GestaltDBClaimToolkit)
    assert not toolkit.allow_writes and not claims.allow_writes
    assert {tool.name for tool in claims.get_tools()} == {"gestaltdb_claim_status", "gestaltdb_claim_search", "gestaltdb_claim_explanation"}
    written = demo.claim_toolkit(allow_writes=True).get_tools()
    assert {"gestaltdb_claim_assert", "gestaltdb_claim_correct", "gestaltdb_claim_retract"} <= {tool.name for tool in written}
    retriever = demo.retriever(seed_ids=("alice",))
    assert [doc.metadata["id"] for doc in retriever.invoke("x")] == ["alice"]


def test_gestalt_tools_lists_what_an_agent_may_do(shell, demo):
    table = run(shell, "%gestalt tools")
    assert list(table["tool"]) == ["gestaltdb_schema", "gestaltdb_query", "gestaltdb_claim_status", "gestaltdb_claim_search", "gestaltdb_claim_explanation"]
    assert not table["writes"].any()
    query = table.set_index("tool").loc["gestaltdb_query"]
    assert query["caps"] == "max_rows=100, max_chars=16000, budget=10 s / 512 MiB" and "query: string" in query["arguments"]


@pytest.mark.parametrize("borrowed", [False, True])
def test_tools_fail_clearly_after_the_connection_closes(shell, tmp_path, borrowed):
    if borrowed:
        owner = GestaltDBGraph.create(tmp_path / "mine", backend="lmdb", backend_options={"map_size": 2**28})
        shell.user_ns["owner"] = owner
        run(shell, "%gestalt use owner")
    else:
        run(shell, f"%gestalt create {tmp_path / 'own'}")
    connection = gestalt_nb.connection()
    query = connection.toolkit().get_tools()[1]
    retriever = connection.retriever(seed_ids=("x",))
    assert json.loads(query.invoke({"query": "UNWIND [1] AS x RETURN x"}))["records"] == [{"x": 1}]
    REGISTRY.close(connection.alias)
    answer = query.invoke({"query": "UNWIND [1] AS x RETURN x"})
    assert answer.startswith(f"The GestaltDB connection '{connection.alias}' is closed; these tools no longer work.")
    with pytest.raises(RuntimeError, match="closed"):
        retriever.invoke("x")
    if borrowed:
        assert owner.query("UNWIND [1] AS x RETURN x") == [{"x": 1}]  # the owner's graph is untouched
        owner.close()


def test_the_agent_graph_is_a_real_langgraph_state_graph(demo):
    agent = build_graph_agent(ScriptedChatModel(responses=[AIMessage("ok")]), demo.agent_tools())
    assert set(agent.get_graph().nodes) >= {"model", "tools", "guard"}
    assert isinstance(agent.builder, StateGraph)


def test_the_trace_makes_no_widgets_for_the_answers_it_only_describes(shell, demo):
    """Schema and claim answers are shown as static HTML inside the steps: no hidden canvases in the kernel."""
    import ipywidgets

    from gestalt_nb.agents import ScriptedChatModel, build_graph_agent, tool_call

    model = ScriptedChatModel(responses=[tool_call("gestaltdb_schema", "s"), AIMessage("done")])
    state = build_graph_agent(model, demo.agent_tools()).invoke({"messages": [HumanMessage("what is in the graph?")]})
    before = set(ipywidgets.Widget.widgets)
    html = gestalt_nb.show_trace(state).show().steps_html()
    made = [ipywidgets.Widget.widgets[key] for key in set(ipywidgets.Widget.widgets) - before]
    assert "Person" in html and not [w for w in made if type(w).__name__ == "GraphCanvas"]


def test_the_query_tool_rewrites_untyped_patterns_and_keeps_the_read_only_check(demo):
    """The agent's query tool answers an untyped pattern with the untyped rows (read rewritten to every
    type in one snapshot), and a write is still refused by the adapter's check."""
    from gestalt_nb.agents.handoff import BudgetedQueryTool
    from gestalt_nb.cypher import untyped

    tool = next(t for t in demo.toolkit().get_tools() if isinstance(t, BudgetedQueryTool))
    query = "MATCH (p:Person {name: 'Alice Chen'})-[r]-(x) RETURN type(r) AS t, x.name AS name"
    answer = json.loads(tool.invoke({"query": query}))
    rows = sorted(json.dumps(row, sort_keys=True) for row in answer["records"])
    assert rows and rows == sorted(json.dumps(row, sort_keys=True) for row in demo.graph.query_read_only(query))
    found = untyped.find_in(query)
    assert untyped.preview(demo.db, found).applied and tool.graph.graph is demo.db
    assert type(tool.graph).__name__ == "RewritingGraph"  # the adapter's tool, given the rewriting graph
    refused = tool.invoke({"query": "MATCH (p:Person)-[r]->(x) SET p.x = 1 RETURN p"})
    assert "read-only" in refused.lower() or "refus" in refused.lower()
    assert raw(demo, "MATCH (p:Person) WHERE p.x = 1 RETURN count(p) AS c")[0]["c"] == 0
