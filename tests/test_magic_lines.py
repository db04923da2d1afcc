"""A magic line reads like a Python line: a trailing ``# comment`` outside quotes is a comment."""

from __future__ import annotations

import gestalt_nb

from .conftest import run


def test_a_trailing_comment_is_a_comment_in_every_line_magic(shell, tmp_path):
    run(shell, f"%gestalt create {tmp_path / 'g'} --alias g  # a fresh database")
    run(shell, "%gestalt demo --alias demo  # build the demo graph in an LMDB database")
    assert gestalt_nb.connection("demo").alias == "demo"
    whole = run(shell, "%goverview --by label  # the whole graph, grouped")
    assert whole.by == "label" and whole.group_count >= 2
    schema = run(shell, "%gschema  # what is in the graph")
    assert "Person" in repr(schema) or "Person" in str(getattr(schema, "labels", ""))
    found = run(shell, '%gsubgraph "alice chen" --hops 1  # ask by name')
    assert found.subgraph.nodes
    rows = run(shell, "%%gcypher --limit 2  # two people\nMATCH (p:Person) RETURN p.name AS name")
    assert len(rows.df) == 2


def test_a_hash_inside_quotes_is_kept(shell, tmp_path):
    run(shell, "%gestalt demo --alias demo")
    found = run(shell, '%gsubgraph "a#b"  # no such name')
    assert not found.subgraph.nodes and "unresolved: a#b" in repr(found)  # the name as written, not cut at the '#'
