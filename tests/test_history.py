"""%ghistory, --save / --with snippets and %gsnippets."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

import gestalt_nb
from gestalt_nb.cypher import history, snippets

from .conftest import raw, run


@pytest.fixture(autouse=True)
def fresh():
    history.clear()
    snippets.SNIPPETS.clear()
    yield
    history.clear()
    snippets.SNIPPETS.clear()


def test_history_lists_this_kernels_queries(shell, demo):
    first = run(shell, "%gcypher MATCH (p:Person) RETURN p.name AS name")
    second = run(shell, "%%gcypher --limit 2\nMATCH (p:Person) RETURN p")
    with pytest.raises(UsageError):
        run(shell, "%gcypher MATCH (p:Person RETURN p")
    with pytest.raises(UsageError):
        run(shell, "%gcypher CREATE (n:X) RETURN n")  # refused: read-only
    gestalt_nb.run("MATCH (c:Company) RETURN c")
    frame = run(shell, "%ghistory -o runs")
    assert shell.user_ns["runs"] is frame
    assert list(frame["query"]) == [
        "MATCH (p:Person) RETURN p.name AS name",
        "MATCH (p:Person) RETURN p\n",
        "MATCH (p:Person RETURN p",
        "CREATE (n:X) RETURN n",
        "MATCH (c:Company) RETURN c",
    ]
    assert list(frame["alias"]) == ["demo"] * 5
    assert frame.loc[0, "rows"] == len(first) == len(raw(demo, "MATCH (p:Person) RETURN p"))
    assert frame.loc[1, "rows"] == len(second) == 2 and bool(frame.loc[1, "truncated"])
    assert not frame.loc[0, "truncated"] and frame.loc[0, "elapsed_ms"] > 0
    assert frame.loc[2, "error"].startswith("Cypher syntax error") and frame["rows"].isna()[2]
    assert frame.loc[3, "error"].startswith("Refused: this query writes (CREATE)")
    assert frame["at"].is_monotonic_increasing
    assert list(run(shell, "%ghistory -n 2")["query"]) == list(frame["query"][-2:])
    assert gestalt_nb.query_history(1)["query"].tolist() == ["MATCH (c:Company) RETURN c"]
    run(shell, "%ghistory --clear")
    assert run(shell, "%ghistory").empty


def test_explain_is_not_a_run(shell, demo):
    run(shell, "%%gcypher --explain\nMATCH (p:Person) RETURN p")
    assert run(shell, "%ghistory").empty


def test_save_and_compose_with_a_snippet(shell, demo):
    saved = run(shell, "%%gcypher --save staff\nMATCH (p:Person)-[:WORKS_FOR]->(c:Company {name: 'Acme Robotics'})\nRETURN p")
    assert len(saved) == 2
    listed = run(shell, "%gsnippets -o snips")
    assert shell.user_ns["snips"] is listed
    assert listed.loc[0, "name"] == "staff" and listed.loc[0, "columns"] == "p" and listed.loc[0, "alias"] == "demo"
    assert listed.loc[0, "query"] == "MATCH (p:Person)-[:WORKS_FOR]->(c:Company {name: 'Acme Robotics'})\nRETURN p"
    composed = run(shell, "%%gcypher --with staff\nMATCH (p)-[:LIVES_IN]->(place:Place) RETURN p.name AS name, place.name AS city")
    assert composed.query.startswith("CALL {\nMATCH (p:Person)-[:WORKS_FOR]->(c:Company {name: 'Acme Robotics'})\nRETURN p\n}\n")
    expected = raw(demo, "MATCH (c:Company {name: 'Acme Robotics'})<-[:WORKS_FOR]-(p:Person)-[:LIVES_IN]->(place:Place) "
                         "RETURN p.name AS name, place.name AS city")
    assert sorted(map(tuple, composed.df.values.tolist())) == sorted((r["name"], r["city"]) for r in expected)
    alone = run(shell, "%gcypher --with staff")  # an empty cell returns the snippet's own columns
    assert alone.columns == ["p"] and len(alone) == 2


def test_several_snippets_and_a_saved_composition(shell, demo):
    run(shell, "%gcypher --save people MATCH (p:Person) RETURN p.name AS person")
    run(shell, "%gcypher --save firms MATCH (c:Company) RETURN c.name AS firm")
    pairs = run(shell, "%%gcypher --with people --with firms --save pairs --limit 100\nRETURN person, firm")
    people, firms = len(raw(demo, "MATCH (p:Person) RETURN p")), len(raw(demo, "MATCH (c:Company) RETURN c"))
    assert len(pairs) == people * firms
    assert set(run(shell, "%gsnippets")["name"]) == {"people", "firms", "pairs"}
    again = run(shell, "%%gcypher --with pairs --limit 100\nRETURN count(*) AS n")
    assert again.records == [{"n": people * firms}]


def test_snippet_errors_say_what_to_do(shell, demo):
    with pytest.raises(UsageError, match="No snippet named 'nope'. Snippets: none yet"):
        run(shell, "%gcypher --with nope MATCH (p) RETURN p")
    with pytest.raises(UsageError):
        run(shell, "%gcypher --save broken MATCH (p:Person RETURN p")
    assert "broken" not in snippets.SNIPPETS  # a failed run saves nothing
    with pytest.raises(UsageError, match="--save keeps a query that ran"):
        run(shell, "%gcypher --explain --save x MATCH (p:Person) RETURN p")
    with pytest.raises(UsageError, match="A snippet name is a word"):
        run(shell, "%gcypher --save 'two words' MATCH (p:Person) RETURN p")
    run(shell, "%gcypher --save people MATCH (p:Person) RETURN p")
    with pytest.raises(UsageError, match="Snippets: people"):
        run(shell, "%gcypher --with peple RETURN p")
    run(shell, "%gsnippets --drop people")
    assert run(shell, "%gsnippets") is None


def test_a_write_snippet_is_still_refused_in_a_read(shell, demo):
    run(shell, "%gcypher --write --save tag MATCH (p:Person {name: 'Alice Chen'}) SET p.tagged = true RETURN p")
    with pytest.raises(UsageError, match="Refused: this query writes"):
        run(shell, "%gcypher --with tag RETURN p")


def test_explain_sees_the_composed_query(shell, demo):
    run(shell, "%config GestaltMagic.rewrite_untyped = False")  # the untyped warning shows the snippet was composed in
    run(shell, "%gcypher --save everyone MATCH (a:Person)-[r]->(b) RETURN a")
    plan = run(shell, "%%gcypher --explain --with everyone\nMATCH (a)-[:KNOWS]->(f) RETURN f")
    assert any(line.startswith("CALL {") for line in plan.tree)
    assert [w.kind for w in plan.warnings] == ["untyped relationship"]
