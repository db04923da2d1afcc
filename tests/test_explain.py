"""--explain: the plan, the LIMIT gestalt-nb adds, read-only or not, slow-shape warnings; nothing runs."""

from __future__ import annotations

import hashlib

import pytest
from gestaltdb.graphdb import Edge, GraphDB, Node

import gestalt_nb
from gestalt_nb.cypher import query as query_module
from gestalt_nb.cypher.budget import BudgetExceeded
from gestalt_nb.cypher.explain import LARGE, QueryPlan

from .conftest import raw, run
from .test_gcypher import snapshot

BIG = LARGE + 1


@pytest.fixture(scope="module")
def big_path(tmp_path_factory):
    """More than LARGE :Person nodes (name indexed, email not), each TAGGED with one of three :Tag nodes, each tag IN one :Group."""
    path = tmp_path_factory.mktemp("big") / "people"
    db = GraphDB.create(path, backend="lmdb", backend_options={"map_size": 512 * 1024**2}, indexed_node_properties=["name"])
    with db.transaction() as tx:
        tx.put_nodes([Node(f"p{i}", labels=["Person"], properties={"name": f"P{i}", "email": f"p{i}@x.org"}) for i in range(BIG)])
        tx.put_nodes([Node(f"t{i}", labels=["Tag"], properties={"name": f"T{i}", "colour": f"c{i}"}) for i in range(3)])
        tx.put_nodes([Node("g", labels=["Group"], properties={"name": "G"})])
        tx.put_edges_bulk([Edge(f"g{i}", f"p{i}", f"t{i % 3}", properties={"type": "TAGGED"}) for i in range(BIG)]
                          + [Edge(f"in{i}", f"t{i}", "g", properties={"type": "IN"}) for i in range(3)], check_existing=False)
    db.close()
    return path


@pytest.fixture
def big(shell, big_path):
    run(shell, f"%gestalt open {big_path} --alias big")
    return gestalt_nb.connection("big")


def explain(shell, cell: str) -> QueryPlan:
    found = run(shell, cell)
    assert isinstance(found, QueryPlan)
    return found


def kinds(found: QueryPlan) -> list[str]:
    return [warning.kind for warning in found.warnings]


def as_written(shell) -> None:
    """Untyped patterns run as written (the rewrite to every type off), so they are warned about."""
    run(shell, "%config GestaltMagic.rewrite_untyped = False")


def typeless(connection) -> None:
    """Add a relationship without a type between two places: only an untyped pattern finds it."""
    a, b = (row["i"] for row in raw(connection, "MATCH (p:Place) RETURN id(p) AS i LIMIT 2"))
    connection.db.put_edge(Edge("typeless", a, b, properties={}))


@pytest.mark.parametrize(
    ("query", "kind", "rewrite"),
    [
        ("MATCH (a:Person)-[r]->(b) RETURN a, r, b", "untyped relationship", "-[r:"),
        ("MATCH (a:Person)-[*1..3]-(b:Company) RETURN a, b", "untyped variable-length relationship", "-[:WORKS_FOR*1..3]-"),
        ("MATCH (a:Person {name: 'Alice Chen'}), (c:Company) RETURN a, c", "cartesian product", "MATCH (a:Person"),
        ("MATCH (a:Person) MATCH (p:Paper) RETURN a, p", "cartesian product", "-[:AUTHORED]-"),
        ("MATCH (a:Person), (b:Person) RETURN shortestPath((a)-[*]-(b)) AS p", "untyped variable-length relationship", "-[:"),
    ],
)
def test_each_slow_shape_is_warned_and_nothing_runs(shell, demo, query, kind, rewrite):
    as_written(shell)
    before = snapshot(demo)
    found = explain(shell, f"%%gcypher --explain\n{query}")
    assert kind in kinds(found)
    warning = next(w for w in found.warnings if w.kind == kind)
    assert rewrite in warning.rewrite and warning.reason
    assert found.read_only and found.query.strip() == query
    assert snapshot(demo) == before
    assert gestalt_nb.query_history().empty or query not in set(gestalt_nb.query_history()["query"])


def test_order_by_over_more_rows_than_the_limit_is_warned(shell, demo):
    people = len(raw(demo, "MATCH (p:Person) RETURN p"))
    query = "MATCH (p:Person) RETURN p.name AS name ORDER BY name"
    found = explain(shell, f"%%gcypher --explain --limit {people - 1}\n{query}")
    assert kinds(found) == ["ORDER BY over an unbounded match"]
    assert f"{people} :Person nodes" in found.warnings[0].reason
    assert explain(shell, f"%%gcypher --explain --limit {people}\n{query}").warnings == []  # all fit: no warning
    bounded = "MATCH (p:Person) WITH p LIMIT 3 RETURN p.name AS name ORDER BY name"
    assert explain(shell, f"%%gcypher --explain --limit 2\n{bounded}").warnings == []


def test_large_label_scan_needs_an_index_for_its_equality(shell, big, big_path):
    before = digest(big_path)
    scan = explain(shell, "%%gcypher --explain --alias big\nMATCH (p:Person) WHERE p.email = 'p7@x.org' RETURN p")
    assert kinds(scan) == ["large label scan without an index"]
    assert "create_node_property_index('email')" in scan.warnings[0].rewrite
    assert f"more than {LARGE:,} :Person nodes" in scan.warnings[0].reason
    inline = explain(shell, "%%gcypher --explain --alias big\nMATCH (p:Person {email: $e}) RETURN p")
    assert kinds(inline) == ["large label scan without an index"]
    # an indexed equality seeks; a small label is fine; a plain streaming scan is bounded by the LIMIT
    seek = explain(shell, "%%gcypher --explain --alias big\nMATCH (p:Person {name: 'P7'}) RETURN p")
    assert seek.warnings == [] and any("property-index seek on name" in line for line in seek.tree)
    assert explain(shell, "%%gcypher --explain --alias big\nMATCH (t:Tag) WHERE t.email = 'x' RETURN t").warnings == []
    assert explain(shell, "%%gcypher --explain --alias big\nMATCH (p:Person) RETURN p").warnings == []
    ordered = explain(shell, "%%gcypher --explain --alias big\nMATCH (p:Person) RETURN p ORDER BY p.email")
    assert kinds(ordered) == ["ORDER BY over an unbounded match"]
    unlabeled = explain(shell, "%%gcypher --explain --alias big\nMATCH (n {name: 'P7'}) RETURN n")
    assert kinds(unlabeled) == ["index seek without a label"]
    assert digest(big_path) == before  # nothing written: the data file is the same


def digest(path) -> str:
    return hashlib.sha256((path / "data.mdb").read_bytes()).hexdigest()


def rows(connection, query: str) -> list[str]:
    return sorted(str(sorted(row.items())) for row in raw(connection, query))


def test_a_pattern_begun_at_its_far_end_is_warned_with_a_rewrite_giving_the_same_rows(shell, big, big_path):
    from gestalt_nb.cypher.lint import lint_query

    run(shell, "%config GestaltMagic.rewrite_far_end = False")  # as written: warned (tests/test_anchor.py: rewritten)
    before = digest(big_path)
    cases = [  # (the query, what the rewrite starts with, the rows it returns)
        ("MATCH (p:Person)-[r:TAGGED]->(t:Tag {name: 'T1'}) RETURN p.name AS name", "(t:Tag {name: 'T1'})<-[r:TAGGED]-(p:Person)", 3334),
        ("MATCH (p:Person)-[:TAGGED]->(t:Tag) WHERE t.colour = 'c2' RETURN p.name AS name", "(t:Tag)<-[:TAGGED]-(p:Person)", 3333),
        ("MATCH (p:Person)-[:TAGGED]->(t:Tag {name: 'T1'})-[:IN]->(g:Group) RETURN p.name AS name, g.name AS group",
         "(t:Tag {name: 'T1'})<-[:TAGGED]-(p:Person), (t)-[:IN]->(g:Group)", 3334),
    ]
    for query, start, count in cases:
        found = explain(shell, f"%%gcypher --explain --alias big\n{query}")
        assert kinds(found) == ["starts at the far end"], query
        warning = found.warnings[0]
        assert warning.rewrite.endswith(f"MATCH {start}")
        assert ("testing colour on 3 :Tag nodes" if "colour" in query else "a property-index seek on name") in warning.reason
        assert f"more than {LARGE:,} :Person nodes" in warning.reason
        match = query[: query.index(" WHERE") if " WHERE" in query else query.index(" RETURN")]
        rewritten = query.replace(match, f"MATCH {start}", 1)
        assert rows(big, rewritten) == rows(big, query) and len(rows(big, query)) == count
        assert explain(shell, f"%%gcypher --explain --alias big\n{rewritten}").warnings == []
        marks = lint_query(big, query)  # the editor marks the pattern's first node
        assert [query[mark.start : mark.end] for mark in marks] == ["(p:Person"] and "far end" in marks[0].message
    # a rewrite the short text cannot say (a label expression here) is not offered
    assert explain(shell, "%%gcypher --explain --alias big\nMATCH (p:Person)-[:TAGGED]->(t:Tag|Group {name: 'T1'}) RETURN p").warnings == []
    # a far node found no faster (a label as large, an unindexed equality), or an unlabelled one: no warning
    assert explain(shell, "%%gcypher --explain --alias big\nMATCH (p:Person)-[:TAGGED]->(t:Tag)<-[:TAGGED]-(q:Person {email: 'x'}) RETURN p").warnings == []
    assert explain(shell, "%%gcypher --explain --alias big\nMATCH (t:Tag)<-[:TAGGED]-(p:Person) RETURN p").warnings == []
    assert digest(big_path) == before  # nothing written: the data file is the same


def test_a_slow_or_stopped_read_says_what_its_plan_finds_slow(shell, big, big_path, monkeypatch, capsys):
    slow = "MATCH (p:Person)-[r:TAGGED]->(t:Tag {name: 'T1'}) RETURN p.name AS name"
    fast = "MATCH (t:Tag {name: 'T1'})<-[r:TAGGED]-(p:Person) RETURN p.name AS name"
    run(shell, "%config GestaltMagic.rewrite_far_end = False")  # runs as written, its slow shape kept
    before = digest(big_path)
    monkeypatch.setattr(query_module, "EXPLAIN_AFTER", 0)  # every read counts as slow here
    said = [note for note in big.run(slow, limit=10_000).notes if note.startswith("This read took ")]
    assert len(said) == 1, said
    assert "s. Its plan has a known slow shape: starts at the far end (start from that node" in said[0]
    assert said[0].endswith(f"MATCH {fast[6:fast.index(' RETURN')]}). %%gcypher --explain says why.")
    assert not [note for note in big.run(fast, limit=10_000).notes if note.startswith("This read took ")]  # nothing slow in it
    # the cell shows it with its result (the text a person sees, and the table tab's banner)
    capsys.readouterr()
    shown = run(shell, f"%%gcypher --alias big --limit 10000\n{slow}")
    assert "\nThis read took " in capsys.readouterr().out  # printed under the result's summary line
    assert "Its plan has a known slow shape: starts at the far end" in dict(shown.view.tabs())["Table"]()
    monkeypatch.setattr(query_module, "EXPLAIN_AFTER", 3600)  # a read quicker than the threshold says nothing
    assert not [note for note in big.run(slow, limit=10_000).notes if note.startswith("This read took ")]
    # stopped by its time budget (reads of 10^8 rows: far past the watchdog's quarter-second look), the error says it,
    # after what to do about the budget; a read with no known slow shape is stopped as before
    with pytest.raises(BudgetExceeded, match=r"^Stopped: .*time budget.* Its plan has a known slow shape: cartesian product \(") as stopped:
        big.run("MATCH (a:Person), (b:Person) RETURN count(*) AS n", timeout=0.3)
    assert stopped.value.kind == "time"
    with pytest.raises(BudgetExceeded) as plain:
        big.run("MATCH (p:Person)-[:TAGGED]->(t:Tag)<-[:TAGGED]-(q:Person) RETURN count(*) AS n", timeout=0.3)
    assert plain.value.kind == "time" and "slow shape" not in str(plain.value)
    assert digest(big_path) == before  # explaining a slow read reads only


@pytest.mark.parametrize(
    "query",
    [
        "MATCH (p:Person)-[r:WORKS_FOR]->(c:Company) RETURN p, r, c",
        "MATCH (a {id: 'alice'})-[:KNOWS*1..2]->(b) RETURN b",
        "MATCH (p:Person {name: 'Alice Chen'})-[:KNOWS]->(f) RETURN f.name AS name ORDER BY name",
        "MATCH (c:Company)<-[:WORKS_FOR]-(p:Person) RETURN c.name AS company, count(p) AS staff ORDER BY staff DESC",
        "CALL { MATCH (p:Person) RETURN p } MATCH (p)-[:KNOWS]->(q) RETURN p, q",
        "MATCH SHORTEST 1 p = (a:Person {id: 'alice'})-[:KNOWS*]-(b:Person {id: 'eva'}) RETURN p",
        "MATCH (p {id: $id})-[:KNOWS]->(f) RETURN f",
    ],
)
def test_safe_queries_have_no_warning(shell, demo, query):
    assert explain(shell, f"%%gcypher --explain\n{query}").warnings == []


def test_plan_tree_limit_and_mode(shell, demo):
    found = explain(shell, "%%gcypher --explain --limit 20 -o plan\nMATCH (p:Person)-[:WORKS_FOR]->(c:Company)\nWHERE c.founded > 1990\nRETURN p, c")
    assert shell.user_ns["plan"] is found
    assert found.read_only and found.executed.endswith("LIMIT 21")
    assert "gestalt-nb adds LIMIT 21 (row limit 20)" in found.limit_note
    text = found.text()
    for expected in ("MATCH", "(p:Person)-[:WORKS_FOR]->(c:Company)", "start: label scan :Person (6 :Person nodes)",
                     "by typed adjacency (WORKS_FOR)", "filter WHERE c.founded > 1990", "project p, c",
                     "limit 21 (added by gestalt-nb"):
        assert expected in text
    assert "no slow shapes found" in found.summary()
    own = explain(shell, "%%gcypher --explain\nMATCH (p:Person) RETURN p LIMIT 5000")
    assert "no LIMIT added (the query's own LIMIT 5000 is kept" in own.limit_note
    union = explain(shell, "%%gcypher --explain\nMATCH (p:Person) RETURN p.name AS n UNION MATCH (c:Company) RETURN c.name AS n")
    assert "a UNION runs in full" in union.limit_note and "UNION branch 2 → n" in union.text()


def test_a_write_is_shown_as_one_and_not_run(shell, demo):
    before = snapshot(demo)
    for flag in ("", " --write"):
        found = explain(shell, f"%%gcypher --explain{flag}\nMATCH (p:Person {{id: 'alice'}}) SET p.h_index = 99 RETURN p")
        assert not found.read_only and found.writes == ("SET",)
        assert "needs --write" in found.summary() and "no LIMIT added (writes are never limited" in found.limit_note
    assert snapshot(demo) == before


def test_explain_shows_syntax_errors_like_a_run(shell, demo):
    from IPython.core.error import UsageError

    with pytest.raises(UsageError, match="never closed"):
        run(shell, "%%gcypher --explain\nMATCH (p:Person RETURN p")


def test_html_and_text_reprs_escape_the_query(shell, demo):
    as_written(shell)
    found = explain(shell, "%%gcypher --explain\nMATCH (p:Person {name: '<script>alert(1)</script>'})-[r]->(x) RETURN p")
    page = found._repr_html_()
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "untyped relationship" in page and repr(found) == found.text()


def test_warn_slow_prints_one_line_before_a_normal_run(shell, demo, capsys):
    as_written(shell)
    query = "MATCH (a:Person)-[r]->(b) RETURN a, r, b LIMIT 3"
    run(shell, f"%gcypher {query}")
    assert "slow shape" not in capsys.readouterr().out  # off by default
    run(shell, "%config GestaltMagic.warn_slow = True")
    result = run(shell, f"%gcypher {query}")
    printed = [line for line in capsys.readouterr().out.splitlines() if "slow shape" in line]
    assert len(printed) == 1 and "untyped relationship" in printed[0] and "--explain" in printed[0]
    assert len(result) == 3  # it still ran
    run(shell, "%gcypher MATCH (p:Person)-[:WORKS_FOR]->(c) RETURN p LIMIT 3")
    assert "slow shape" not in capsys.readouterr().out


def test_python_api(shell, demo):
    as_written(shell)
    found = gestalt_nb.explain("MATCH (a:Person)-[r]->(b) RETURN a", limit=7)
    assert kinds(found) == ["untyped relationship"] and found.executed.endswith("LIMIT 8")
    assert demo.explain("MATCH (p:Person) RETURN p").warnings == []


def test_untyped_patterns_are_rewritten_not_warned(shell, demo):
    """A graph where every relationship has a type: --explain plans the rewrite and warns about nothing it fixed."""
    query = "MATCH (a:Person)-[r]->(b) RETURN a, r, b"
    found = explain(shell, f"%%gcypher --explain\n{query}")
    assert "untyped relationship" not in kinds(found)
    assert found.rewrite.startswith("yes") and "-[r:AUTHORED|" in found.executed and found.executed.endswith("LIMIT 1001")
    assert "Rewritten: yes" in found.text() and "by typed adjacency" in found.text()
    assert "<b>Rewritten</b>" in found._repr_html_()
    result = run(shell, f"%%gcypher\n{query}")
    assert result.executed == found.executed and result.rewrite.startswith("yes")
    assert sorted(map(repr, result.records)) == sorted(map(repr, demo.graph.query_read_only(query)))
    typeless(demo)
    found = explain(shell, f"%%gcypher --explain\n{query}")
    assert "untyped relationship" in kinds(found) and "no type" in found.rewrite and found.executed.endswith(query + "\nLIMIT 1001")
    as_written(shell)
    assert "turned off" in explain(shell, f"%%gcypher --explain\n{query}").rewrite
