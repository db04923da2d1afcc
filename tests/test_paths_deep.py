"""Paths as deep as the graph (the 24-hop cases are in tests/test_deep_path.py): no path says how far it looked,
and bad ``types`` are refused in one line."""

from __future__ import annotations

import pandas as pd
import pytest

import gestalt_nb


@pytest.fixture
def chain(shell, tmp_path):
    connection = gestalt_nb.create(str(tmp_path / "chain"), alias="chain")
    names = [f"s{i}" for i in range(40)]
    connection.load_nodes(pd.DataFrame({"key": names}), id="key", label="Step")
    connection.load_edges(pd.DataFrame({"a": names[:-1], "b": names[1:]}), source="a", target="b", type="NEXT")
    connection.load_nodes(pd.DataFrame({"key": ["island"]}), id="key", label="Step")
    return connection


def test_no_path_says_how_far_it_looked(chain):
    result = gestalt_nb.shortest_path("s0", "island")
    assert result.records == []
    assert any("hops deep, every node reachable from one end" in note for note in result.notes)
    capped = gestalt_nb.shortest_path("s0", "s24", max_hops=10)
    assert capped.records == [] and any("within 10 hops" in note for note in capped.notes)


@pytest.mark.parametrize("types", [5, [5], {"KNOWS": 1}])
def test_bad_types_are_one_clear_line(chain, types):
    with pytest.raises(gestalt_nb.GestaltError, match="types (is a relationship type or a list of them|must be text or a list of text)"):
        gestalt_nb.shortest_path("s0", "s3", types=types)
