"""Bad input gets one clear line: a failing filter predicate is named as the person's, with the node; a page
written to a missing folder says so; and expanding follows one rule everywhere (both directions)."""

from __future__ import annotations

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
