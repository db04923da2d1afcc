"""Real data in and out (issue 14): networkx graphs, pandas dtypes, integer ids, undirected data,
sampling that says what it left out, shortest paths, bounded schema counts, one bulk edge write."""

from __future__ import annotations

import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from gestaltdb.graphdb import GraphDB

import gestalt_nb
from gestalt_nb.graph import ids
from gestalt_nb.graph import schema as graph_schema
from gestalt_nb.graph.explorer import Explorer
from gestalt_nb.graph.retrieval import parse_hop, retrieve

from .conftest import raw, run


@pytest.fixture
def empty(shell, tmp_path):
    run(shell, f"%gestalt create {tmp_path / 'real'}")
    return gestalt_nb.connection()


def degree(connection, node_id, kind):
    return connection.db.count_typed_adjacency(node_id, kind, "any")


# -- 8. networkx in and out --------------------------------------------------------------
@pytest.mark.parametrize(
    "make, options",
    [
        (nx.karate_club_graph, {"label": "Member", "type": "KNOWS"}),
        (nx.les_miserables_graph, {"label": "Character", "type": "APPEARS_WITH"}),
        (nx.florentine_families_graph, {"label": "Family", "type": "MARRIED"}),
        (nx.davis_southern_women_graph, {"label": {0: "Woman", 1: "Event"}, "label_attr": "bipartite", "type": "ATTENDED"}),
    ],
)
def test_real_graphs_load_and_answer_like_networkx(empty, make, options):
    G = make()
    nodes, edges = gestalt_nb.from_networkx(G, **options)
    assert (nodes.created, edges.created) == (G.number_of_nodes(), G.number_of_edges())
    kind = options["type"]
    for node in list(G.nodes)[:12]:
        stored = ids.resolve(empty.db, node)
        assert degree(empty, stored, kind) == G.degree(node)
        rows = gestalt_nb.run(f"MATCH (n {{id: $id}})-[:{kind}]-(m) RETURN m", {"id": stored}, limit=500)
        assert {ids.as_loaded(row["m"]["id"]) for row in rows} == set(G.neighbors(node))
    back = gestalt_nb.run(f"MATCH (a)-[r:{kind}]->(b) RETURN a, r, b", limit=5000).to_networkx(directed=False, multigraph=False)
    assert {frozenset(edge) for edge in back.edges} == {frozenset(edge) for edge in G.edges}
    if "label_attr" in options:
        women = raw(empty, "MATCH (n:Woman) RETURN count(n) AS c")[0]["c"]
        assert women == sum(1 for _, side in G.nodes(data="bipartite") if side == 0)


def test_attributes_direction_and_parallel_edges_round_trip(empty):
    G = nx.MultiDiGraph()
    G.add_node("a", size=3, tags=["x"])
    G.add_node("b")  # no attributes at all
    G.add_edge("a", "b", weight=1.5)
    G.add_edge("a", "b", weight=2.5)
    G.add_edge("b", "a", weight=0.5)
    with pytest.warns(gestalt_nb.GestaltWarning, match="1 pairs appear in both directions"):
        gestalt_nb.from_networkx(G, label="Thing", type="LINKS")
    result = gestalt_nb.run("MATCH (x)-[r:LINKS]->(y) RETURN x, r, y")
    back = result.to_networkx(labels=None)
    assert back.is_directed() and back.is_multigraph()
    assert back.nodes["a"] == {"size": 3, "tags": ["x"]} and back.nodes["b"] == {}
    assert sorted(d["weight"] for _, _, d in back.edges("a", data=True)) == [1.5, 2.5]
    assert [d["weight"] for _, _, d in back.in_edges("a", data=True)] == [0.5]
    nodes, edges = result.nodes_df(), result.edges_df()
    assert list(nodes.columns) == ["id", "labels", "size", "tags"] and set(nodes["id"]) == {"a", "b"}
    assert list(edges.columns) == ["id", "source", "target", "type", "weight"] and sorted(edges["weight"]) == [0.5, 1.5, 2.5]


def test_an_edge_type_attribute_must_be_named(empty):
    G = nx.Graph([(1, 2, {"type": "strong"})])
    with pytest.raises(gestalt_nb.GestaltError, match="type_attr='type'"):
        gestalt_nb.from_networkx(G)
    gestalt_nb.from_networkx(G, type_attr="type")
    assert gestalt_nb.connection().db.count_edges_by_type("strong") == 1


# -- 1. integer ids as written ----------------------------------------------------------------
def test_integer_ids_work_as_written_in_queries_explorer_and_retrieval(shell, empty):
    gestalt_nb.from_networkx(nx.karate_club_graph(), label="Member", type="KNOWS")
    found = run(shell, "%%gcypher\nMATCH (n:Member {id: 0}) RETURN n")
    assert len(found) == 1 and any("matched as stored" in note for note in found.notes)
    assert found.df["n"][0].startswith("(0:Member")
    assert len(gestalt_nb.run("MATCH (n:Member) WHERE id(n) = 33 RETURN n")) == 1
    assert len(gestalt_nb.run("MATCH (n:Member) WHERE n.id = 33 RETURN n")) == 1
    assert len(gestalt_nb.run("MATCH (n:Member) WHERE id(n) IN [0, 1, 2] RETURN n")) == 3
    assert gestalt_nb.run("MATCH (n:Member {id: 5}) RETURN id(n) AS i").df["i"].tolist() == [5]
    assert len(gestalt_nb.run("MATCH (n:Member {name: '0'}) RETURN n")) == 0  # strings untouched
    view = run(shell, "%gexplore 0")
    assert 0 in view.explorer.subgraph.nodes and "__lc_int__:0" not in view.explorer.subgraph.nodes  # as loaded
    result = run(shell, "%gretrieve x --seed-ids 0 --hop KNOWS:any:50")
    assert len(result.documents) == 1 + nx.karate_club_graph().degree(0)


def test_only_integer_literals_in_id_positions_are_rewritten():
    text, rewritten = ids.rewrite(
        "MATCH (a:M {id: 0, name: 'id(n) = 1'})-[:T {id: 7}]->(b) // id(b) = 2\n"
        "WHERE id(b) IN [3, 4] AND b.id <> 5 AND b.size = 6 RETURN collect({id: 8}) AS x, b.id = 9.5 AS y"
    )
    assert rewritten == [0, 3, 4, 5]
    assert "{id: '__lc_int__:0', name: 'id(n) = 1'}" in text and "[:T {id: 7}]" in text and "// id(b) = 2" in text
    assert "IN ['__lc_int__:3', '__lc_int__:4']" in text and "b.id <> '__lc_int__:5'" in text
    assert "b.size = 6" in text and "{id: 8}" in text and "9.5" in text
    assert ids.rewrite("MATCH (n) RETURN n") == ("MATCH (n) RETURN n", [])


def test_loading_integer_ids_says_how_they_are_stored_and_keeps_the_number(empty):
    loaded = gestalt_nb.load_nodes(pd.DataFrame({"member": [2, 10, 1]}), id="member", label="M")
    assert any("__lc_int__:N" in note for note in loaded.notes) and "__lc_int__" in repr(loaded)
    ordered = gestalt_nb.run("MATCH (n:M) RETURN n.member AS m ORDER BY n.member").df["m"].tolist()
    assert ordered == [1, 2, 10]


# -- 2. undirected data -------------------------------------------------------------------------
def test_reversed_duplicates_warn_and_directed_false_stores_one_per_pair(empty):
    gestalt_nb.load_nodes(pd.DataFrame({"id": ["a", "b", "c"]}), id="id", label="P")
    both = pd.DataFrame({"s": ["a", "b", "a"], "t": ["b", "a", "c"]})
    with pytest.warns(gestalt_nb.GestaltWarning, match="1 pairs appear in both directions.*directed=False"):
        gestalt_nb.load_edges(both, source="s", target="t", type="DIRECTED")
    assert degree(empty, "a", "DIRECTED") == 3
    with pytest.warns(gestalt_nb.GestaltWarning, match="merged"):
        result = gestalt_nb.load_edges(both, source="s", target="t", type="UNDIRECTED", directed=False)
    assert result.created == 2 and degree(empty, "a", "UNDIRECTED") == 2 and degree(empty, "b", "UNDIRECTED") == 1
    again = gestalt_nb.load_edges(both.iloc[[1]], source="s", target="t", type="UNDIRECTED", directed=False)
    assert (again.created, again.unchanged) == (0, 1)


# -- 3. a `type` column ------------------------------------------------------------------------
def test_an_edge_type_column_is_refused_not_overwritten(empty):
    gestalt_nb.load_nodes(pd.DataFrame({"id": ["a", "b"]}), id="id", label="P")
    frame = pd.DataFrame({"s": ["a"], "t": ["b"], "type": ["strong"]})
    with pytest.raises(gestalt_nb.GestaltError, match="column 'type' would be overwritten"):
        gestalt_nb.load_edges(frame, source="s", target="t", type="TIE")
    assert empty.db.count_edges_by_type("TIE") == 0
    gestalt_nb.load_edges(frame.rename(columns={"type": "strength"}), source="s", target="t", type="TIE")
    assert raw(empty, "MATCH ()-[r:TIE]->() RETURN r.strength AS s")[0]["s"] == "strong"


# -- 4. pandas types ---------------------------------------------------------------------------
def test_nullable_dtypes_keep_their_type_and_na_is_left_out(empty):
    frame = pd.DataFrame(
        {
            "id": ["a", "b"],
            "n": pd.array([3, None], dtype="Int64"),
            "ok": pd.array([True, None], dtype="boolean"),
            "s": pd.array(["x", pd.NA], dtype="string"),
            "f": [1.0, np.nan],
        }
    )
    gestalt_nb.load_nodes(frame, id="id", label="P")
    a, b = (raw(empty, "MATCH (n {id: $i}) RETURN n", {"i": i})[0]["n"].properties for i in ("a", "b"))
    assert a == {"n": 3, "ok": True, "s": "x", "f": 1.0} and type(a["n"]) is int and type(a["f"]) is float
    assert b == {}


def test_unstorable_values_name_their_row_and_column(empty):
    with pytest.raises(gestalt_nb.GestaltError, match=r"row 1, column 'id': the id is empty or missing"):
        gestalt_nb.load_nodes(pd.DataFrame({"id": pd.array(["a", pd.NA], dtype="string")}), id="id", label="P")
    assert raw(empty, "MATCH (n) RETURN count(n) AS c")[0]["c"] == 0  # infinities are stored: tests/test_nonfinite.py


def test_mixed_types_and_mixed_ids_warn(empty):
    with pytest.warns(gestalt_nb.GestaltWarning, match="Column 'v' mixes types"):
        gestalt_nb.load_nodes(pd.DataFrame({"id": ["a", "b", "c"], "v": [1, "two", 3.5]}), id="id", label="P")
    assert raw(empty, "MATCH (n {id: 'b'}) RETURN n.v AS v")[0]["v"] == "two"
    with pytest.warns(gestalt_nb.GestaltWarning, match="300 \\(integer\\) and '300' \\(text\\) are two different nodes"):
        gestalt_nb.load_nodes(pd.DataFrame({"id": [300, "300"]}, dtype=object), id="id", label="Q")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gestalt_nb.load_nodes(pd.DataFrame({"id": ["x"], "tags": [["a", "b"]], "w": [1.5]}), id="id", label="R")


# -- 6. sampling that says what it left out --------------------------------------------------------
def test_explorer_says_what_a_sample_left_out_and_can_expand_all(empty):
    gestalt_nb.from_networkx(nx.les_miserables_graph(), label="Character", type="APPEARS_WITH")
    explorer = Explorer(empty, node_budget=200)
    explorer.start("Valjean")
    assert explorer.expand(direction="both") == 10
    assert explorer.subgraph.truncated and explorer.left_out == 26
    assert any("Drew 10 of 36 neighbours" in note for note in explorer.subgraph.notes)
    assert explorer.expand_all() == 26 and len(explorer.subgraph.nodes) == 37
    assert explorer.left_out == 0 and not explorer.subgraph.truncated
    small = Explorer(empty, node_budget=5, sample_size=None)
    small.start("Valjean")
    small.expand(direction="both")
    assert len(small.subgraph.nodes) == 5 and "Node budget reached (5)" in " ".join(small.subgraph.notes)
    assert explorer.max_sample_size == 200


def test_retrieval_says_what_a_hop_sample_left_out_and_can_draw_all(empty):
    gestalt_nb.from_networkx(nx.les_miserables_graph(), label="Character", type="APPEARS_WITH")
    retriever = empty.retriever(seed_ids=("Valjean",), hops=(parse_hop("APPEARS_WITH:any"),))
    result = retrieve(empty, retriever, "q")
    assert result.truncated and result.sampling[0]["drawn"] == 10 and result.sampling[0]["total"] == 36
    assert any("drew 10 of 36 relationships" in note for note in result.subgraph.notes)
    everything = result.expand_all()
    assert len(everything.documents) == 37 and not everything.truncated


# -- 7. shortest paths ---------------------------------------------------------------------------
def test_shortest_path_matches_networkx_and_draws(empty):
    G = nx.karate_club_graph()
    gestalt_nb.from_networkx(G, label="Member", type="KNOWS")
    for a, b in ((0, 33), (16, 25), (5, 9)):
        result = gestalt_nb.shortest_path(a, b)
        assert result.records[0]["hops"] == nx.shortest_path_length(G, a, b)
        assert {0 if a == 0 else a, b} <= {ids.as_loaded(n) for n in result.subgraph.nodes}
    assert len(gestalt_nb.shortest_path(0, 33, all_shortest=True)) == len(list(nx.all_shortest_paths(G, 0, 33)))
    G.add_node(99)
    gestalt_nb.from_networkx(nx.Graph([(98, 99)]), label="Member", type="OTHER")
    none = gestalt_nb.shortest_path(0, 99, types=["KNOWS"], max_hops=3)
    assert len(none) == 0 and "No path from 0 to 99 within 3 hops" in none.notes[-1]
    with pytest.raises(gestalt_nb.GestaltError, match="No node with id 1234"):
        gestalt_nb.shortest_path(0, 1234)


def test_shortest_path_respects_direction(empty):
    gestalt_nb.from_networkx(nx.DiGraph([("a", "b"), ("b", "c")]), label="N", type="TO")
    assert gestalt_nb.shortest_path("a", "c", direction="out").records[0]["hops"] == 2
    assert len(gestalt_nb.shortest_path("c", "a", direction="out")) == 0
    assert gestalt_nb.shortest_path("c", "a", direction="in").records[0]["hops"] == 2
    assert gestalt_nb.shortest_path("c", "a").records[0]["hops"] == 2


# -- scale: bounded schema counts, one bulk edge write ---------------------------------------------
def test_schema_counts_are_bounded_unless_exhaustive(empty, monkeypatch):
    gestalt_nb.from_networkx(nx.karate_club_graph(), label="Member", type="KNOWS")
    monkeypatch.setattr(graph_schema, "COUNT_BOUND", 20)
    bounded = gestalt_nb.schema(refresh=True)
    assert bounded.labels_df["nodes"].tolist() == ["> 20"] and "Counts stop at 20" in bounded.note()
    exact = gestalt_nb.schema(exhaustive=True)
    assert exact.labels_df["nodes"].tolist() == [34] and exact.type_counts == {"KNOWS": 78}


def test_a_load_writes_its_new_edges_in_one_bulk_call(empty, monkeypatch):
    n = 10_000
    gestalt_nb.load_nodes(pd.DataFrame({"id": [f"p{i}" for i in range(n)]}), id="id", label="P")
    calls = []
    original, merge = GraphDB.ingest_arrow, GraphDB.put_edges_bulk

    def counted(self, node_ids, edge_ids, *args, **kwargs):
        calls.append(len(edge_ids))
        return original(self, node_ids, edge_ids, *args, **kwargs)

    def merged(self, edges, check_existing=True):
        calls.append(("merge", len(edges)))
        return merge(self, edges, check_existing=check_existing)

    monkeypatch.setattr(GraphDB, "ingest_arrow", counted)  # new relationships: GestaltDB's columnar ingestion, once
    monkeypatch.setattr(GraphDB, "put_edges_bulk", merged)
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"s": [f"p{i}" for i in rng.integers(0, n, 30_000)], "t": [f"p{i}" for i in rng.integers(0, n, 30_000)], "id": [f"e{j}" for j in range(30_000)]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gestalt_nb.GestaltWarning)
        gestalt_nb.load_edges(frame, source="s", target="t", type="T", id="id")
    assert calls == [30_000]
