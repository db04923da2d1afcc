"""Views and the render layer: tabs, fallbacks, caps, both renderers, escaping of graph text."""

from __future__ import annotations

import html
import json
import re

import pytest

import gestalt_nb
from gestalt_nb import Subgraph, render
from gestalt_nb.graph.subgraph import Edge, Node

from .conftest import run

REMOTE = re.compile(r"""(src|href)\s*=\s*["']?(https?:)?//|@import\s+url\(\s*["']?https?:""")
PAYLOAD = "</script><script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\">"


@pytest.fixture
def hostile(shell, tmp_path):
    run(shell, f"%gestalt create {tmp_path / 'hostile'}")
    shell.user_ns["payload"] = {"p": PAYLOAD}
    run(shell, "%%gcypher --write -P payload\nCREATE (a:Person {name: $p, note: $p})-[r:KNOWS {why: $p}]->(b:Person {name: 'plain'}) RETURN a, r, b")
    return gestalt_nb.connection()


def test_mime_bundle_has_widget_static_html_and_text(shell, demo):
    from IPython.display import display
    from IPython.utils.capture import capture_output

    result = run(shell, "%gcypher MATCH (p:Person)-[r:LIVES_IN]->(c:Place) RETURN p, r, c")
    with capture_output() as shown:
        display(result)  # what a front end receives: one display_data under a display id
    (output,) = shown.outputs
    data = output.data
    assert output.transient["display_id"] and data["application/vnd.jupyter.widget-view+json"]["model_id"]
    static = data["text/html"]
    assert static.count("<tr") == len(result) + 1  # header + one row per record, as a plain table
    assert 'src="data:image/svg+xml;base64,' in static
    assert data["text/plain"].startswith(f"{len(result)} rows × 3 columns; 9 nodes, 6 relationships")
    assert "Alice Chen" in data["text/plain"]


def test_graph_tab_is_the_canvas_with_every_node(shell, demo):
    result = run(shell, "%gcypher MATCH (p:Person)-[r:WORKS_FOR]->(c:Company) RETURN p, r, c")
    canvas = result.view.widget.children[0]
    assert canvas is result.canvas and type(canvas).__name__ == "GraphCanvas"
    assert {node["id"] for node in canvas.graph["nodes"]} == set(result.subgraph.nodes)
    assert {edge["id"] for edge in canvas.graph["edges"]} == set(result.subgraph.edges)
    alice = next(node for node in canvas.graph["nodes"] if node["id"] == "alice")
    assert alice["c"] == "Alice Chen" and alice["p"]["born"] == "1988-03-14"  # readable temporal text
    assert canvas.settings["expandable"] is True


def test_gestaltdb_renderer_embeds_the_offline_viewer_with_every_node(shell, demo):
    result = run(shell, "%%gcypher --renderer gestaltdb\nMATCH (p:Person)-[r:WORKS_FOR]->(c:Company) RETURN p, r, c")
    view = result.show()
    graph_html = view.widget.children[0].value
    assert graph_html.count('<iframe sandbox="allow-scripts allow-downloads allow-popups" srcdoc=') == 1
    assert "allow-same-origin" not in graph_html.split("srcdoc=")[0]
    document = html.unescape(re.search(r'srcdoc="([^"]*)"', graph_html).group(1))
    payload = json.loads(re.search(r"window.__GESTALTDB_VIZ__ = (\{.*?\});window", document).group(1))
    assert {node["id"] for node in payload["nodes"]} == set(result.subgraph.nodes)
    assert {edge["id"] for edge in payload["edges"]} == set(result.subgraph.edges)
    assert "default-src 'none'" in document and not REMOTE.search(document)
    alice = next(node for node in payload["nodes"] if node["id"] == "alice")
    assert alice["properties"]["born"] == "1988-03-14"  # temporal values drawn as readable text


def test_drawing_caps_cut_the_graph_and_say_so(shell, demo):
    result = run(shell, "%%gcypher --max-nodes 4\nMATCH (n) RETURN n")
    view = result.show()
    assert len(view.drawing.subgraph.nodes) == 4 and view.drawing.subgraph.truncated
    assert len(result.subgraph.nodes) > 4  # the result itself keeps everything it returned
    note = f"Graph shows 4 of {len(result.subgraph.nodes)} nodes"
    canvas = view.widget.children[0]
    assert note in canvas.graph["notes"][0] and note in view.static_html() and note in view.text()
    assert canvas.graph["counts"] == {"nodes": len(result.subgraph.nodes), "edges": len(result.subgraph.edges)}
    assert len(canvas.graph["nodes"]) == 4  # the canvas says "4 of N" from these counts


def test_table_display_limit_is_separate_from_the_row_limit(shell, demo):
    result = run(shell, "%%gcypher --display-limit 3\nMATCH (n) RETURN n.name AS name")
    assert len(result) > 3 and not result.truncated
    table_html = result.show().widget.children[0].value
    assert table_html.count("<tr") == 4 and f"showing 3 of {len(result)} rows" in table_html


def test_json_tab_is_capped_in_characters(shell, demo):
    run(shell, "%config GestaltMagic.json_max_chars = 200")
    result = run(shell, "%gcypher MATCH (n) RETURN n")
    json_html = dict(result.show().tabs())["JSON"]()
    assert f"cut at 200 characters ({len(result):,} items in all" in json_html
    assert len(json_html) < 1000


@pytest.mark.parametrize("renderer", ["gestaltdb", "pyvis"])
def test_graph_text_is_escaped_in_every_part_of_the_view(shell, hostile, renderer):
    result = run(shell, f"%%gcypher --renderer {renderer}\nMATCH (a)-[r:KNOWS]->(b) RETURN a, r, b")
    view = result.show()
    bundle = view._repr_mimebundle_()
    pieces = [make() for _, make in view.tabs()[1:]] + [view.widget.children[0].value, bundle["text/html"]]
    for piece in pieces:
        assert "<script>window.__pwned" not in piece and "<img src=x" not in piece
    document = view.drawing.document
    # Inside the page's <script> data the payload may appear, but it can never close the element.
    assert "</script><script>window.__pwned" not in document and "onerror=\"window" not in document
    baseline = render(Subgraph(nodes={"a": Node("a")}), renderer=renderer).document
    assert document.count("</script") == baseline.count("</script")
    table = dict(view.tabs())["Table"]()
    assert html.escape(PAYLOAD, quote=False)[:40] in table


def test_tabs_are_filled_when_first_shown(shell, demo):
    view = run(shell, "%gcypher MATCH (p:Person) RETURN p").show()
    tab = view.widget
    assert type(tab.children[0]).__name__ == "GraphCanvas"
    assert tab.children[1].children == ()  # the table is not made or sent until its tab is opened
    tab.selected_index = 1
    table = tab.children[1].children[0].value
    assert table == dict(view.tabs())["Table"]() and "Alice Chen" in table


def test_pyvis_renderer_is_offline_and_carries_the_graph(shell, demo):
    result = run(shell, "%%gcypher --renderer pyvis\nMATCH (p:Person)-[r:KNOWS]->(q:Person) RETURN p, r, q")
    document = result.show().drawing.document
    assert 'data-renderer="pyvis"' in document
    assert not REMOTE.search(document)
    assert "connect-src 'none'" in document and "bootstrap" not in document.lower()
    nodes = json.loads(re.search(r"new vis.DataSet\((\[.*?\])\), edges", document).group(1))
    assert {node["id"] for node in nodes} == set(result.subgraph.nodes)
    run(shell, "%config GestaltMagic.renderer = 'pyvis'")
    assert 'data-renderer="pyvis"' in run(shell, "%gcypher MATCH (p:Person) RETURN p").show().drawing.document


def test_every_setting_is_configurable_and_reaches_the_settings(shell):
    from gestalt_nb.options import SETTING_NAMES, settings

    magic = shell.magics_manager.registry["GestaltMagic"]
    assert set(magic.trait_names(config=True)) == set(SETTING_NAMES)
    run(shell, "%config GestaltMagic.static_max_nodes = 7")
    assert settings.static_max_nodes == 7
    from traitlets import TraitError

    with pytest.raises(TraitError, match="display_limit must be a positive whole number"):
        magic.display_limit = 0
    assert magic.display_limit == settings.display_limit == 100


def test_unknown_renderer_in_config_is_rejected(shell):
    from traitlets import TraitError

    with pytest.raises(TraitError):
        shell.magics_manager.registry["GestaltMagic"].renderer = "d3"


def test_show_draws_a_bare_subgraph_through_the_same_layer():
    subgraph = Subgraph(title="hand made")
    subgraph.add_node(Node("x", ("Thing",), {"name": "X"}), highlight=True)
    subgraph.add_node(Node("y", ("Thing",), {"name": "Y"}))
    subgraph.add_edge(Edge("xy", "x", "y", "LINKS"))
    view = gestalt_nb.show(subgraph, max_nodes=1)
    assert view.tab_titles == ["Graph"]
    assert view.widget is view.canvas  # one page: the canvas is the whole widget
    assert view.canvas.graph["title"] == "hand made" and [n["id"] for n in view.canvas.graph["nodes"]] == ["x"]
    assert view.canvas.graph["counts"]["nodes"] == 2 and "1 of 2 nodes" in view.canvas.graph["notes"][0]
    assert view.canvas.settings["expandable"] is False  # a bare subgraph has no database behind it
    assert "hand made" in gestalt_nb.show(subgraph, renderer="gestaltdb").drawing.document
    assert view.text().startswith("Subgraph('hand made', 2 nodes, 1 relationships)")
    assert 'src="data:image/svg+xml;base64,' in view.static_html()


def test_capped_keeps_first_seen_nodes_and_only_edges_between_them():
    subgraph = Subgraph()
    for name in "abcd":
        subgraph.add_node(Node(name))
    subgraph.add_edge(Edge("ab", "a", "b"))
    subgraph.add_edge(Edge("cd", "c", "d"))
    subgraph.add_edge(Edge("ba", "b", "a"))
    capped = subgraph.capped(2, 10)
    assert list(capped.nodes) == ["a", "b"] and set(capped.edges) == {"ab", "ba"}
    assert subgraph.capped(10, 1).edges.keys() == {"ab"}
    assert subgraph.capped(10, 10) is subgraph


def test_info_tab_shows_the_budget_and_what_bounded_the_work(shell, demo):
    shell.user_ns["who"] = {"name": "Alice Chen"}
    result = run(shell, "%%gcypher --timeout 7 --memory-limit 300MiB -P who\nMATCH (p:Person {name: $name}) RETURN p")
    info = dict(result.show().tabs())["Info"]()
    assert "7 s / 300 MiB" in info and "budget" in info and "work bounded by" in info
    assert "<code>who</code>" in info  # the -P text as it was evaluated
