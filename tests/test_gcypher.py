"""%%gcypher: results, Subgraph and DataFrame, read-only by default, bounds, parameters, errors."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest
from IPython.core.error import UsageError

import gestalt_nb
from gestalt_nb.session import REGISTRY

from .conftest import raw, run


def snapshot(connection):
    """Everything in the graph, read through the raw GraphDB, for before/after comparisons."""
    nodes = raw(connection, "MATCH (n) RETURN n")
    edges = []
    for kind in sorted({row["t"] for row in raw(connection, "MATCH ()-[r]->() RETURN DISTINCT type(r) AS t")}):
        edges += [row["r"] for row in raw(connection, f"MATCH ()-[r:{kind}]->() RETURN r")]
    return (
        sorted((n["n"].get_id, tuple(sorted(n["n"].labels)), repr(sorted(n["n"].properties.items()))) for n in nodes),
        sorted((e.get_id, e.source, e.target, repr(sorted(e.properties.items()))) for e in edges),
    )


def test_quickstart_query_gives_graph_table_json_and_keeps_the_result(shell, demo):
    result = run(shell, "%%gcypher -o people\nMATCH (p:Person)-[r:WORKS_FOR]->(c:Company) RETURN p, r, c LIMIT 50")
    assert shell.user_ns["people"] is result is gestalt_nb.last_result()
    expected = raw(demo, "MATCH (p:Person)-[r:WORKS_FOR]->(c:Company) RETURN p, r, c")
    assert len(result) == len(expected) == 6
    node_ids = {row[k].get_id for row in expected for k in ("p", "c")}
    edge_ids = {row["r"].get_id for row in expected}
    assert set(result.subgraph.nodes) == node_ids
    assert set(result.subgraph.edges) == edge_ids
    assert result.subgraph.highlight_nodes == node_ids
    alice_job = result.subgraph.edges["alice-WORKS_FOR-acme"]
    assert (alice_job.source, alice_job.target, alice_job.type) == ("alice", "acme", "WORKS_FOR")
    assert list(result.df.columns) == ["p", "r", "c"]
    row = result.df[result.df["p"].str.startswith("(alice:")].iloc[0]
    assert row["p"].startswith('(alice:Person {name: "Alice Chen", born: 1988-03-14')
    assert row["r"] == '(alice)-[:WORKS_FOR {role: "Research Engineer", since: 2019-04-01}]->(acme)'
    assert result.columns == ["p", "r", "c"] and not result.truncated and result.elapsed > 0


def test_relationship_only_results_bring_their_endpoints_unhighlighted(shell, demo):
    result = run(shell, "%gcypher MATCH (:Person)-[r:KNOWS]->(:Person) RETURN r")
    expected = raw(demo, "MATCH (a:Person)-[r:KNOWS]->(b:Person) RETURN a, r, b")
    assert set(result.subgraph.edges) == {row["r"].get_id for row in expected}
    assert set(result.subgraph.nodes) == {row[k].get_id for row in expected for k in ("a", "b")}
    assert result.subgraph.nodes["alice"].properties["name"] == "Alice Chen"  # fetched, not an id-only placeholder
    assert result.subgraph.highlight_nodes == set()


def test_paths_and_collected_lists_become_nodes_and_edges(shell, demo):
    result = run(shell, "%%gcypher\nMATCH path = (a:Person {name: 'Alice Chen'})-[:KNOWS]->(b)-[:KNOWS]->(c) RETURN path")
    expected = raw(demo, "MATCH (a:Person {name: 'Alice Chen'})-[r1:KNOWS]->(b)-[r2:KNOWS]->(c) RETURN a, r1, b, r2, c")
    assert len(result) == len(expected) > 0
    assert set(result.subgraph.nodes) == {row[k].get_id for row in expected for k in ("a", "b", "c")}
    assert set(result.subgraph.edges) == {row[k].get_id for row in expected for k in ("r1", "r2")}
    assert result.df.loc[0, "path"].startswith("(alice)-[:KNOWS {weight: ")
    collected = run(shell, "%gcypher MATCH (c:Company)<-[:WORKS_FOR]-(p:Person) RETURN c.name AS company, collect(p) AS staff")
    staff = {row["p"].get_id for row in raw(demo, "MATCH (c:Company)<-[:WORKS_FOR]-(p:Person) RETURN p")}
    assert set(collected.subgraph.nodes) == staff
    assert all(isinstance(cell, list) and cell[0].startswith("(") for cell in collected.df["staff"])


def test_scalar_results_have_no_graph_and_open_on_the_table(shell, demo):
    result = run(shell, "%gcypher MATCH (p:Person) RETURN p.name AS name, p.h_index AS h ORDER BY h DESC")
    assert not result.subgraph
    assert result.show().tab_titles == ["Table", "JSON", "Info", "Graph"]
    graph_result = run(shell, "%gcypher MATCH (p:Person) RETURN p")
    assert graph_result.show().tab_titles == ["Graph", "Table", "JSON", "Info"]
    assert result.df["h"].tolist() == sorted(result.df["h"].tolist(), reverse=True)
    assert str(result.df["h"].dtype) == "int64"


def test_temporal_values_are_python_dates_and_readable_text(shell, demo):
    result = run(
        shell,
        "%%gcypher\nMATCH (p:Person {name: 'Bob Okafor'}) RETURN p.born AS born, "
        "datetime('2024-05-01T12:30:00Z') AS at, duration('P1DT2H') AS span, p",
    )
    row = result.df.iloc[0]
    assert row["born"] == date(1979, 11, 2)
    assert row["at"] == datetime(2024, 5, 1, 12, 30, tzinfo=timezone.utc)
    assert row["span"] == timedelta(days=1, hours=2)
    assert result.records[0]["born"] == {"$type": "TemporalDate", "value": "1979-11-02"}
    text = result.show().text()
    assert "1979-11-02" in text and "2024-05-01 12:30:00+00:00" in text
    assert "born: 1979-11-02" in row["p"]


WRITES = [
    ("CREATE", "CREATE (x:Intruder {name: 'x'}) RETURN x"),
    ("MERGE", "MERGE (x:Intruder {name: 'y'}) RETURN x"),
    ("SET", "MATCH (p:Person {name: 'Alice Chen'}) SET p.rating = 0.0 RETURN p"),
    ("DELETE", "MATCH (p:Person {name: 'Eva Novak'}) DETACH DELETE p RETURN 1 AS gone"),
    ("REMOVE", "MATCH (p:Person {name: 'Dev Patel'}) REMOVE p.h_index RETURN p"),
    ("CREATE inside CALL {}", "MATCH (p:Person {name: 'Bob Okafor'}) CALL { CREATE (x:Intruder {name: 'z'}) RETURN x } RETURN p, x"),
]


@pytest.mark.parametrize(("kind", "query"), WRITES, ids=[kind for kind, _ in WRITES])
def test_writes_are_refused_without_write_and_change_nothing(shell, demo, kind, query):
    before = snapshot(demo)
    with pytest.raises(UsageError, match=rf"Refused: this query writes \({kind}.*--write"):
        run(shell, f"%%gcypher\n{query}")
    assert snapshot(demo) == before


@pytest.mark.parametrize(
    ("query", "check", "expected"),
    [
        ("CREATE (x:Intruder {name: 'x'}) RETURN x", "MATCH (x:Intruder) RETURN count(x) AS c", 1),
        ("MERGE (x:Intruder {name: 'y'}) RETURN x", "MATCH (x:Intruder) RETURN count(x) AS c", 1),
        ("MATCH (p:Person {name: 'Alice Chen'}) SET p.rating = 0.0 RETURN p", "MATCH (p:Person {name: 'Alice Chen'}) RETURN p.rating AS c", 0.0),
        ("MATCH (p:Person {name: 'Eva Novak'}) DETACH DELETE p RETURN 1 AS gone", "MATCH (p:Person) RETURN count(p) AS c", 5),
        ("MATCH (p:Person {name: 'Dev Patel'}) REMOVE p.h_index RETURN p", "MATCH (p:Person {name: 'Dev Patel'}) RETURN p.h_index AS c", None),
        (
            "MATCH (p:Person {name: 'Bob Okafor'}) CALL { CREATE (x:Intruder {name: 'z'}) RETURN x } RETURN p, x",
            "MATCH (x:Intruder) RETURN count(x) AS c",
            1,
        ),
    ],
)
def test_the_same_writes_run_with_write(shell, demo, query, check, expected):
    result = run(shell, f"%%gcypher --write\n{query}")
    assert result.write
    assert raw(demo, check)[0]["c"] == expected


def test_a_write_inside_call_needs_the_snapshot_off_which_write_mode_does(demo):
    with pytest.raises(RuntimeError, match="read view is read-only"):
        demo.graph.query("CALL { CREATE (x:Probe) RETURN x } RETURN x")  # the adapter's default
    demo.run("CALL { CREATE (x:Probe) RETURN x } RETURN x", write=True)
    assert raw(demo, "MATCH (x:Probe) RETURN count(x) AS c")[0]["c"] == 1


@pytest.mark.parametrize("flag", ["", "--write"])
def test_a_write_in_a_union_branch_is_explained_not_blamed_on_a_missing_flag(shell, demo, flag):
    before = snapshot(demo)
    with pytest.raises(UsageError) as caught:
        run(shell, f"%%gcypher {flag}\nMATCH (p:Person) RETURN p.name AS n UNION MATCH (c:Company) CREATE (x:Intruder) RETURN c.name AS n")
    message = str(caught.value)
    assert "never runs a write inside a UNION branch, with or without --write" in message
    assert "run it again with" not in message
    assert snapshot(demo) == before


def test_truncation_pushes_a_limit_and_flags_more_rows(shell, demo):
    total = raw(demo, "MATCH (n) RETURN count(n) AS c")[0]["c"]
    result = run(shell, "%%gcypher --limit 5\nMATCH (n) RETURN n")
    assert len(result) == 5 and result.truncated
    assert result.executed.endswith("\nLIMIT 6")
    assert "Showing 5 of more than 5 rows" in result.notes[0]
    assert "Showing 5 of more than 5 rows" in result.show().static_html()
    exact = run(shell, f"%%gcypher --limit {total}\nMATCH (n) RETURN n")
    assert len(exact) == total and not exact.truncated


def test_limits_that_cannot_be_pushed_down_still_cut_and_say_why(shell, demo):
    own = run(shell, "%%gcypher --limit 3\nMATCH (n) RETURN n LIMIT 10")
    assert len(own) == 3 and own.truncated and "query's own LIMIT 10 is above the row limit" in own.notes[0]
    union = run(shell, "%%gcypher --limit 3\nMATCH (p:Person) RETURN p.name AS n UNION MATCH (c:Company) RETURN c.name AS n")
    assert len(union) == 3 and union.truncated and "UNION" in union.notes[0]
    by_parameter = run(shell, "%%gcypher --limit 3 -P \"{'n': 10}\"\nMATCH (n) RETURN n LIMIT $n")
    assert len(by_parameter) == 3 and "the query's own LIMIT $n is above the row limit" in by_parameter.notes[0]
    within = run(shell, "%%gcypher --limit 3\nMATCH (n) RETURN n LIMIT 2")
    assert len(within) == 2 and not within.truncated


def test_trailing_comment_does_not_swallow_the_pushed_limit(shell, demo):
    result = run(shell, "%%gcypher --limit 2\nMATCH (n:Person) RETURN n // every person")
    assert len(result) == 2 and result.truncated


def test_row_limit_from_config_applies_to_every_cell(shell, demo):
    run(shell, "%config GestaltMagic.row_limit = 4")
    assert len(run(shell, "%gcypher MATCH (n) RETURN n")) == 4
    assert len(run(shell, "%%gcypher --limit 7\nMATCH (n) RETURN n")) == 7


def test_parameters_from_a_literal_or_a_variable(shell, demo):
    result = run(shell, "%%gcypher -P \"{'name': 'Carla Ruiz'}\"\nMATCH (p:Person {name: $name}) RETURN p.h_index AS h")
    assert result.records == [{"h": 12}]
    shell.user_ns["who"] = {"name": "Dev Patel", "min": 10}
    result = run(shell, "%%gcypher -P who\nMATCH (p:Person {name: $name}) WHERE p.h_index >= $min RETURN p.h_index AS h")
    assert result.records == [{"h": 18}] and result.params == {"name": "Dev Patel", "min": 10}


def test_parameter_errors(shell, demo):
    with pytest.raises(UsageError, match=r"Missing query parameter \$name \(given: other\)\. Pass values with -P"):
        run(shell, "%%gcypher -P \"{'other': 1}\"\nMATCH (p:Person {name: $name}) RETURN p")
    with pytest.raises(UsageError, match="-P must give a dict with string keys"):
        run(shell, "%%gcypher -P \"[1, 2]\"\nMATCH (p:Person) RETURN p")
    with pytest.raises(UsageError, match="-P: cannot evaluate 'undefined_thing': NameError"):
        run(shell, "%%gcypher -P undefined_thing\nMATCH (p:Person) RETURN p")


def test_the_whole_namespace_is_never_bound_implicitly(shell, demo):
    shell.user_ns["name"] = "Alice Chen"
    with pytest.raises(UsageError, match=r"Missing query parameter \$name"):
        run(shell, "%gcypher MATCH (p:Person {name: $name}) RETURN p")


def test_syntax_error_shows_line_column_and_caret(shell, demo):
    with pytest.raises(UsageError) as caught:
        run(shell, "%%gcypher\nMATCH (p:Person)\nWHERE p.rating >\nRETURN p")
    message = str(caught.value)
    assert "Cypher syntax error at line 3, column 8" in message
    assert message.endswith("  RETURN p\n         ^")


@pytest.mark.parametrize(
    ("query", "hint"),
    [
        ("MATCH (p) WHERE p:Person RETURN p", "put the label in the pattern: MATCH (p:Person)"),
        ("RETURN 1 AS one", "start from a row: UNWIND [1] AS _ RETURN ..."),
    ],
)
def test_known_dialect_gaps_come_with_the_rewrite(shell, demo, query, hint):
    with pytest.raises(UsageError, match="Cypher syntax error") as caught:
        run(shell, f"%gcypher {query}")
    assert hint in str(caught.value)


def test_syntax_error_caret_points_at_the_column(shell, demo):
    with pytest.raises(UsageError) as caught:
        run(shell, "%gcypher MATCH (p:Person RETURN p")
    # The caret marks the bracket that is never closed, not where the parser gave up.
    assert str(caught.value).endswith("  MATCH (p:Person RETURN p\n        ^")


def test_empty_cell_says_what_to_write(shell, demo):
    with pytest.raises(UsageError, match="The query is empty"):
        run(shell, "%%gcypher\n   \n")


def test_full_tracebacks_when_short_errors_is_off(shell, demo):
    run(shell, "%config GestaltMagic.short_errors = False")
    with pytest.raises(gestalt_nb.GestaltError) as caught:
        run(shell, "%gcypher MATCH (p:Person RETURN p")
    assert type(caught.value.__cause__).__name__ == "CypherSyntaxError"


def test_line_magic_options_and_arrows_in_the_query(shell, demo):
    result = run(shell, "%gcypher --limit 2 -o few MATCH (a:Person) -[:KNOWS]-> (b:Person) RETURN a, b")
    assert len(result) == 2 and result.truncated and shell.user_ns["few"] is result


def test_empty_result_still_knows_its_columns(shell, demo):
    result = run(shell, "%gcypher MATCH (p:Person {name: 'Nobody'}) RETURN p.name AS name, p.born AS born")
    assert result.records == [] and result.columns == ["name", "born"]
    assert list(result.df.columns) == ["name", "born"]


def test_engine_errors_are_short_and_keep_the_engine_message(shell, demo):
    with pytest.raises(UsageError, match=r"^Query failed: "):
        run(shell, "%gcypher UNWIND [1] AS x RETURN x / 'a' AS y")


def test_bad_options_are_rejected_with_usage(shell, demo):
    with pytest.raises(UsageError, match="invalid choice: 'd3'"):
        run(shell, "%%gcypher --renderer d3\nMATCH (n) RETURN n")
    with pytest.raises(UsageError, match="row limit must be a positive whole number"):
        run(shell, "%%gcypher --limit 0\nMATCH (n) RETURN n")
    with pytest.raises(UsageError, match="-o needs a Python variable name"):
        run(shell, "%%gcypher -o 1abc\nMATCH (n) RETURN n")


def test_plain_python_api_matches_the_magic(shell, demo):
    via_magic = run(shell, "%gcypher MATCH (p:Person) RETURN p.name AS name ORDER BY name")
    via_python = gestalt_nb.run("MATCH (p:Person) RETURN p.name AS name ORDER BY name")
    assert via_python.records == via_magic.records
    assert REGISTRY.last_result is via_python
