"""Every Subgraph, explorer and table keys nodes by the id as loaded: a node loaded with the integer id 2 is 2,
never the adapter's stored ``__lc_int__:2`` (which stays in the records, the adapter's JSON, and in the database)."""

from __future__ import annotations

import pandas as pd
import pytest

import gestalt_nb
from gestalt_nb.canvas import GraphCanvas


@pytest.fixture
def numbered(shell, tmp_path):
    """1 → 2 → 3 with integer ids, and a node whose id is the text "2"."""
    gestalt_nb.create(str(tmp_path / "numbered"))
    gestalt_nb.load_nodes(pd.DataFrame({"id": [1, 2, 3], "name": ["one", "two", "three"]}), id="id", label="N")
    gestalt_nb.load_nodes(pd.DataFrame({"id": ["2"], "name": ["text two"]}), id="id", label="N")
    gestalt_nb.load_edges(pd.DataFrame({"a": [1, 2], "b": [2, 3]}), source="a", target="b", type="NEXT")
    return gestalt_nb.connection()


def test_the_explorer_keys_a_node_loaded_as_2_by_2(numbered):
    view = gestalt_nb.explore(2)
    assert list(view.explorer.subgraph.nodes) == [2]
    view.expand()
    nodes = view.explorer.subgraph.nodes
    assert set(nodes) == {1, 2, 3}
    assert {(edge.source, edge.target) for edge in view.explorer.subgraph.edges.values()} == {(1, 2), (2, 3)}
    assert view.explorer.node_details(2)["name"] == "two"
    assert set(view.explorer.subgraph.nodes_df()["id"]) == {1, 2, 3}


def test_a_query_result_keys_nodes_as_loaded_and_keeps_the_adapters_json(numbered):
    result = gestalt_nb.run("MATCH (a:N)-[r:NEXT]->(b:N) RETURN a, r, b")
    assert set(result.subgraph.nodes) == {1, 2, 3}
    assert {(edge.source, edge.target) for edge in result.subgraph.edges.values()} == {(1, 2), (2, 3)}
    assert result.records[0]["a"]["id"] == "__lc_int__:1"  # records are the adapter's JSON, as stored
    assert result.records[0]["r"]["source"] == "__lc_int__:1"
    everything = gestalt_nb.run("MATCH (n:N) RETURN n")
    assert set(everything.subgraph.nodes) == {1, 2, 3, "2"}  # the integer 2 and the text "2" stay apart
    assert everything.subgraph.nodes["2"].properties["name"] == "text two"


def test_neighbourhoods_paths_and_drawings_key_nodes_as_loaded(numbered):
    around = gestalt_nb.query_subgraph(["one"], max_hops=2)
    assert set(around.subgraph.nodes) >= {1, 2} and not any(str(key).startswith("__lc_int__") for key in around.subgraph.nodes)
    assert set(around.df["id"]) == set(around.subgraph.nodes)
    path = gestalt_nb.shortest_path(1, 3)
    assert list(path.subgraph.nodes) == [1, 2, 3]
    canvas = GraphCanvas(gestalt_nb.run("MATCH (a:N)-[r:NEXT]->(b:N) RETURN a, r, b").subgraph)
    query = canvas.to_cypher()
    again = gestalt_nb.run(query, query.params)
    assert set(again.subgraph.nodes) == set(canvas.subgraph.nodes) == {1, 2, 3}
    canvas.highlight([3])
    assert canvas.subgraph.highlight_nodes == {3}
    assert canvas.remove(["__lc_int__:3"]) == 2 and set(canvas.subgraph.nodes) == {1, 2}  # a stored id still finds it
