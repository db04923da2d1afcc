"""The canvas payload's fast path (plain properties sent as they are) gives what the full path gives;
a read's subgraph taken from its reader is the one walking the rows finds; the cycle collector is paused
only while a result is built."""

from __future__ import annotations

import gc
import gzip
import json
import math
import weakref

import pytest
from gestaltdb.graphdb import Edge as EngineEdge
from gestaltdb.graphdb import GraphDB
from gestaltdb.graphdb import Node as EngineNode

from gestalt_nb.canvas.payload import CAPTION_CHARS, MAX_PROPERTIES, VALUE_CHARS, Vocabulary, _properties, as_rows, compact_json, payload
from gestalt_nb.canvas.widget import GraphCanvas
from gestalt_nb.graph.rows import Rows
from gestalt_nb.graph.subgraph import Edge, Node, Subgraph, building
from gestalt_nb.graph.values import display_properties
from gestalt_nb.render.captions import caption
from gestalt_nb.shorten import shorten

PROPERTIES = [
    {},
    {"name": "Ann", "age": 41, "ok": True, "score": 2.5, "none": None},
    {"name": "Ann", "__name_lc": "ann", "__mem_vectors": [0.1] * 50},
    {"__name_lc": "only bookkeeping"},
    {"name": "x" * (VALUE_CHARS + 5)},
    {"name": "x" * VALUE_CHARS},
    {"k" * 150: 1},
    {"nan": math.nan, "inf": math.inf, "minus": -math.inf},
    {"tags": ["a", 1], "m": {"x": {"y": None}}},
    {"when": {"$type": "TemporalDate", "value": "2021-05-06"}, "name": "dated"},
    {f"p{number}": number for number in range(MAX_PROPERTIES + 3)},
    {f"p{number}": number for number in range(MAX_PROPERTIES)} | {"__name_lc": "x"},
    {"name": 7},
    {"name": "<script>alert(1)</script>"},
]


def _node_before(vocabulary: Vocabulary, node: Node, caption_property: str, highlighted: bool) -> dict:
    """The payload's node as it was made before the fast path (every node through the full path)."""
    shown = display_properties(node.properties)
    item = {"id": vocabulary.key(node.id), "c": shorten(caption(node.id, shown, caption_property), CAPTION_CHARS),
            "l": vocabulary._index(vocabulary.labels, node.labels[0] if node.labels else "")}
    if len(node.labels) > 1:
        item["L"] = list(node.labels[1:])
    if highlighted:
        item["h"] = 1
    if shown:
        item["p"] = _properties(shown)
    return item


def _edge_before(vocabulary: Vocabulary, edge: Edge) -> dict:
    item = {"id": edge.id, "s": vocabulary.key(edge.source), "t": vocabulary.key(edge.target), "y": vocabulary._index(vocabulary.types, edge.type)}
    properties = {key: value for key, value in edge.properties.items() if key != "type" or value != edge.type}
    if properties:
        item["p"] = _properties(display_properties(properties))
    return item


@pytest.mark.parametrize("properties", PROPERTIES)
def test_a_node_and_a_relationship_are_sent_as_the_full_path_makes_them(properties):
    node = Node("__lc_int__:5" if "nan" in properties else "n1", ("Person", "Admin") if properties else (), properties)
    now, then = Vocabulary(), Vocabulary()
    for caption_property in ("name", "age", "missing"):
        assert repr(now.node(node, caption_property, True)) == repr(_node_before(then, node, caption_property, True))
    edge = Edge("e1", "n1", "n2", "KNOWS", {"type": "KNOWS", **properties})
    assert repr(Vocabulary().edge(edge, False)) == repr(_edge_before(Vocabulary(), edge))
    other = Edge("e2", "n1", "n2", "LIKES", {"type": "KNOWS"})  # a type property that is not the type: kept
    assert Vocabulary().edge(other, False)["p"] == {"type": "KNOWS"}


def test_the_payload_goes_out_as_the_bytes_json_writes():
    """orjson's bytes are json's (compact, UTF-8) for every property shape; what orjson refuses, json writes."""
    subgraph = Subgraph()
    for number, properties in enumerate(PROPERTIES):
        subgraph.add_node(Node(f"n{number}", ("Person", "Ünïcode 🙂"), properties))
        subgraph.add_edge(Edge(f"e{number}", f"n{number}", "n0", "KNOWS", properties))
    graph = payload(subgraph, Vocabulary(), "name")
    assert compact_json(graph) == json.dumps(graph, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    refused = {"big": 2**70, 5: "an integer key", "set": {1}}
    assert json.loads(compact_json(refused)) == {"big": 2**70, "5": "an integer key", "set": "{1}"}
    assert compact_json({"x": math.nan}) == b'{"x":null}'  # json would write NaN, which JSON.parse refuses
    assert json.loads(compact_json({"odd": "a\ud800b", "é": 1})) == {"odd": "a\ud800b", "é": 1}  # a lone surrogate, escaped
    odd = Subgraph()
    odd.add_node(Node("n1", ("Person",), {"name": "a\ud800b"}))  # JSON text may hold one; the canvas drew nothing before
    assert GraphCanvas(odd).graph["nodes"][0]["c"] == "a\ud800b"


def test_plain_properties_go_out_unchanged_and_bookkeeping_stays_out():
    node = Node("a", ("Person",), {"name": "Ann", "__name_lc": "ann"})
    item = Vocabulary().node(node, "name", False)
    assert item["p"] == {"name": "Ann"} and node.properties == {"name": "Ann", "__name_lc": "ann"}  # the node's own dict untouched
    plain = Node("b", ("Person",), {"name": "Bo"})
    assert Vocabulary().node(plain, "name", False)["p"] is plain.properties  # sent as it is: no copy per node


def test_labels_and_types_are_numbered_in_first_seen_order():
    subgraph = Subgraph()
    for number, label in enumerate(["B", "A", "B", "C", "A"]):
        subgraph.add_node(Node(f"n{number}", (label,), {}))
    for number, kind in enumerate(["Y", "X", "Y"]):
        subgraph.add_edge(Edge(f"e{number}", "n0", f"n{number + 1}", kind, {"type": kind}))
    graph = payload(subgraph, Vocabulary(), "name")
    assert [item["l"] for item in graph["nodes"]] == [0, 1, 0, 2, 1] and [label["name"] for label in graph["labels"]] == ["B", "A", "C"]
    assert graph["ec"]["y"] == [0, 1, 0] and graph["types"] == ["Y", "X"]
    assert [item["y"] for item in as_rows(graph)["edges"]] == [0, 1, 0]


def mixed_subgraph(marked: str) -> Subgraph:
    """Relationships of every kind the columns carry: plain, with properties (plain and not), parallel, a self-loop,
    integer ids, an overview's super-edge with its count, one whose end is not drawn; ``marked``: none, some, all."""
    subgraph = Subgraph()
    for node_id in ("__lc_int__:0", "0", "n1", "n2", "grp"):
        subgraph.add_node(Node(node_id, ("P",), {"name": f"N {node_id}"}))
    subgraph.groups["grp"] = {"group": 0, "size": 9}
    edges = [
        Edge("e1", "__lc_int__:0", "n1", "K", {"type": "K"}),
        Edge("e2", "n1", "n2", "K", {"type": "K", "since": 2001, "note": "x" * (VALUE_CHARS + 9)}),
        Edge("e3", "n1", "n2", "L", {"type": "L", "tags": ["a", 1]}),
        Edge("e4", "n2", "n2", "K", {"type": "K"}),
        Edge("e5", "0", "gone", "K", {"type": "K"}),  # its end is not drawn: kept apart, as a dict
        Edge("e6", "grp", "n1", "LINKS", {"type": "LINKS", "relationships": 7}),
        Edge("e7", "0", "__lc_int__:0", "M", {"type": "other"}),
    ]
    for number, edge in enumerate(edges):
        subgraph.add_edge(edge, highlight=marked == "all" or (marked == "some" and number % 2 == 0))
    return subgraph


@pytest.mark.parametrize("marked", ["none", "some", "all"])
def test_relationships_in_columns_are_exactly_the_dicts(marked):
    """The columns read back give each relationship's dict as ``columns=False`` makes it; the node list, labels
    and types are the same; only the relationship whose end is not drawn stays a dict."""
    subgraph = mixed_subgraph(marked)
    packed, rows = payload(subgraph, Vocabulary(), "name"), payload(subgraph, Vocabulary(), "name", columns=False)
    assert [item["id"] for item in packed["edges"]] == ["e5"] and len(packed["ec"]["id"]) == 6
    assert packed["ec"].get("h") == {"none": None, "some": [0, 2, 5], "all": 1}[marked]  # e1, e3, e7 (e5 is apart)
    drawn = [item for item in rows["edges"] if item["id"] != "e5"] + [item for item in rows["edges"] if item["id"] == "e5"]
    assert as_rows(packed) == {**rows, "edges": drawn}
    assert {key: value for key, value in packed.items() if key not in ("ec", "edges")} == {key: value for key, value in rows.items() if key != "edges"}
    assert as_rows(rows) is rows  # a payload of dicts (a delta's shape, an old notebook's) is left as it is


def test_a_canvas_sends_columns_and_reads_back_dicts():
    """What the page gets is in columns and smaller; ``canvas.graph`` still gives a dict per relationship."""
    subgraph = Subgraph()
    for number in range(300):
        subgraph.add_node(Node(f"p{number}", ("Person",), {"name": f"Person {number}"}), highlight=True)
    for number in range(300):
        for step in (1, 7):
            subgraph.add_edge(Edge(f"e{number}-{step}", f"p{number}", f"p{(number + step) % 300}", "KNOWS", {"type": "KNOWS"}), highlight=True)
    canvas = GraphCanvas(subgraph, max_nodes=300, max_edges=600)
    try:
        sent = json.loads(gzip.decompress(canvas.graph_gz))
        assert sent["edges"] == [] and sent["ec"]["h"] == 1 and sent["ec"]["s"][:2] == [0, 0] and sent["ec"]["t"][:2] == [1, 7]
        assert canvas.graph == {**payload(canvas.subgraph, Vocabulary(), "name", columns=False), "view": canvas.view_state}
        as_dicts = json.dumps(payload(canvas.subgraph, Vocabulary(), "name", columns=False), separators=(",", ":"))
        assert len(json.dumps(sent, separators=(",", ":"))) < 0.8 * len(as_dicts)
    finally:
        canvas.close()


@pytest.fixture
def engine(tmp_path):
    db = GraphDB.create(tmp_path / "g", backend="lmdb")
    db.put_nodes([EngineNode(f"p{i}", labels=["P"], properties={"name": f"P {i}", "__name_lc": f"p {i}"}) for i in range(6)])
    db.put_edges_bulk([EngineEdge(f"e{i}", f"p{i}", f"p{(i + 1) % 6}", properties={"type": "K", "w": i}) for i in range(6)], check_existing=False)
    yield db
    db.close()


def _walked(rows: Rows) -> Subgraph:
    rows._found = None  # the rows walked again, as any rows that are not a plain read are
    return rows.subgraph()


@pytest.mark.parametrize("query, exact", [
    ("MATCH (a:P)-[r:K]->(b:P) RETURN b, r, a", True),
    ("MATCH p = (a:P)-[:K*1..2]->(b:P) RETURN p, [a, b] AS pair", True),
    ("MATCH (a:P)-[r:K]->(b:P) RETURN {a: a, r: r} AS m, b", False),
])
def test_a_reads_subgraph_from_its_reader_is_the_walked_one(engine, query, exact):
    rows = Rows.from_engine(engine.query(query).records)
    assert (rows._found is not None) is exact
    taken, walked = rows.subgraph(title="t"), _walked(Rows.from_engine(engine.query(query).records))
    assert list(taken.nodes.items()) == list(walked.nodes.items()) and list(taken.edges.items()) == list(walked.edges.items())
    assert (taken.highlight_nodes, taken.highlight_edges) == (walked.highlight_nodes, walked.highlight_edges) and taken.title == "t"
    again = rows.subgraph()  # a second call walks the rows: the same again
    assert list(again.nodes) == list(taken.nodes) and again.nodes is not taken.nodes


def test_a_writes_rows_are_walked(engine):
    rows = Rows.from_engine(engine.query("MATCH (a:P) RETURN a").records, same_state=False)
    assert rows._found is None and len(rows.subgraph().nodes) == 6


def test_the_collector_is_paused_only_while_building():
    assert gc.isenabled()
    with building():
        assert not gc.isenabled()
        with building():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outermost build resumes it
    assert gc.isenabled()
    with pytest.raises(KeyError), building():
        raise KeyError("a build that fails")
    assert gc.isenabled()
    gc.disable()
    try:
        with building():
            pass
        assert not gc.isenabled()  # paused by someone else: left paused
    finally:
        gc.enable()


def test_what_a_build_made_goes_to_the_oldest_generation_unwalked_and_stays_collectable():
    """After a build its objects are in the oldest generation (no young collection walks them again), none is
    left frozen, and a cycle made inside it is still freed by a full collection."""
    with building():
        made = [[number] for number in range(2000)]
    marker = id(made[0])
    assert gc.get_freeze_count() == 0
    assert marker not in {id(item) for item in gc.get_objects(generation=0)}
    assert marker in {id(item) for item in gc.get_objects(generation=2)}
    class Holder:
        pass

    with building():
        holder = Holder()
        holder.me = holder
        gone = weakref.ref(holder)
    del holder
    gc.collect()
    assert gone() is None


def test_a_copy_to_grow_is_what_merging_into_an_empty_subgraph_makes():
    subgraph = Subgraph(title="t", truncated=True, notes=["a", "b", "a"])
    subgraph.add_node(Node("n1", ("P",), {"x": 1}), highlight=True)
    subgraph.add_edge(Edge("e1", "n1", "n1", "K", {"type": "K"}), highlight=True)
    subgraph.highlight_nodes.add("gone")
    subgraph.groups["n1"] = {"group": 0}
    copy, merged = subgraph.copy(), Subgraph(title="t", truncated=True).merge(subgraph)
    assert copy == merged and copy.nodes is not subgraph.nodes and copy.groups is not subgraph.groups
    copy.add_node(Node("n2"))
    assert "n2" not in subgraph.nodes
