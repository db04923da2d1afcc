"""What comes out of the canvas, in the kernel: to_cypher, snapshot, the static picture, to_html, path.

Real shell, real LMDB. The page's reports are sent to the widget's own message handler as a page
would send them (the browser side is tests/test_canvas_out_browser.py).
"""

from __future__ import annotations

import base64
import json
import re

import pandas as pd
import pytest

import gestalt_nb
from gestalt_nb.errors import GestaltError
from gestalt_nb.graph.subgraph import Subgraph

from .conftest import run
from .test_browser import PAYLOADS


def report(canvas, hidden=(), at=lambda number: (10.0 + 20 * number, 30.0 + 7 * number)):
    """What a page sends after drawing ``canvas``: every node not in ``hidden``, placed by ``at``."""
    ids = [node_id for node_id in canvas.subgraph.nodes if node_id not in hidden]
    xy = [value for number in range(len(ids)) for value in at(number)]
    message = {"kind": "shown", "width": 700, "height": 500, "dpr": 2, "revision": canvas.revision, "ids": ids, "xy": xy,
               "r": [6] * len(ids), "ci": [number % 2 for number in range(len(ids))], "colors": ["#4e79a7", "#f28e2b"], "hidden": list(hidden)}
    canvas._message(canvas, message, None)
    return message


def rerun(connection, query):
    result = connection.run(query, query.params, limit=max(query.rows, 1))
    return set(result.subgraph.nodes), set(result.subgraph.edges), result


def test_to_cypher_after_expansions_a_removal_and_a_hide_returns_exactly_what_is_drawn(shell, demo):
    result = run(shell, "%gcypher MATCH (p:Person)-[r:WORKS_FOR]->(c:Company) RETURN p, r, c LIMIT 3")
    canvas = result.canvas
    first = list(canvas.subgraph.nodes)
    canvas._message(canvas, {"kind": "dblclick", "id": first[0]}, None)
    canvas._message(canvas, {"kind": "dblclick", "id": first[1]}, None)
    added = [node_id for node_id in canvas.subgraph.nodes if node_id not in first]
    assert len(added) >= 2
    canvas.remove(added[-1:])
    report(canvas, hidden=added[:1])
    query = canvas.to_cypher()
    nodes, edges, _ = rerun(demo, query)
    drawn = set(canvas.subgraph.nodes) - set(added[:1])
    assert nodes == drawn and added[-1] not in nodes
    assert edges == {e.id for e in canvas.subgraph.edges.values() if e.source in drawn and e.target in drawn}
    assert not re.search(r"-\[r\]-", query), "typed patterns only"
    assert "start: id lookup" in demo.explain(query).text() and "all-nodes scan" not in demo.explain(query).text()
    assert query.cell().startswith("%%gcypher\n")


def test_to_cypher_minds_integer_ids(shell, demo):
    gestalt_nb.load_nodes(pd.DataFrame({"pid": [0, 1, 2], "name": ["zero", "one", "two"]}), id="pid", label="Num")
    gestalt_nb.load_edges(pd.DataFrame({"a": [0, 1], "b": [1, 2]}), source="a", target="b", type="NEXT")
    canvas = gestalt_nb.run("MATCH (a:Num)-[r:NEXT]->(b:Num) RETURN a, r, b").canvas
    canvas.add(gestalt_nb.run("MATCH (n:Person {name: 'Alice Chen'}) RETURN n").subgraph)  # a node with no drawn relationship
    nodes, edges, _ = rerun(demo, canvas.to_cypher())
    assert nodes == set(canvas.subgraph.nodes) and 0 in nodes and "alice" in nodes
    assert edges == set(canvas.subgraph.edges)


def test_a_drawing_too_long_to_write_inline_uses_parameters_and_still_returns_exactly_it(shell, demo):
    count = 400
    gestalt_nb.load_nodes(pd.DataFrame({"pid": [f"node-with-a-long-id-{k:04d}" for k in range(count)]}), id="pid", label="Long")
    gestalt_nb.load_edges(pd.DataFrame({"a": [f"node-with-a-long-id-{k:04d}" for k in range(count - 1)],
                                        "b": [f"node-with-a-long-id-{k + 1:04d}" for k in range(count - 1)]}), source="a", target="b", type="LINK")
    gestalt_nb.load_edges(pd.DataFrame({"a": ["node-with-a-long-id-0000"] * (count - 2), "b": [f"node-with-a-long-id-{k:04d}" for k in range(2, count)]}),
                          source="a", target="b", type="STAR")
    star = gestalt_nb.run("MATCH (a:Long {id: 'node-with-a-long-id-0000'})-[r:STAR]->(b:Long) RETURN a, r, b", limit=5000).canvas
    query = star.to_cypher()
    assert query.params and "$n0" in query and len(query) < 200 and query.rows == count - 2, query  # one start node, ids as parameters
    plan = demo.explain(query, query.params).text()
    assert "id lookup" in plan and "all-nodes scan" not in plan
    nodes, edges, result = rerun(demo, query)
    assert nodes == set(star.subgraph.nodes) and edges == set(star.subgraph.edges) and not result.truncated
    canvas = gestalt_nb.run("MATCH (a:Long)-[r:LINK]->(b:Long) RETURN a, r, b", limit=5000).canvas  # a chain: ~200 start nodes
    query = canvas.to_cypher()
    assert query.params and len(query) < 1000 and query.rows == count - 1
    nodes, edges, result = rerun(demo, query)
    assert nodes == set(canvas.subgraph.nodes) and edges == set(canvas.subgraph.edges) and not result.truncated
    assert "-P " in query.cell()


def test_snapshot_needs_a_page_then_draws_what_it_showed(shell, demo):
    result = run(shell, "%gcypher MATCH (p:Person)-[r:WORKS_FOR]->(c:Company) RETURN p, r, c")
    canvas = result.canvas
    with pytest.raises(GestaltError, match="No page has shown this canvas yet"):
        canvas.snapshot("svg")
    laid_out = result.view.drawing.svg()
    hidden = [next(iter(canvas.subgraph.nodes))]
    sent = report(canvas, hidden=hidden)
    svg = canvas.snapshot("svg")
    circles = re.findall(r'<circle cx="([\d.]+)" cy="([\d.]+)" r="6" fill="(#[0-9a-f]{6})" data-id="([^"]+)"', svg)
    assert [c[3] for c in circles] == sent["ids"] and hidden[0] not in svg.split("data-id=")[-1]
    assert [(float(x), float(y)) for x, y, _, _ in circles] == list(zip(sent["xy"][::2], sent["xy"][1::2]))
    assert {c[2] for c in circles} == {"#4e79a7", "#f28e2b"}
    static = result.view._repr_mimebundle_()["text/html"]
    picture = base64.b64decode(re.search(r"base64,([^\"]+)", static).group(1)).decode()
    assert picture == svg != laid_out, "the saved notebook's picture is the page's, not a new layout"
    with pytest.raises(GestaltError, match="'svg' only"):
        canvas.snapshot("png")


def pictures(outputs) -> list[str]:
    """The static SVG picture of each captured display output (the saved notebook's fallback)."""
    found = [re.search(r"base64,([^\"]+)", output.data["text/html"]) for output in outputs]
    return [base64.b64decode(match.group(1)).decode() if match else "" for match in found]


def test_the_cells_own_output_follows_what_the_page_shows(shell, demo):
    """A cell's result is shown under a display id; each new page report updates that output's static
    picture to the page's, once per change, and not after the cell has run again."""
    from IPython.utils.capture import capture_output

    with capture_output() as shown:
        shell.run_cell("%%gcypher -o people\nMATCH (p:Person)-[r:WORKS_FOR]->(c:Company) RETURN p, r, c", cell_id="people-cell")
    people = shell.user_ns["people"]
    assert len(shown.outputs) == 1 and shown.outputs[0].data["application/vnd.jupyter.widget-view+json"]["model_id"] == people.view.widget.model_id
    ident = shown.outputs[0].transient["display_id"]
    assert ident and not shown.outputs[0].update and shell.user_ns["_"] is people, "still the cell's result (_ and Out)"
    laid_out = pictures(shown.outputs)[0]
    assert '<circle cx="10" cy="30"' not in laid_out
    canvas = people.canvas
    with capture_output() as updates:
        report(canvas)
        report(canvas)  # the same picture again: nothing to update
        moved = report(canvas, at=lambda number: (500.0 - 20 * number, 40.0 + 9 * number))
    assert [(output.update, output.transient["display_id"]) for output in updates.outputs] == [(True, ident), (True, ident)]
    first, second = pictures(updates.outputs)
    assert '<circle cx="10" cy="30"' in first and first != laid_out
    assert second == canvas.snapshot("svg") and f'<circle cx="{moved["xy"][0]:g}" cy="{moved["xy"][1]:g}"' in second
    shell.run_cell("1", cell_id="people-cell")  # the cell runs again: its old view is released
    with capture_output() as late:
        report(canvas, at=lambda number: (100.0, 100.0 + number))
    assert late.outputs == []


def test_a_malformed_report_is_ignored(shell, demo):
    canvas = run(shell, "%gcypher MATCH (p:Person) RETURN p LIMIT 3").canvas
    for bad in ({"ids": ["a"], "xy": [1], "r": [1], "ci": [0], "colors": ["#000000"], "width": 5, "height": 5},
                {"ids": ["a"], "xy": [1, "x"], "r": [1], "ci": [0], "colors": [], "width": 5, "height": 5},
                {"ids": "a", "width": 5, "height": 5}):
        canvas._message(canvas, {"kind": "shown", **bad}, None)
        assert canvas.shown is None
    report(canvas)
    canvas._message(canvas, {"kind": "shown", **{**report(canvas), "colors": ["red;x:url(javascript:1)", "#fff"]}}, None)
    assert all(colour == "#9aa0a6" for _, _, _, colour in canvas.shown.nodes.values() if colour != "#f28e2b")


def test_hostile_text_stays_text_in_the_snapshot_and_the_page(shell, demo, tmp_path):
    subgraph = Subgraph(title=PAYLOADS[0])
    from gestalt_nb.graph.subgraph import Edge, Node

    subgraph.add_node(Node("anchor", ["Person"], {"name": "anchor"}))
    for number, payload in enumerate(PAYLOADS):
        subgraph.add_node(Node(f"n{number}\"'<>", ["Person", payload[:40]], {"name": payload, payload[:30]: payload}))
        subgraph.add_edge(Edge(f"e{number}", "anchor", f"n{number}\"'<>", "KNOWS", {"why": payload}))
    canvas = gestalt_nb.show(subgraph).canvas
    sent = report(canvas)
    svg = canvas.snapshot()
    assert "<script" not in svg and "onerror=" not in svg.replace("onerror=&quot;", "")
    assert "&lt;img src=x onerror=" in svg
    page = canvas.to_html(tmp_path / "hostile.html")
    assert page.count("<script") == 3 and page.count("</script>") == 3, "data cannot open or close a script element"
    data = re.search(r'<script type="application/json" id="gestalt-data">(.*?)</script>', page, re.S).group(1)
    assert "<" not in data and ">" not in data
    drawn = json.loads(data)["graph"]
    assert drawn["at"] == {k: [sent["xy"][2 * i], -sent["xy"][2 * i + 1]] for i, k in enumerate(sent["ids"])}, "where the page put them"
    captions = [node["c"] for node in drawn["nodes"]]
    assert any(caption.startswith(PAYLOADS[1][:50]) for caption in captions), "the payload survives as text"
    assert f"<title>{PAYLOADS[0]}" not in page and "&lt;script&gt;" in page
    assert (tmp_path / "hostile.html").read_text(encoding="utf-8") == page


def test_path_draws_and_highlights_what_shortest_path_returns(shell, demo):
    canvas = run(shell, "%gcypher MATCH (p:Person {name: 'Alice Chen'}) RETURN p").canvas
    path = canvas.path("alice", "initech")
    want = demo.shortest_path("alice", "initech")
    assert set(path.subgraph.nodes) == set(want.subgraph.nodes) == canvas.subgraph.highlight_nodes
    assert set(want.subgraph.edges) == canvas.subgraph.highlight_edges and set(want.subgraph.nodes) <= set(canvas.subgraph.nodes)
    assert canvas.status["text"].startswith("Shortest path: ")
    canvas._message(canvas, {"kind": "path", "ids": ["alice", "bob"]}, None)  # the Path button
    assert canvas.subgraph.highlight_nodes == set(demo.shortest_path("alice", "bob").subgraph.nodes)
    assert canvas.undo() and canvas.undo() and set(canvas.subgraph.nodes) == {"alice"}
    unconnected = gestalt_nb.show(Subgraph()).canvas
    with pytest.raises(GestaltError, match="not connected to an open database"):
        unconnected.path("alice", "bob")


def test_to_cypher_leaves_out_what_filter_hid_from_python(shell, demo):
    """A filter set from Python (no page needed) shapes the query: hidden labels' nodes and hidden types' relationships are left out."""
    result = run(shell, "%gcypher MATCH (p:Person)-[r:WORKS_FOR]->(c:Company) RETURN p, r, c")
    canvas = result.canvas
    people = {node.id for node in canvas.subgraph.nodes.values() if "Person" in node.labels}
    assert canvas.filter(labels=["Person"]) == len(canvas.subgraph.nodes) - len(people)
    query = canvas.to_cypher()
    rows = demo.run(query, query.params, limit=max(query.rows, 1) + 10)
    assert {node.id for node in rows.subgraph.nodes.values()} == people and not rows.subgraph.edges
    canvas.filter()
    query = canvas.to_cypher()
    rows = demo.run(query, query.params, limit=query.rows + 10)
    assert set(rows.subgraph.nodes) == set(canvas.subgraph.nodes)


def test_a_canvas_shown_on_its_own_is_its_picture_then_the_live_canvas_and_the_picture_follows_the_page(shell, demo, monkeypatch):
    """``result.canvas`` as a cell's last value: a bare widget output said "model not found" in a saved notebook once its
    kernel restarted; it goes out as a view does (outputs.py), its picture following the page's reports."""
    from IPython.display import display as show
    from IPython.utils.capture import capture_output

    from gestalt_nb import display, outputs

    canvas = run(shell, "%gcypher MATCH (p:Person)-[r:WORKS_FOR]->(c:Company) RETURN p, r, c").canvas
    with capture_output() as plain:
        show(canvas)  # outside a kernel: the widget's own bundle, one output
    (only,) = plain.outputs
    assert only.data["application/vnd.jupyter.widget-view+json"]["model_id"] == canvas.model_id
    monkeypatch.setattr(display, "kernel_shell", lambda: shell)
    with capture_output() as shown:
        show(canvas)
    picture, live = shown.outputs
    assert picture.data["text/html"].startswith(outputs.STYLE) and 'src="data:image/svg+xml;base64,' in picture.data["text/html"]
    assert picture.transient["display_id"] and "application/vnd.jupyter.widget-view+json" not in picture.data
    assert live.data["application/vnd.jupyter.widget-view+json"]["model_id"] == canvas.model_id and not live.transient
    assert picture.data["text/plain"] == canvas.subgraph.summary()
    with capture_output() as updates:
        report(canvas)
    (update,) = [output for output in updates.outputs if output.transient.get("display_id") == picture.transient["display_id"]]  # the cell's view's own picture follows too
    assert update.update
    assert '<circle cx="10" cy="30"' in base64.b64decode(re.search(r"base64,([^\"]+)", update.data["text/html"]).group(1)).decode()
