"""Paths as deep as the graph: with default options ``shortest_path``, ``canvas.path`` and the Path button find a
path 24 hops long (a Bayesian network's depth), say how far they looked when there is none, and refuse bad
``types`` in one line."""

from __future__ import annotations

import pandas as pd
import pytest

import gestalt_nb
from gestalt_nb.canvas import GraphCanvas


@pytest.fixture
def chain(shell, tmp_path):
    connection = gestalt_nb.create(str(tmp_path / "chain"), alias="chain")
    names = [f"s{i}" for i in range(40)]
    connection.load_nodes(pd.DataFrame({"key": names}), id="key", label="Step")
    connection.load_edges(pd.DataFrame({"a": names[:-1], "b": names[1:]}), source="a", target="b", type="NEXT")
    connection.load_nodes(pd.DataFrame({"key": ["island"]}), id="key", label="Step")
    return connection


def test_a_24_hop_path_is_found_with_default_options(chain):
    result = gestalt_nb.shortest_path("s0", "s24")
    assert result.records[0]["hops"] == 24
    drawn = GraphCanvas(chain.run("MATCH (n:Step {id: 's0'}) RETURN n").subgraph)
    drawn.expander = lambda canvas, node: None
    drawn.expander.connection = lambda: chain  # what a view's expander carries: where its nodes come from
    found = drawn.path("s0", "s24")
    assert found.records[0]["hops"] == 24 and {"s0", "s24"} <= set(drawn.subgraph.nodes)
    drawn._message(drawn, {"kind": "path", "ids": ["s0", "s30"]}, None)  # the Path button
    assert "s30" in drawn.subgraph.nodes and "30 hops" in drawn.status["text"]


def test_no_path_says_how_far_it_looked(chain):
    result = gestalt_nb.shortest_path("s0", "island")
    assert result.records == []
    assert any("hops deep, every node reachable from one end" in note for note in result.notes)
    capped = gestalt_nb.shortest_path("s0", "s24", max_hops=10)
    assert capped.records == [] and any("within 10 hops" in note for note in capped.notes)


@pytest.mark.parametrize("types", [5, [5], {"KNOWS": 1}])
def test_bad_types_are_one_clear_line(chain, types):
    with pytest.raises(gestalt_nb.GestaltError, match="types is a relationship type or a list of them"):
        gestalt_nb.shortest_path("s0", "s3", types=types)
