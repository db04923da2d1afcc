"""A real kernel (jupyter_client): the stop button during a long query really stops it."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

jupyter_client = pytest.importorskip("jupyter_client")

ROOT = Path(__file__).resolve().parents[1]
LONG = "MATCH (a:Person), (b:Person), (c:Person) RETURN count(*) AS n"


@pytest.fixture
def kernel(tmp_path):
    from jupyter_client.manager import KernelManager

    km = KernelManager(kernel_name="python3")
    km.kernel_spec.argv[0] = sys.executable  # this interpreter, with this checkout first on the path
    km.start_kernel(env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}, cwd=str(tmp_path))
    client = km.client()
    client.start_channels()
    client.wait_for_ready(timeout=60)
    try:
        yield km, client
    finally:
        client.stop_channels()
        km.shutdown_kernel(now=True)


def execute(client, code, timeout=30):
    """Run code; return (status, outputs as text, error name)."""
    msg_id = client.execute(code)
    texts, error = [], None
    deadline = time.monotonic() + timeout
    while True:
        message = client.get_iopub_msg(timeout=max(deadline - time.monotonic(), 0.1))
        if message["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = message["msg_type"], message["content"]
        if kind == "stream":
            texts.append(content["text"])
        elif kind in ("execute_result", "display_data"):
            texts.append(content["data"].get("text/plain", ""))
        elif kind == "error":
            error = content["ename"]
            texts.append("\n".join(content["traceback"]))
        elif kind == "status" and content["execution_state"] == "idle":
            break
    while True:  # skip the replies of earlier (interrupted) requests
        reply = client.get_shell_msg(timeout=timeout)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply["content"]["status"], "".join(texts), error


SETUP = """
import gestalt_nb, threading
from gestaltdb.graphdb import GraphDB, Node
db = GraphDB.create('g', backend='lmdb', backend_options={'map_size': 64 * 1024**2})
with db.transaction() as tx:
    tx.put_nodes([Node(f"p{i}", labels=["Person"], properties={"name": f"P{i}"}) for i in range(300)])
db.close()
%load_ext gestalt_nb
%gestalt open g
print(gestalt_nb.__file__)
"""

THREADS = "print(sorted(t.name for t in threading.enumerate() if t is not threading.main_thread() and t.name.startswith(('gestalt', 'ThreadPool')) and t.name != 'gestalt-watchdog'), gestalt_nb.cypher.budget.running())"


def interrupt(km, client, msg_id):
    """Press the stop button; wait until the cell is idle. Returns its error content and the seconds it took."""
    started, error = time.monotonic(), None
    km.interrupt_kernel()
    while True:
        message = client.get_iopub_msg(timeout=20)
        ours = message["parent_header"].get("msg_id") == msg_id
        if ours and message["msg_type"] == "error":
            error = message["content"]
        if ours and message["msg_type"] == "status" and message["content"]["execution_state"] == "idle":
            return error, time.monotonic() - started


def test_the_stop_button_stops_a_running_query_and_the_kernel_goes_on(kernel):
    km, client = kernel
    status, text, _ = execute(client, SETUP, timeout=60)
    assert status == "ok" and str(ROOT) in text, text
    msg_id = client.execute(f"%gcypher --timeout 600 {LONG}")
    time.sleep(1.5)  # the query is running by now (it would take minutes)
    error, stopped_in = interrupt(km, client, msg_id)
    assert stopped_in < 2.0, stopped_in
    assert error["ename"] == "QueryInterrupted"  # a KeyboardInterrupt, shown as one line
    assert len(error["traceback"]) == 1 and "the query was stopped after" in error["traceback"][0]
    status, text, _ = execute(client, THREADS)
    assert text.strip() == "[] 0"  # no thread left computing
    status, text, _ = execute(client, "%gcypher MATCH (p:Person) RETURN count(*) AS n")
    assert status == "ok" and "300" in text, text


def test_a_gestalt_error_from_a_plain_call_is_one_line_in_a_real_kernel(kernel):
    _, client = kernel
    status, text, error = execute(client, "import gestalt_nb\ngestalt_nb.connect('no-such-db')")
    assert status == "error" and error == "GestaltError"
    assert text.count("\n") == 0 and "No GestaltDB database at" in text and "%gestalt create no-such-db" in text


AGENT = """
from langchain_core.messages import HumanMessage
from gestalt_nb.agents import ScriptedChatModel, build_graph_agent, tool_call
tools = gestalt_nb.connection().agent_tools(timeout=600)
model = ScriptedChatModel(responses=[tool_call("gestaltdb_query", "q1", query=%r)])
build_graph_agent(model, tools).invoke({"messages": [HumanMessage("count")]})
"""


def test_the_stop_button_stops_an_agent_tool_query_running_on_a_langgraph_worker_thread(kernel):
    km, client = kernel
    assert execute(client, SETUP, timeout=60)[0] == "ok"
    msg_id = client.execute(AGENT % LONG)
    time.sleep(4)  # LangGraph imported, the tool's query running on a ToolNode thread
    error, stopped_in = interrupt(km, client, msg_id)
    # 3-8 s measured, most of it IPython formatting the KeyboardInterrupt's traceback through
    # LangGraph's frames; unstopped, the tool's query would run for minutes (budget: 600 s).
    assert stopped_in < 20.0
    assert error["ename"] == "KeyboardInterrupt"
    assert execute(client, THREADS)[1].strip() == "[] 0"
    assert "300" in execute(client, "%gcypher MATCH (p:Person) RETURN count(*) AS n")[1]
