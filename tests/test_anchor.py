"""A read whose first pattern begins with a large label scan while a node further along is found directly runs
begun at that node (``gestalt_nb.cypher.anchor``): the same rows, nothing written; what it cannot reverse exactly
runs as written."""

from __future__ import annotations

import pytest

from . import test_explain
from .conftest import run
from .test_explain import digest, explain, kinds

big_path, big = test_explain.big_path, test_explain.big  # the fixtures: more than 10,000 people, each tagged

T1 = "(t:Tag {name: 'T1'})"
CASES = [  # (the query, how its first MATCH begins once rewritten)
    ("MATCH (p:Person)-[r:TAGGED]->(t:Tag {name: 'T1'}) RETURN p.name AS name, id(r) AS r", f"MATCH {T1}<-[r:TAGGED]-(p:Person) RETURN"),
    ("MATCH (p:Person)-[:TAGGED]->(t:Tag) WHERE t.colour = 'c2' RETURN p.name AS name", "MATCH (t:Tag)<-[:TAGGED]-(p:Person) WHERE"),
    ("MATCH (p:Person)-[:TAGGED]->(t:Tag {name: 'T1'})-[:IN]->(g:Group) RETURN p.name AS name, g.name AS group",
     f"MATCH {T1}<-[:TAGGED]-(p:Person), (t)-[:IN]->(g:Group) RETURN"),
    ("MATCH (p:Person)-->(t:Tag {name: 'T1'}) // a comment: (p:Person)-->(t)\nRETURN p.name AS name",
     f"MATCH {T1}<-[:IN|TAGGED]-(p:Person) // a comment: (p:Person)-->(t)\nRETURN"),  # the untyped rewrite too
    ("MATCH (p:Person)-[:TAGGED]->(t:Tag {name: $tag}) WHERE p.email <> '(p:Person)-[:X]->(t)' RETURN p.name AS name",
     "MATCH (t:Tag {name: $tag})<-[:TAGGED]-(p:Person) WHERE p.email <> '(p:Person)-[:X]->(t)' RETURN"),
    ("MATCH (p:Person)-[:TAGGED]->(t:Tag {name: 'T1'}), (t)-[:IN]->(g) RETURN count(*) AS n", f"MATCH {T1}<-[:TAGGED]-(p:Person), (t)-[:IN]->(g) RETURN"),
    ("MATCH (p:Person)-[:TAGGED]->(t:Tag {name: 'T1'}) MATCH (t)-[:IN]->(g:Group) RETURN p.name AS name, g.name AS group",
     f"MATCH {T1}<-[:TAGGED]-(p:Person) MATCH (t)-[:IN]->(g:Group) RETURN"),  # the first of two MATCH clauses
    ("MATCH (p:Person)-[:TAGGED]->(t:Tag {name: 'T2'}) RETURN p.name AS name ORDER BY name DESC LIMIT 7",
     "MATCH (t:Tag {name: 'T2'})<-[:TAGGED]-(p:Person) RETURN"),
]


def rows(result) -> list[str]:
    return sorted(map(repr, result.df.to_dict("records")))


@pytest.mark.parametrize(("query", "begins"), CASES)
def test_a_read_begun_at_its_far_end_runs_from_the_node_found_directly_with_the_same_rows(shell, big, big_path, query, begins):
    before = digest(big_path)
    params = {"tag": "T1"}
    rewritten = big.run(query, params, limit=10_000)
    assert rewritten.executed.startswith(begins), rewritten.executed
    assert "yes: the pattern begins at (t:Tag" in rewritten.rewrite
    run(shell, "%config GestaltMagic.rewrite_far_end = False")
    as_written = big.run(query, params, limit=10_000)
    assert as_written.executed.startswith(query[: query.index(")-")])
    assert rows(rewritten) == rows(as_written) and len(as_written) > 0
    if "ORDER BY" in query:  # ordered: the same rows in the same order
        assert rewritten.df.to_dict("records") == as_written.df.to_dict("records")
    assert digest(big_path) == before  # read-only: the data file is the same


def test_explain_shows_the_plan_of_the_text_that_runs_and_no_warning(shell, big):
    query = "MATCH (p:Person)-[r:TAGGED]->(t:Tag {name: 'T1'}) RETURN p.name AS name"
    found = explain(shell, f"%%gcypher --explain --alias big\n{query}")
    assert found.warnings == [] and found.executed.startswith(f"MATCH {T1}<-[r:TAGGED]-(p:Person)")
    assert "yes: the pattern begins at (t:Tag {name: 'T1'}) (a property-index seek on name)" in found.rewrite
    from gestalt_nb.cypher.lint import lint_query

    assert lint_query(big, query) == []  # the editor marks nothing: it runs begun there
    run(shell, "%config GestaltMagic.rewrite_far_end = False")
    assert kinds(explain(shell, f"%%gcypher --explain --alias big\n{query}")) == ["starts at the far end"]


@pytest.mark.parametrize("query", [
    "MATCH path = (p:Person)-[:TAGGED]->(t:Tag {name: 'T1'}) RETURN path",  # a named path would be reversed
    "MATCH (p:Person)-[:TAGGED*1..2]->(t:Tag {name: 'T1'}) RETURN p",  # so would a variable-length hop's list
    "OPTIONAL MATCH (p:Person)-[:TAGGED]->(t:Tag {name: 'T1'}) RETURN p",
    "MATCH SHORTEST 1 (p:Person)-[:TAGGED]->(t:Tag {name: 'T1'}) RETURN p",
    "MATCH (g:Group) MATCH (p:Person)-[:TAGGED]->(t:Tag {name: 'T1'}) RETURN p",  # not the query's first clause
    "MATCH (t:Tag)<-[:TAGGED]-(p:Person {name: 'P7'}) RETURN t",  # begins with a small label already
    "MATCH (p:Person)-[:TAGGED]->(t:Tag) RETURN p LIMIT 3",  # nothing further along found by an equality
    "MATCH (p:Person)-[:TAGGED]->(:Tag {name: 'T1'})-[:IN]->(g:Group) RETURN p",  # found, but no variable to join on
    "MATCH (p:Person {id: 'p7'})-[:TAGGED]->(t:Tag {name: 'T1'}) RETURN p",  # begins with an id: one key read
])
def test_what_it_cannot_reverse_exactly_or_need_not_runs_as_written(shell, big, query):
    result = big.run(query, limit=10_000)
    assert result.executed.startswith(query[:-len(query.split(" RETURN")[-1])]), result.executed
    assert not result.rewrite or "the pattern begins at" not in result.rewrite


def test_a_write_is_never_rewritten(shell, big):
    query = "MATCH (p:Person)-[:TAGGED]->(t:Tag {name: 'T1'}) SET p.seen = true RETURN count(*) AS n"
    found = explain(shell, f"%%gcypher --explain --write --alias big\n{query}")  # the plan only: nothing runs
    assert found.executed.startswith("MATCH (p:Person)-[:TAGGED]->") and not (found.rewrite or "").startswith("yes")


def test_the_agents_query_tool_runs_it_begun_there_with_the_same_rows(big, monkeypatch):
    import json

    from gestalt_nb.agents.handoff import BudgetedQueryTool
    from gestalt_nb.cypher import anchor

    decided, decide = [], anchor.decide  # the real decision, seen on its way back
    monkeypatch.setattr(anchor, "decide", lambda db, text: decided.append(decide(db, text)) or decided[-1])
    tool = next(t for t in big.toolkit().get_tools() if isinstance(t, BudgetedQueryTool))
    for query in ("MATCH (p:Person)-[:TAGGED]->(t:Tag {name: 'T1'}) RETURN count(*) AS n",
                  "MATCH (p:Person)-[:TAGGED]->(t:Tag {name: 'T1'}) RETURN p.name AS name ORDER BY name LIMIT 50"):
        answer = json.loads(tool.invoke({"query": query}))
        assert decided[-1].applied and decided[-1].text.startswith(f"MATCH {T1}<-[:TAGGED]-(p:Person)")
        assert answer["records"] == big.graph.query_read_only(query) and len(answer["records"]) in (1, 50)  # as written
    assert answer["records"][0]["name"] == "P1" and decided[0].text.endswith("RETURN count(*) AS n")
