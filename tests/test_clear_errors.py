"""Bad input gets one clear line: a failing filter predicate is named as the person's, with the node; a page
written to a missing folder says so; and expanding follows one rule everywhere (both directions)."""

from __future__ import annotations

import pandas as pd
import pytest

import gestalt_nb
from gestalt_nb.graph.explorer import Explorer
from tests.conftest import run


def test_a_failing_filter_predicate_is_named_with_its_node(shell, demo):
    canvas = run(shell, "%%gcypher\nMATCH (p:Person) RETURN p").canvas
    with pytest.raises(gestalt_nb.GestaltError, match=r"filter\(nodes=...\): your function raised ZeroDivisionError: .* on node '\w+'; nothing was filtered"):
        canvas.filter(nodes=lambda node: 1 / 0)
    assert canvas.view_state["filter"] is None


def test_to_html_into_a_missing_folder_is_one_line(shell, demo, tmp_path):
    canvas = run(shell, "%%gcypher\nMATCH (p:Person) RETURN p").canvas
    with pytest.raises(gestalt_nb.GestaltError, match="Cannot write .*x.html: No such file or directory. Check that its folder exists"):
        canvas.to_html(str(tmp_path / "missing" / "x.html"))


def test_explorer_expands_both_ways_like_the_canvas(demo):
    explorer = Explorer(demo)
    explorer.start("acme")
    explorer.expand()  # acme has only incoming WORKS_FOR: "out" alone would find nothing
    assert {"alice", "carla"} <= set(explorer.subgraph.nodes)


def test_nothing_the_explorer_reports_shows_a_stored_integer_id(shell, demo):
    gestalt_nb.load_nodes(pd.DataFrame({"pid": [0, 1, 2, 3], "name": ["zero", "one", "two", "three"]}), id="pid", label="Num")
    gestalt_nb.load_edges(pd.DataFrame({"a": [0, 1, 1], "b": [1, 2, 3]}), source="a", target="b", type="NEXT")
    view = gestalt_nb.explore(1)
    explorer = view.explorer
    explorer.expand()
    assert set(explorer.subgraph.nodes_df()["id"]) == {0, 1, 2, 3}, "both ways: 0 comes in, 2 and 3 go out"
    reports = [explorer.last_expansion, explorer.last_sampling, explorer.node_details(1), explorer.find("Num", "name", "two"),
               explorer.cypher(), explorer.subgraph.notes, list(explorer.subgraph.to_networkx().nodes),
               explorer.subgraph.nodes_df().to_dict("records"), explorer.subgraph.edges_df().to_dict("records")]
    assert "__lc_int__" not in repr(reports), reports
    assert explorer.last_expansion["node_ids"] == [1] and {item["node"] for item in explorer.last_sampling} == {1}
    view.expand([2])  # the view's step, anchored at the node as typed
    view.expand_all()
    assert set(gestalt_nb.run(explorer.cypher()).subgraph.nodes) == set(explorer.subgraph.nodes)
