"""Exports that always open, whatever text the graph holds: Cypher that round-trips and SVG that parses.

``canvas.to_cypher()`` must read back exactly the drawn nodes for ids with emoji, CJK, quotes,
backticks and newlines (``json.dumps``'s default ``\\ud83d…`` escapes are not Cypher); every SVG the
package makes must be well-formed XML with a NUL or other forbidden character in a caption.
"""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

import gestalt_nb
from gestalt_nb.canvas import GraphCanvas
from gestalt_nb.canvas.snapshot import parse as parse_shown
from gestalt_nb.graph.subgraph import Edge, Node, Subgraph
from gestalt_nb.render.static_svg import svg as static_svg
from gestalt_nb.render.xml import xml_text

AWKWARD = ["😀", "汉字𠀋", 'quo"te', "it's", "back`tick", "new\nline", "tab\there", "back\\slash", "ü-ß-é", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢"]


def generated(count: int, seed: int = 4) -> list[str]:
    rng = random.Random(seed)
    pools = [(0x20, 0x7E), (0xA0, 0x2FF), (0x4E00, 0x4E80), (0x1F300, 0x1F64F), (0x20000, 0x20050)]
    found = []
    for number in range(count):
        low, high = rng.choice(pools)
        found.append(f"g{number}-" + "".join(chr(rng.randint(low, high)) for _ in range(rng.randint(1, 6))))
    return found


def test_to_cypher_round_trips_unicode_ids(shell, tmp_path):
    connection = gestalt_nb.create(str(tmp_path / "u"), alias="u")
    ids = AWKWARD + generated(30)
    import pandas as pd

    connection.load_nodes(pd.DataFrame({"key": ids, "name": ids}), id="key", label="Thing")
    connection.load_edges(pd.DataFrame({"a": ids[:-1], "b": ids[1:]}), source="a", target="b", type="NEXT")
    drawn = connection.run("MATCH (a:Thing)-[r:NEXT]->(b:Thing) RETURN a, r, b")
    canvas = GraphCanvas(drawn.subgraph)
    query = canvas.to_cypher()
    again = connection.run(query, query.params, limit=max(query.rows, 1))
    assert set(again.subgraph.nodes) == set(drawn.subgraph.nodes) == set(ids)
    assert set(again.subgraph.edges) == set(drawn.subgraph.edges)
    assert "\\ud8" not in query  # astral characters written as themselves


def nasty_subgraph(*, surrogate: bool = False) -> Subgraph:
    """Captions with characters XML forbids (a lone surrogate only where no JSON is made: loads refuse them)."""
    graph = Subgraph()
    captions = ["nul\x00here", "bell\x07", "ff\x0c", "fffe\ufffe", "ok <b>&amp;</b>"] + (["lone\ud800"] if surrogate else [])
    for number, caption in enumerate(captions):
        graph.add_node(Node(f"n{number}\x01", ("L\x02",), {"name": caption}))
    graph.add_edge(Edge("e", "n0\x01", "n1\x01", "T"))
    return graph


def test_every_svg_parses_as_xml_with_forbidden_characters_in_captions():
    ET.fromstring(static_svg(nasty_subgraph(surrogate=True), caption_property="name"))
    graph = nasty_subgraph()
    canvas = GraphCanvas(graph)
    keys = [canvas.vocabulary.key(node_id) for node_id in graph.nodes]
    canvas.shown = parse_shown({"width": 400, "height": 300, "revision": 0, "ids": keys, "xy": [10.0 * k for k in range(2 * len(keys))],
                                "r": [4] * len(keys), "ci": [0] * len(keys), "colors": ["#336699"], "hidden": []})
    tree = ET.fromstring(canvas.snapshot("svg"))
    texts = "".join(tree.itertext())
    assert "\u2400" in texts and "<b>" in texts  # a NUL shown as its control picture, markup as text


@pytest.mark.parametrize("text", ["\x00", "a\x1fb", "\ud800", "\uffff", "ok"])
def test_xml_text_is_always_well_formed(text):
    ET.fromstring(f'<t a="{xml_text(text)}">{xml_text(text)}</t>')


def test_an_opened_groups_room_reaches_the_picture_and_a_bad_one_is_refused():
    """The page reports an overview's rooms (x, y, r, colour index); the picture draws them under the nodes, in the
    reported colour; anything else in their place is refused like the rest of a bad report."""
    graph = nasty_subgraph()
    canvas = GraphCanvas(graph)
    keys = [canvas.vocabulary.key(node_id) for node_id in graph.nodes]
    report = {"width": 400, "height": 300, "revision": 0, "ids": keys, "xy": [10.0 * k for k in range(2 * len(keys))],
              "r": [4] * len(keys), "ci": [0] * len(keys), "colors": ["#336699", "#e15759"], "hidden": [], "rooms": [120, 90, 55.5, 1]}
    canvas.shown = parse_shown(report)
    assert canvas.shown.rooms == [(120.0, 90.0, 55.5, "#e15759")]
    tree = ET.fromstring(canvas.snapshot("svg"))
    circles = [c for c in tree.iter("{http://www.w3.org/2000/svg}circle")]
    room = circles[0]  # drawn first: under every node
    assert (room.get("cx"), room.get("r"), room.get("fill")) == ("120", "55.5", "#e15759") and room.get("data-id") is None
    assert all(c.get("data-id") for c in circles[1:]) and len(circles) == len(keys) + 1
    for bad in ([1, 2, 3], [1, 2, "x", 0], "room", [1, 2, float("nan"), 0]):
        with pytest.raises(ValueError):
            parse_shown({**report, "rooms": bad})
