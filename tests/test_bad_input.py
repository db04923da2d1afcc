"""One clear line for bad input, and one rule for expanding (real shell, real LMDB).

A failing ``filter(nodes=...)`` function is reported as the person's, naming the node; ``to_html`` into
a missing folder and ``shortest_path(types=5)`` are one line each. ``Explorer.expand()`` follows
relationships both ways, as a double-click on the canvas does, and nothing the explorer reports shows
an integer id in its stored ``__lc_int__:`` form.
"""

from __future__ import annotations

import pandas as pd
import pytest

import gestalt_nb
from gestalt_nb.errors import GestaltError
from gestalt_nb.graph.explorer import Explorer

from .conftest import run


def one_line(exc: GestaltError) -> str:
    lines = exc._render_traceback_()
    assert len(lines) == 1 and "\n" not in lines[0], lines
    return lines[0]


def test_a_failing_filter_function_says_it_was_the_function_and_which_node(shell, demo):
    canvas = run(shell, "%gcypher MATCH (p:Person) RETURN p LIMIT 5").canvas
    revision = canvas.revision
    with pytest.raises(GestaltError) as caught:
        canvas.filter(nodes=lambda n: 1 / 0)
    line = one_line(caught.value)
    first = next(iter(canvas.subgraph.nodes))
    assert "filter(nodes=...): your function raised ZeroDivisionError: division by zero on node" in line
    assert repr(first) in line and "Person" in line, line
    assert isinstance(caught.value.__cause__, ZeroDivisionError)
    assert canvas.revision == revision and not canvas.filtered(), "nothing was hidden"

    def only_ada(node):
        return node.properties["nope"]

    with pytest.raises(GestaltError, match=r"your function only_ada raised KeyError: 'nope' on node"):
        canvas.filter(nodes=only_ada)
    with pytest.raises(GestaltError) as shown_in_cell:  # in a cell: the same one line, no traceback
        run(shell, "import gestalt_nb\n_c = gestalt_nb.last_result().canvas\n_c.filter(nodes=lambda n: n.properties['name'] + 1)")
    assert "TypeError" in one_line(shown_in_cell.value)
    assert canvas.filter(nodes=lambda n: n.id == first) == len(canvas.subgraph.nodes) - 1  # a working one still works


def test_to_html_into_a_missing_folder_is_one_line(shell, demo, tmp_path):
    result = run(shell, "%gcypher MATCH (p:Person) RETURN p LIMIT 3")
    for call in (result.canvas.to_html, result.to_html):
        with pytest.raises(GestaltError) as caught:
            call("/missing/dir/x.html")
        line = one_line(caught.value)
        assert "Cannot write the page to '/missing/dir/x.html': that folder does not exist" in line
        assert isinstance(caught.value.__cause__, FileNotFoundError)
    (tmp_path / "a dir.html").mkdir()
    with pytest.raises(GestaltError, match="Cannot write the page to .*a dir.html"):
        result.canvas.to_html(tmp_path / "a dir.html")
    assert "<html" in result.canvas.to_html(tmp_path / "ok.html")[:300].lower() and (tmp_path / "ok.html").exists()


def test_shortest_path_with_types_not_names_is_one_line(demo):
    for bad in (5, [5], {"KNOWS": 1}.values(), object()):
        with pytest.raises(GestaltError) as caught:
            gestalt_nb.shortest_path("alice", "initech", types=bad)
        assert "types must be a relationship type name or a list of names (e.g. types=['KNOWS'])" in one_line(caught.value)
    assert gestalt_nb.shortest_path("alice", "initech", types=("WORKS_FOR", "KNOWS")).subgraph.nodes
    assert gestalt_nb.shortest_path("alice", "initech", types="WORKS_FOR").subgraph is not None


def test_explorer_expand_follows_both_ways_like_a_double_click(shell, demo):
    explorer = Explorer(demo, sample_size=100)
    explorer.start("initech")  # a company: its relationships come in (WORKS_FOR)
    added = explorer.expand()
    assert added > 0 and explorer.last_expansion["direction"] == "both"
    canvas = run(shell, "%gcypher MATCH (c:Company {id: 'initech'}) RETURN c").canvas
    canvas._message(canvas, {"kind": "dblclick", "id": "initech"}, None)
    assert set(canvas.subgraph.nodes) == set(explorer.subgraph.nodes), "one rule: the explorer and the canvas draw the same"
    out = Explorer(demo, sample_size=100)
    out.start("initech")
    assert out.expand(direction="out") < added  # a direction still narrows it


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
