"""Exports that always open, whatever text the graph holds.

``canvas.to_cypher()`` round-trips nodes and relationships whose ids, labels, types and values are
generated Unicode — emoji and other characters outside the Basic Multilingual Plane, CJK, quotes,
backticks, backslashes, newlines, NUL — through a real LMDB database (the query run as a plain call and
as the ``%%gcypher`` cell it offers). Every SVG the kernel makes (the static picture, the snapshot of
what a page showed) parses with an XML parser when a caption holds a NUL and other characters XML
forbids, and shows them as visible stand-ins. (The canvas's own SVG download: tests/test_canvas_out_browser.py.)
"""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest
from gestaltdb.graphdb import Edge, Node

import gestalt_nb
from gestalt_nb.graph.subgraph import Subgraph
from gestalt_nb.render.xmltext import xml_safe, xml_text

from .conftest import run
from .test_canvas_out import report

SPECIAL = ['"', "'", "`", "\\", "\n", "\r", "\t", "\x00", "\x01", "\u2028", "{", "}", "$", "/*", "//", " "]
RANGES = [(0x1F300, 0x1FAFF), (0x4E00, 0x9FFF), (0x20000, 0x2A6DF), (0x0600, 0x06FF), (0x00C0, 0x024F), (0x0300, 0x036F)]


def generated(rng: random.Random, length: int) -> str:
    chars = []
    for _ in range(length):
        pick = rng.random()
        if pick < 0.35:
            chars.append(rng.choice(SPECIAL))
        elif pick < 0.45:
            chars.append(rng.choice("abcXYZ019_"))
        else:
            low, high = rng.choice(RANGES)
            chars.append(chr(rng.randint(low, high)))
    return "".join(chars)


def unicode_graph(connection, seed: int = 30, count: int = 40):
    """``count`` nodes and a chain plus a star of relationships, every id, label, type and value generated."""
    rng = random.Random(seed)
    ids = list(dict.fromkeys([generated(rng, rng.randint(1, 10)) for _ in range(count)] + ["😀", "中文𠀀", 'q"`\n\\']))
    types = ["KNOWS", "WITH SPACE", "BACK`TICK", "😀TYPE", "NEW\nLINE", generated(rng, 6)]
    nodes = [Node(node_id, labels=[generated(rng, 5)], properties={"name": generated(rng, 8), generated(rng, 4): generated(rng, 12)})
             for node_id in ids]
    edges = [Edge(f"e{k}{generated(rng, 3)}", ids[k], ids[k + 1], properties={"type": types[k % len(types)], "why": generated(rng, 6)})
             for k in range(len(ids) - 1)]
    edges += [Edge(f"s{k}😀", ids[0], ids[k], properties={"type": types[(k + 2) % len(types)]}) for k in range(2, len(ids), 3)]
    with connection.db.transaction() as tx:
        tx.put_nodes(nodes)
        tx.put_edges_bulk(edges, check_existing=False)
    connection.graph.refresh_schema()
    return nodes, edges


def drawn(connection, nodes, edges):
    subgraph = Subgraph()
    for node in connection.run("MATCH (n) RETURN n", limit=1000).subgraph.nodes.values():
        subgraph.add_node(node)
    for kind in sorted({edge.properties["type"] for edge in edges}):
        name = "`" + kind.replace("`", "``") + "`"
        found = connection.run(f"MATCH (a)-[r:{name}]->(b) RETURN a, r, b", limit=1000).subgraph
        for edge in found.edges.values():
            subgraph.add_edge(edge)
    assert set(subgraph.nodes) == {node.get_id for node in nodes} and len(subgraph.edges) == len(edges)
    return gestalt_nb.show(subgraph).canvas


def test_to_cypher_round_trips_generated_unicode_ids_labels_types_and_values(shell, tmp_path):
    connection = gestalt_nb.create(str(tmp_path / "unicode"), alias="unicode")
    nodes, edges = unicode_graph(connection)
    canvas = drawn(connection, nodes, edges)
    hidden = nodes[3].get_id
    report(canvas, hidden=[hidden])
    query = canvas.to_cypher()
    assert "\\ud83d" not in query.lower() and "😀" in query, "astral characters as themselves, never surrogate escapes"
    assert not query.params, "ids written inline"
    want_nodes = set(canvas.subgraph.nodes) - {hidden}
    want_edges = {e.id for e in canvas.subgraph.edges.values() if hidden not in (e.source, e.target)}
    result = connection.run(query, query.params, limit=max(query.rows, 1))
    assert set(result.subgraph.nodes) == want_nodes and set(result.subgraph.edges) == want_edges
    by_id = {node.get_id: node for node in nodes}
    for node in result.subgraph.nodes.values():
        assert node.labels == by_id[node.id].labels and node.properties == by_id[node.id].properties, repr(node.id)
    kinds = {edge.get_id: edge.properties["type"] for edge in edges}
    assert {edge.id: edge.type for edge in result.subgraph.edges.values()} == {k: kinds[k] for k in want_edges}
    cell = run(shell, query.cell())  # the %%gcypher cell it offers runs the same
    assert set(cell.subgraph.nodes) == want_nodes and set(cell.subgraph.edges) == want_edges


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_to_cypher_with_ids_as_parameters_round_trips_too(shell, tmp_path, seed):
    connection = gestalt_nb.create(str(tmp_path / f"unicode{seed}"), alias=f"unicode{seed}")
    nodes, edges = unicode_graph(connection, seed=seed, count=30)
    canvas = drawn(connection, nodes, edges)
    from gestalt_nb.canvas import cypher

    saved, cypher.QUERY_CHARS = cypher.QUERY_CHARS, 400  # too long to write inline: the ids go as parameters
    try:
        query = canvas.to_cypher()
    finally:
        cypher.QUERY_CHARS = saved
    assert query.params
    result = connection.run(query, query.params, limit=max(query.rows, 1))
    assert set(result.subgraph.nodes) == set(canvas.subgraph.nodes) and set(result.subgraph.edges) == set(canvas.subgraph.edges)
    cell = run(shell, query.cell())
    assert set(cell.subgraph.nodes) == set(canvas.subgraph.nodes)


NUL_CAPTION = "before\x00after\x0b\x1f\ufffeend"


def nul_subgraph() -> Subgraph:
    from gestalt_nb.graph.subgraph import Edge as DrawnEdge
    from gestalt_nb.graph.subgraph import Node as DrawnNode

    subgraph = Subgraph(title="a NUL\x00 in the title")
    subgraph.add_node(DrawnNode("plain", ["Person"], {"name": "plain"}))
    subgraph.add_node(DrawnNode("nul\x00id", ["Per\x00son"], {"name": NUL_CAPTION}))
    subgraph.add_node(DrawnNode("😀", ["Emoji"], {"name": "😀 <b>&amp;</b>"}))
    subgraph.add_edge(DrawnEdge("e1", "plain", "nul\x00id", "KNOWS", {}))
    subgraph.add_edge(DrawnEdge("e2", "plain", "😀", "KNOWS", {}))
    return subgraph


def texts(svg: str) -> list[str]:
    root = ET.fromstring(svg)  # raises on a document that is not well-formed
    return [element.text or "" for element in root.iter() if element.tag.endswith("text")]


def test_every_svg_parses_with_a_nul_in_a_caption(shell):
    shown = gestalt_nb.show(nul_subgraph())
    static = shown.drawing.svg()
    found = texts(static)
    assert "before\u2400after\u240b\u241f\ufffdend" in found, found
    assert "😀 <b>&amp;</b>" in found and "Per\u2400son" in found
    canvas = shown.canvas
    report(canvas)
    for svg in (canvas.snapshot("svg"), shown.drawing.svg()):
        found = texts(svg)
        assert "before\u2400after\u240b\u241f\ufffdend" in found, found
        ids = [element.get("data-id") for element in ET.fromstring(svg).iter() if element.get("data-id") is not None]
        assert sorted(ids) == sorted(["plain", "nul\u2400id", "😀"])


def test_xml_text_replaces_only_what_xml_forbids():
    kept = "tab\tnewline\nreturn\r😀中文 del\x7f \u2028 \ue000 \ufffd"
    assert xml_safe(kept) == kept
    assert xml_safe("\x00\x08\x0b\x0c\x0e\x1f") == "\u2400\u2408\u240b\u240c\u240e\u241f"
    assert xml_safe("a\ud800b\udfffc\ufffe\uffff") == "a\ufffdb\ufffdc\ufffd\ufffd"
    assert xml_text('<a href="x">&\x00</a>') == "&lt;a href=&quot;x&quot;&gt;&amp;\u2400&lt;/a&gt;"
    for code in range(0x20):
        ET.fromstring(f"<t a=\"{xml_text(chr(code))}\">{xml_text(chr(code) * 2)}</t>")
