"""Real data, round two (issue 21, findings 1, 2, 3, 4, 7, 9): every row accounted for, ids scoped
by the loader, every relationship type followed and listed, shortest paths as a breadth-first
search, and ids shown as loaded.

The "grid" here is a small stand-in for the 9,241-bus power grid: integer bus ids, ``LINE``
relationships whose ids sort first, then a few ``TRAFO`` relationships whose ids sort after the
first 100 (the adapter's schema sample reads relationships in key order), and a ``Substation``
label whose text ids sort after the first 100 nodes.
"""

from __future__ import annotations

import warnings

import networkx as nx
import pandas as pd
import pytest

import gestalt_nb
from gestalt_nb.canvas import GraphCanvas
from gestalt_nb.graph import ids
from gestalt_nb.graph.explorer import Explorer
from gestalt_nb.graph.retrieval import parse_hop, retrieve

from .conftest import run

BUSES = 150


@pytest.fixture
def empty(shell, tmp_path):
    run(shell, f"%gestalt create {tmp_path / 'grid'}")
    return gestalt_nb.connection()


def quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gestalt_nb.GestaltWarning)
        return call(*args, **kwargs)


@pytest.fixture
def grid(empty):
    """Buses 0..149 on a chain of LINEs (ids a000..), bus 7 with two TRAFOs to substations."""
    gestalt_nb.load_nodes(pd.DataFrame({"bus": range(BUSES), "kv": [110.0] * BUSES}), id="bus", label="Bus")
    gestalt_nb.load_nodes(pd.DataFrame({"id": ["zz-sub-1", "zz-sub-2"], "name": ["North", "South"]}), id="id", label="Substation")
    lines = pd.DataFrame({"line": [f"a{i:03d}" for i in range(BUSES - 1)], "s": range(BUSES - 1), "t": range(1, BUSES)})
    gestalt_nb.load_edges(lines, source="s", target="t", type="LINE", id="line")
    trafos = pd.DataFrame({"trafo": ["t1", "t2"], "s": [7, 7], "t": ["zz-sub-1", "zz-sub-2"], "mva": [40.0, 63.0]})
    gestalt_nb.load_edges(trafos, source="s", target="t", type="TRAFO", id="trafo")
    return empty


# -- 1. rows merged in silence ------------------------------------------------------------------
def test_rows_merged_into_an_identical_relationship_are_counted_and_warned(empty):
    gestalt_nb.load_nodes(pd.DataFrame({"id": ["a", "b", "c"]}), id="id", label="Bus")
    lines = pd.DataFrame({"s": ["a", "a", "a", "b", "b"], "t": ["b", "b", "b", "c", "c"], "r": [0.1, 0.1, 0.1, 0.2, 0.3]})
    with pytest.warns(gestalt_nb.GestaltWarning, match=r"3 of 5 rows .*merged.* id="):
        result = gestalt_nb.load_edges(lines, source="s", target="t", type="LINE")
    assert (result.rows, result.created, result.merged) == (5, 2, 3)
    assert result.rows == result.created + result.updated + result.unchanged + result.merged
    assert "3 merged" in repr(result) and any("id=" in note for note in result.notes)
    kept = gestalt_nb.load_edges(lines.assign(line=range(5)), source="s", target="t", type="LINE", id="line")
    assert (kept.created, kept.merged) == (5, 0)


def test_a_load_without_merges_says_nothing_extra(empty):
    gestalt_nb.load_nodes(pd.DataFrame({"id": ["a", "b", "c"]}), id="id", label="Bus")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = gestalt_nb.load_edges(pd.DataFrame({"s": ["a", "b"], "t": ["b", "c"]}), source="s", target="t", type="LINE")
    assert result.merged == 0 and "merged" not in repr(result)


# -- 2. relationship ids collide across types ----------------------------------------------------
def test_overlapping_ids_of_two_tables_load_with_an_id_prefix(empty):
    gestalt_nb.load_nodes(pd.DataFrame({"bus": range(4)}), id="bus", label="Bus")
    lines = pd.DataFrame({"line_id": [0, 1, 2], "s": [0, 1, 2], "t": [1, 2, 3]})
    trafos = pd.DataFrame({"trafo_id": [0, 1], "s": [0, 3], "t": [2, 0]})
    gestalt_nb.load_edges(lines, source="s", target="t", type="LINE", id="line_id")
    with pytest.raises(gestalt_nb.GestaltError, match="already joins.*id_prefix="):
        gestalt_nb.load_edges(trafos, source="s", target="t", type="TRAFO", id="trafo_id")
    assert empty.db.count_edges_by_type("TRAFO") == 0  # the refusal wrote nothing
    result = gestalt_nb.load_edges(trafos, source="s", target="t", type="TRAFO", id="trafo_id", id_prefix="trafo:")
    assert result.created == 2
    assert (empty.db.count_edges_by_type("LINE"), empty.db.count_edges_by_type("TRAFO")) == (3, 2)
    assert sorted(gestalt_nb.run("MATCH ()-[r:TRAFO]->() RETURN id(r) AS i").df["i"]) == ["trafo:0", "trafo:1"]
    again = gestalt_nb.load_edges(trafos, source="s", target="t", type="TRAFO", id="trafo_id", id_prefix="trafo:")
    assert (again.created, again.unchanged) == (0, 2)
    with pytest.raises(gestalt_nb.GestaltError, match="id_prefix"):
        gestalt_nb.load_edges(trafos, source="s", target="t", type="TRAFO", id_prefix="trafo:")  # no id column


# -- 3. expansion follows only the types in the schema sample -------------------------------------
def test_the_schema_sample_misses_trafo_but_expansion_follows_it(grid):
    sampled = grid.graph.get_structured_schema
    assert "TRAFO" not in {rel["type"] for rel in sampled["relationships"]}  # the premise: outside the sample
    explorer = Explorer(grid, sample_size=None)
    explorer.start(7)
    assert "TRAFO" in explorer.relationship_types() and "TRAFO" in explorer.relationship_types(7)
    assert explorer.expand(direction="both") == 4  # buses 6 and 8, both substations
    assert {"zz-sub-1", "zz-sub-2"} <= set(explorer.subgraph.nodes)


def test_double_click_and_expand_all_follow_every_type(grid):
    result = gestalt_nb.run("MATCH (n:Bus {id: 7}) RETURN n")
    canvas = result.canvas
    canvas._message(canvas, {"kind": "dblclick", "id": "7"}, None)
    assert {"zz-sub-1", "zz-sub-2"} <= set(canvas.subgraph.nodes)
    assert canvas.status["text"].startswith("Expanded 7: +4 nodes")  # the id as loaded, not __lc_int__:7
    explorer = Explorer(grid, sample_size=1)
    explorer.start(7)
    explorer.expand(direction="both")
    explorer.expand_all()
    assert {"zz-sub-1", "zz-sub-2"} <= set(explorer.subgraph.nodes)


def test_explorer_type_choices_and_retrieval_hints_list_every_type(shell, grid):
    view = run(shell, "%gexplore 7")
    assert view.widget is not None  # builds the controls
    assert "TRAFO" in view.types.options
    retrieval = retrieve(grid, grid.retriever(seed_ids=("zz-sub-1",), hops=(parse_hop("LINE:any"),)), "q")
    assert len(retrieval.documents) <= 1
    assert any("TRAFO" in note for note in retrieval.notes())


# -- 4. the schema hides a type --------------------------------------------------------------------
def test_schema_lists_every_label_and_type_and_says_what_is_sampled(shell, grid):
    schema = run(shell, "%gschema")
    assert "TRAFO" in schema.relationship_types and "Substation" in schema.labels
    assert "TRAFO" in set(schema.relationships_df["type"]) and "Substation" in set(schema.labels_df["label"])
    assert schema.type_counts["TRAFO"] == 2 and schema.label_counts["Substation"] == 2
    trafo = schema.relationships_df.set_index("type").loc["TRAFO"]
    assert (trafo["start"], trafo["end"]) == ("Bus", "Substation") and "mva" in trafo["properties"]
    note = schema.note()
    assert "labels and relationship types are complete" in note.lower() and "properties" in note.lower()
    assert "TRAFO" in {edge.type for edge in schema.subgraph.edges.values()}


# -- 7. shortest paths ----------------------------------------------------------------------------
def chain(n: int, kind: str = "NEXT") -> nx.DiGraph:
    return nx.DiGraph([(i, i + 1) for i in range(n)])


def test_a_200_hop_path_is_found_and_max_hops_goes_to_1000(empty):
    gestalt_nb.from_networkx(chain(300), label="N", type="NEXT")
    result = gestalt_nb.shortest_path(0, 200, max_hops=1000)
    assert result.records[0]["hops"] == 200 and len(result.subgraph.nodes) == 201 and len(result.subgraph.edges) == 200
    assert result.subgraph.title == "shortest path 0 → 200"
    assert [node["id"] for node in result.records[0]["p"]["nodes"]][:3] == ["__lc_int__:0", "__lc_int__:1", "__lc_int__:2"]
    short = gestalt_nb.shortest_path(0, 200, max_hops=150)
    assert len(short) == 0 and "within 150 hops" in short.notes[-1]
    with pytest.raises(gestalt_nb.GestaltError, match="max_hops"):
        gestalt_nb.shortest_path(0, 5, max_hops=0)


def test_the_direction_default_is_stated_in_the_note(empty):
    gestalt_nb.from_networkx(nx.DiGraph([("a", "b"), ("c", "b")]), label="N", type="TO")
    both = gestalt_nb.shortest_path("a", "c")
    assert both.records[0]["hops"] == 2
    assert any("direction='both'" in note and "direction='out'" in note for note in both.notes)
    assert len(gestalt_nb.shortest_path("a", "c", direction="out")) == 0


def test_shortest_paths_match_networkx_on_a_random_directed_graph(empty):
    G = nx.gnm_random_graph(120, 200, seed=4, directed=True)
    gestalt_nb.from_networkx(G, label="N", type="E")
    U = G.to_undirected()
    for a, b in [(0, 1), (5, 77), (3, 119), (60, 61), (10, 20)]:
        for direction, graph in (("out", G), ("in", G.reverse()), ("both", U)):
            found = gestalt_nb.shortest_path(a, b, direction=direction, max_hops=1000)
            if nx.has_path(graph, a, b):
                hops = found.records[0]["hops"]
                assert hops == nx.shortest_path_length(graph, a, b), (a, b, direction)
                nodes = [ids.as_loaded(n["id"]) for n in found.records[0]["p"]["nodes"]]
                assert nodes[0] == a and nodes[-1] == b and len(nodes) == hops + 1
                assert all(graph.has_edge(x, y) for x, y in zip(nodes, nodes[1:]))
            else:
                assert len(found) == 0
    every = gestalt_nb.shortest_path(0, 33, all_shortest=True, max_hops=1000)
    expected = list(nx.all_shortest_paths(U, 0, 33)) if nx.has_path(U, 0, 33) else []
    assert len(every) == len(expected)


def test_shortest_path_over_a_type_outside_the_schema_sample(grid):
    result = gestalt_nb.shortest_path(0, "zz-sub-2")
    assert result.records[0]["hops"] == 8
    only_lines = gestalt_nb.shortest_path(0, "zz-sub-2", types=["LINE"])
    assert len(only_lines) == 0


# -- 9. integer ids leak as __lc_int__:N -----------------------------------------------------------
def test_retrieval_table_and_settings_show_ids_as_loaded(shell, grid):
    result = run(shell, "%gretrieve x --seed-ids 7 --hop LINE:any:10")
    assert set(result.df["id"]) == {6, 7, 8}
    assert not any("__lc_int__" in value for _, value in result.settings_rows())


def test_explorer_ids_are_shown_as_loaded(grid):
    grid.db.create_node_property_index("kv")
    explorer = Explorer(grid)
    found = explorer.find("Bus", "kv", 110.0, limit=3)
    assert found and all(isinstance(item, int) for item in found)
    explorer.start(found[0])
    assert explorer.node_details(found[0])["id"] == found[0]
    assert "__lc_int__" not in explorer.cypher()
    with pytest.raises(gestalt_nb.GestaltError) as error:
        explorer.expand([99])
    assert "__lc_int__" not in str(error.value) and "99" in str(error.value)


def test_canvas_sends_selects_and_calls_back_with_ids_as_loaded(grid):
    canvas = GraphCanvas(gestalt_nb.run("MATCH (a:Bus {id: 7})-[r]-(b) RETURN a, r, b").subgraph)
    keys = {node["id"] for node in canvas.graph["nodes"]}
    assert keys == {"6", "7", "8", "zz-sub-1", "zz-sub-2"}  # the side panel's id row is the key
    assert all(not edge["s"].startswith("__lc_") for edge in canvas.graph["edges"])
    clicked, selected = [], []
    canvas.on_click(clicked.append)
    canvas.on_select(selected.append)
    canvas._message(canvas, {"kind": "click", "id": "7"}, None)
    canvas.selected = ["7", "zz-sub-1"]
    assert clicked == [7] and selected == [[7, "zz-sub-1"]]
    assert canvas.selected == ["7", "zz-sub-1"]
    canvas.highlight([8])
    assert canvas.subgraph.highlight_nodes == {8}  # the drawing keys nodes by the id as loaded
    assert canvas.remove([6]) == 2 and 6 not in canvas.subgraph.nodes


def test_text_and_integer_ids_that_read_alike_stay_apart_on_the_canvas(empty):
    quiet(gestalt_nb.load_nodes, pd.DataFrame({"id": [5, "5"]}, dtype=object), id="id", label="Q")
    canvas = GraphCanvas(gestalt_nb.run("MATCH (n:Q) RETURN n").subgraph)
    keys = [node["id"] for node in canvas.graph["nodes"]]
    assert len(set(keys)) == 2 and "5" in keys
