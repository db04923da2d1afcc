"""The change feed (one event per committed write, none for refused or rolled-back ones, polling for
other processes) and live results (one re-run per burst, the canvas changed by deltas)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import pandas as pd
import pytest
from IPython.core.error import UsageError

import gestalt_nb
from gestalt_nb.errors import GestaltError

from .conftest import run


def recorder(feed):
    seen = []
    feed.observe(lambda change: seen.append(feed.last_event), names="revision")
    return seen


def test_one_event_per_committed_write(shell, demo):
    feed = demo.feed
    seen = recorder(feed)
    committed = []
    # an observer runs after the commit: what the event names is already readable
    feed.observe(lambda change: committed.append(demo.db.get_node(b"zoe") is not None), names="revision")
    run(shell, "%%gcypher --write\nCREATE (p:Person {id: 'zoe', name: 'Zoe Quinn'}) RETURN p")
    assert [e.op for e in seen] == ["cypher"] and feed.revision == 1 and not seen[0].exact
    assert committed == [True]
    with pytest.raises(UsageError):  # refused: no --write
        run(shell, "%%gcypher\nCREATE (p:Person {name: 'Nope'}) RETURN p")
    with pytest.raises(UsageError):  # fails to parse
        run(shell, "%%gcypher --write\nCREATE (p:Person {name: ) RETURN p")
    assert feed.revision == 1
    gestalt_nb.load_nodes(pd.DataFrame({"id": ["yan", "xia"], "name": ["Yan", "Xia"]}), id="id", label="Person")
    assert seen[-1].op == "load" and seen[-1].ids == ("yan", "xia") and seen[-1].exact and feed.revision == 2
    gestalt_nb.load_nodes(pd.DataFrame({"id": ["yan"], "name": ["Yan"]}), id="id", label="Person")  # changes nothing
    assert feed.revision == 2
    # rolled back inside the transaction (the name is too long for the 'name' index): nothing published
    with pytest.raises(GestaltError, match="rolled back"):
        gestalt_nb.load_nodes(pd.DataFrame({"id": ["wil", "long"], "name": ["Wil", "x" * 700]}), id="id", label="Person")
    assert feed.revision == 2 and demo.db.get_node(b"wil") is None
    with pytest.raises(GestaltError):  # an edge to a missing node: refused before writing
        gestalt_nb.load_edges(pd.DataFrame({"s": ["yan"], "t": ["ghost"]}), source="s", target="t", type="KNOWS")
    assert feed.revision == 2
    with pytest.raises(UsageError):  # a claim write without --write is refused
        run(shell, "%claims assert yan KNOWS xia --polarity positive --agent me --provenance '{}' --valid-from 2024-01-01T00:00:00Z")
    run(shell, "%claims assert yan KNOWS xia --polarity positive --agent me --provenance '{}' --valid-from 2024-01-01T00:00:00Z --write")
    assert seen[-1].op == "claim" and feed.revision == 3
    assert [e.revision for e in seen] == [1, 2, 3] and list(feed.events) == seen


def test_live_burst_reruns_once_and_canvas_changes_by_deltas(shell, demo):
    live = gestalt_nb.live("MATCH (p:Person) RETURN p", debounce=2.0, max_wait=10.0)  # generous: a slow machine still sees one burst
    canvas = live.canvas
    assert set(canvas.subgraph.nodes) == {"alice", "bob", "carla", "dev", "eva", "farid"}
    base = canvas.graph
    shell.user_ns["gestalt_nb"] = gestalt_nb
    run(shell, "for i in range(5):\n    gestalt_nb.run(\"CREATE (p:Person {id: $id, name: $id}) RETURN p\", {'id': f'new{i}'}, write=True)")
    assert demo.feed.revision == 5
    assert live.wait(15)
    assert live.reruns == 1
    assert {f"new{i}" for i in range(5)} <= set(canvas.subgraph.nodes) and len(canvas.subgraph.nodes) == 11
    assert canvas.graph is base or canvas.graph == base  # no full redraw: only deltas
    adds = [op for message in canvas._log for op in message["ops"] if op["op"] == "add"]
    assert sum(len(op["nodes"]) for op in adds) == 5
    run(shell, "%%gcypher --write\nMATCH (p:Person {id: 'new0'}) DETACH DELETE p RETURN 1 AS done")
    assert live.wait(15) and live.reruns == 2
    assert "new0" not in canvas.subgraph.nodes and len(canvas.subgraph.nodes) == 10
    assert any(op["op"] == "remove" and "new0" in op["ids"] for message in canvas._log for op in message["ops"])
    assert "refreshed" in live.status() and "2 re-runs" in live.status()
    live.stop()
    run(shell, "%%gcypher --write\nCREATE (p:Person {id: 'late', name: 'Late'}) RETURN p")
    time.sleep(0.3)
    assert live.reruns == 2 and "late" not in canvas.subgraph.nodes and not demo.feed.polling


def test_live_magic_view_and_stop_button(shell, demo):
    live = run(shell, "%%gcypher --live -o watching\nMATCH (c:Company) RETURN c")
    assert shell.user_ns["watching"] is live and live.polling and demo.feed.polling
    view = live.view
    page = view.widget
    button = page.children[0].children[0]
    assert button.description == "Stop" and "live" in page.children[0].children[1].value
    button.click()
    assert live.stopped and button.disabled and "stopped" in page.children[0].children[1].value
    time.sleep(0.1)
    assert not demo.feed.polling
    with pytest.raises(UsageError, match="only reads"):
        run(shell, "%%gcypher --live --write\nCREATE (c:Company {name: 'X'}) RETURN c")
    with pytest.raises(UsageError, match="Refused"):
        run(shell, "%%gcypher --live\nCREATE (c:Company {name: 'X'}) RETURN c")


WRITER = textwrap.dedent(
    """
    import sys
    from gestaltdb.graphdb import GraphDB, Node
    db = GraphDB.open(sys.argv[1], backend_options={"map_size": 64 << 20})
    with db.transaction() as tx:
        tx.put_nodes([Node("outsider", labels=["Person"], properties={"name": "From Elsewhere"})])
    db.close()
    """
)


def test_other_process_write_is_seen_by_polling(shell, tmp_path):
    path = tmp_path / "shared"
    connection = gestalt_nb.create(str(path), map_size="64MiB")
    gestalt_nb.run("CREATE (p:Person {id: 'home', name: 'Home'}) RETURN p", write=True)
    live = gestalt_nb.live("MATCH (p:Person) RETURN p", debounce=0.1)
    assert live.polling and connection.feed.supports_polling
    before = connection.feed.revision
    subprocess.run([sys.executable, "-c", WRITER, str(path)], check=True, timeout=60)
    deadline = time.monotonic() + 10
    while connection.feed.revision == before and time.monotonic() < deadline:
        time.sleep(0.05)
    event = connection.feed.last_event
    assert connection.feed.revision == before + 1 and event.op == "external" and not event.exact and event.ids is None
    assert live.wait(10) and "outsider" in live.canvas.subgraph.nodes
    time.sleep(1.2)  # no further polls report the same write again
    assert connection.feed.revision == before + 1
    live.stop()


def test_agent_tool_writes_publish_once_reads_and_refusals_never(demo):
    from langchain_core.messages import AIMessage, HumanMessage

    from gestalt_nb.agents import ScriptedChatModel, build_graph_agent, tool_call

    seen = recorder(demo.feed)
    create = "CREATE (p:Person {id: 'agent1', name: 'Made By Agent'}) RETURN p"
    read = "MATCH (p:Person {name: 'Alice Chen'}) RETURN p"
    # read-only tools: the write is refused, the read answered — no events
    model = ScriptedChatModel(responses=[tool_call("gestaltdb_query", "a", query=create), tool_call("gestaltdb_query", "b", query=read), AIMessage("done")])
    build_graph_agent(model, demo.agent_tools()).invoke({"messages": [HumanMessage("go")]})
    assert seen == [] and demo.db.get_node(b"agent1") is None
    # write-enabled tools: one event for the write, none for the read or the failing query
    tools = demo.toolkit(allow_writes=True).get_tools() + demo.claim_toolkit(allow_writes=True).get_tools()
    claim = {"subject": "alice", "predicate": "KNOWS", "object": "dev", "polarity": "positive", "agent": "bot",
             "provenance": {}, "valid_from": "2024-01-01T00:00:00Z"}
    model = ScriptedChatModel(responses=[
        tool_call("gestaltdb_query", "c", query=create), tool_call("gestaltdb_query", "d", query=read),
        tool_call("gestaltdb_query", "e", query="MATCH (p:Person) SET p.x = RETURN p"),
        tool_call("gestaltdb_claim_assert", "f", **claim), AIMessage("done"),
    ])
    build_graph_agent(model, tools, max_refusals=5).invoke({"messages": [HumanMessage("go")]})
    assert demo.db.get_node(b"agent1") is not None
    assert [(e.op, e.exact) for e in seen] == [("agent", False), ("claim", True)]


def test_a_saved_live_view_shows_its_last_result_not_the_empty_one_it_began_with(tmp_path):
    """Run by nbclient (as the docs site and ``jupyter nbconvert --execute`` run notebooks: no page ever draws the
    canvas), a live view started on an empty graph saves a picture of what it last showed, not "0 nodes"."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in [
        f"%load_ext gestalt_nb\nimport gestalt_nb\nconn = gestalt_nb.create({str(tmp_path / 'db')!r})",
        "%%gcypher --live -o watching\nMATCH (p:Person) RETURN p",
        "import pandas as pd\ngestalt_nb.load_nodes(pd.DataFrame({'id': ['ada', 'bo'], 'name': ['Ada', 'Bo']}), id='id', label='Person')\n"
        "watching.wait()\nwatching.stop()",
    ]]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    NotebookClient(notebook, timeout=120, kernel_name="python3").execute(cwd=str(tmp_path))
    pictures = [output["data"]["text/html"] for output in notebook.cells[1].outputs if "text/html" in output.get("data", {})]
    assert len(pictures) == 1, notebook.cells[1].outputs
    assert "2 nodes" in pictures[0] and "data:image/svg+xml;base64," in pictures[0], pictures[0][:300]
