"""Paths as deep as the graph (issue 31): no small hop cap by default, and the notes say how deep it looked."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

import gestalt_nb

from .conftest import run

CHAIN = pd.DataFrame({"source": [f"s{i}" for i in range(30)], "target": [f"s{i + 1}" for i in range(30)]})
DIABETES = Path(__file__).resolve().parent / "data" / "bnlearn_diabetes_edges.csv"


def load(df):
    ids = pd.DataFrame({"name": pd.unique(df[["source", "target"]].values.ravel())})
    gestalt_nb.load_nodes(ids, id="name", label="Var")
    gestalt_nb.load_edges(df, source="source", target="target", type="NEXT")


def test_a_24_hop_path_is_found_with_default_options(shell, demo):
    load(CHAIN)
    canvas = run(shell, "%gcypher MATCH (p:Person {name: 'Alice Chen'}) RETURN p").canvas
    found = demo.shortest_path("s0", "s24")
    assert found.records and found.records[0]["hops"] == 24
    drawn = canvas.path("s0", "s24")
    assert len(drawn.subgraph.edges) == 24 and canvas.status["text"].startswith("Shortest path: 24 hops")
    canvas._message(canvas, {"kind": "path", "ids": ["s24", "s1"]}, None)  # the Path button
    assert canvas.status["text"].startswith("Shortest path: 23 hops"), canvas.status
    none = demo.shortest_path("s0", "alice")
    assert not none.records and any("hops deep, every node reachable" in note for note in none.notes), none.notes
    capped = demo.shortest_path("s0", "s24", max_hops=10)
    assert not capped.records and any("within 10 hops" in note for note in capped.notes)


def test_the_real_diabetes_network_path_is_found(shell, demo):
    load(pd.read_csv(DIABETES))
    found = demo.shortest_path("meal_0", "bg_24", direction="out")
    assert found.records and found.records[0]["hops"] > 10, found.notes
