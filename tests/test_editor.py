"""The editor's kernel side (gestalt_nb.cypher.lint / .format) and the committed labextension build.

Lint marks carry the message and place the cell itself shows when run (the cell is run here to
compare), and the --explain slow shapes; format is idempotent and plans the same; hover text comes
from the schema sample; the comm's answers never raise and never run the query. The browser side
is tests/test_editor_browser.py.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from gestaltdb.cypher import plan as plan_query

from gestalt_nb.canvas import bundle
from gestalt_nb.cypher.explain import explain
from gestalt_nb.cypher.format import format_cell, format_query, tokens
from gestalt_nb.cypher.lint import answer, cell_query, hover, lint_cell
from gestalt_nb.cypher.prepare import prepare
from gestalt_nb.magics.cypher_args import split_line
from gestalt_nb.session import REGISTRY

from .conftest import run
from .test_gcypher import snapshot

ROOT = Path(__file__).resolve().parents[1]
BUILT = ROOT / "gestalt_nb" / "labextension"


def resolve(alias):
    return REGISTRY.get(alias)


def lint(connection, source):
    return lint_cell(connection, source, split_line)


def cell_error(shell, source: str) -> str:
    """The first line of the error the cell shows when run."""
    with pytest.raises(Exception) as info:
        run(shell, source)
    return str(info.value).split("\n", 1)[0]


# -- lint ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("query", "at"),
    [
        ("MATCH (n:Person RETURN n", "(n:Person"),
        ("MATCH (n:Person) RETURN n.name,", ","),
        ("MATCH (n) WHERE n.name = 'Ada RETURN n", "'Ada"),
        ("RETURN 1", "RETURN"),
        ("MATCH (n)\nWHERE n:Person\nRETURN n", "n:Person"),
        ("MATCH (n) RETURN n)", ")"),
    ],
)
def test_an_error_is_marked_where_and_as_the_cell_reports_it(shell, demo, query, at):
    source = f"%%gcypher\n{query}"
    before = snapshot(demo)
    marks = lint(demo, source)
    assert len(marks) == 1 and marks[0]["severity"] == "error"
    mark = marks[0]
    assert mark["message"] == cell_error(shell, source)
    assert source[mark["start"]:].startswith(at[:1]) and mark["end"] > mark["start"]
    line, column = map(int, re.search(r"line (\d+), column (\d+)", mark["message"]).groups())
    body_lines = source.split("\n")[1:]
    assert mark["start"] == len("%%gcypher\n") + sum(len(text) + 1 for text in body_lines[: line - 1]) + column - 1 or at == ","
    assert snapshot(demo) == before


@pytest.mark.parametrize(
    ("query", "kind", "marked"),
    [
        ("MATCH (a:Person)-[r]->(b) RETURN a, r, b", "untyped relationship", "-[r]->"),
        ("MATCH (a:Person)-->(b) RETURN a", "untyped relationship", "-->"),
        ("MATCH (a:Person)-[*1..3]-(b:Company) RETURN a, b", "untyped variable-length relationship", "-[*1..3]-"),
        ("MATCH (a:Person {name: 'Alice Chen'}), (c:Company) RETURN a, c", "cartesian product", "(c:Company"),
        ("MATCH (a:Person) MATCH (p:Paper) RETURN a, p", "cartesian product", "(p:Paper"),
    ],
)
def test_slow_shapes_are_warnings_on_the_part_they_name(shell, demo, query, kind, marked):
    source = f"%%gcypher\n{query}"
    if kind.startswith("untyped"):
        # Rewritten to every type before it runs (cypher/untyped.py): nothing left to warn about ...
        assert not [mark for mark in lint(demo, source) if kind + ":" in mark["message"]]
        run(shell, "%config GestaltMagic.rewrite_untyped = False")  # ... unless it runs as written
    marks = lint(demo, source)
    warned = [mark for mark in marks if kind + ":" in mark["message"]]
    assert warned and all(mark["severity"] == "warning" for mark in marks)
    assert source[warned[0]["start"]:warned[0]["end"]] == marked
    expected = next(w for w in explain(demo, query).warnings if w.kind == kind)
    assert expected.line() in warned[0]["message"]  # the --explain text itself


def test_large_label_scan_and_order_by_warnings_are_placed(shell, demo):
    people = len(demo.db.query("MATCH (p:Person) RETURN p").records)
    run(shell, f"%config GestaltMagic.row_limit = {people - 1}")
    source = "%%gcypher\nMATCH (p:Person) RETURN p.name AS name ORDER BY name"
    marks = lint(demo, source)
    assert [source[m["start"]:m["end"]] for m in marks] == ["ORDER BY"]


@pytest.mark.parametrize(
    "query",
    [
        "MATCH (p:Person)-[r:WORKS_FOR]->(c:Company) RETURN p, r, c",
        "MATCH (p:Person {name: $name})-[:KNOWS]->(f) RETURN f.name AS name // a comment",
        "UNWIND [1, 2] AS x RETURN x",
        "",
    ],
)
def test_a_query_the_engine_accepts_shows_nothing(shell, demo, query):
    assert lint(demo, f"%%gcypher --limit 5\n{query}") == []


def test_other_cells_and_no_connection(shell):
    assert lint(None, "print('MATCH (n RETURN n')") == []
    assert lint(None, "%%gcypherx\nMATCH (n RETURN n") == []
    marks = lint(None, "%%gcypher\nMATCH (n RETURN n")  # no connection: the parser still answers
    assert [m["severity"] for m in marks] == ["error"]
    assert lint(None, "%%gcypher\nMATCH (a)-[r]->(b) RETURN a") == []  # warnings need the data


def test_line_magic_offsets_and_utf16_positions(shell, demo):
    run(shell, "%config GestaltMagic.rewrite_untyped = False")  # the untyped warning is the mark placed here
    source = "%gcypher --limit 5 -P {'x': 1} MATCH (a:Person)-[r]->(b) RETURN a"
    found = cell_query(source, split_line)
    assert found.query == "MATCH (a:Person)-[r]->(b) RETURN a" and source[found.offset:] == found.query
    [mark] = lint(demo, source)
    assert source[mark["start"]:mark["end"]] == "-[r]->"
    emoji = "%%gcypher\nMATCH (a:Person {name: '😀'})-[r]->(b) RETURN a"
    [mark] = lint(demo, emoji)
    utf16 = emoji.encode("utf-16-le")
    assert utf16[mark["start"] * 2 : mark["end"] * 2].decode("utf-16-le") == "-[r]->"


def test_an_alias_option_picks_the_connection(shell, demo, tmp_path):
    run(shell, "%config GestaltMagic.rewrite_untyped = False")  # the untyped warning names each graph's types
    run(shell, f"%gestalt create {tmp_path / 'empty'} --alias empty")  # now current, and empty
    query = "MATCH (a:Person)-[r]->(b) RETURN a"
    [current] = answer({"op": "lint", "source": f"%%gcypher\n{query}"}, resolve, split_line)["marks"]
    [chosen] = answer({"op": "lint", "source": f"%%gcypher --alias demo\n{query}"}, resolve, split_line)["marks"]
    assert "-[r:TYPE]->" in current["message"]  # the empty graph knows no types
    assert "KNOWS" in chosen["message"]  # the demo graph's types, as the cell with --alias demo would say


# -- the comm's answers ------------------------------------------------------------------------
def test_answers_never_raise_and_run_nothing(shell, demo):
    before = snapshot(demo)
    write = "%%gcypher\nCREATE (n:Person {name: 'Mallory'}) RETURN n"
    assert answer({"id": 3, "op": "lint", "source": write}, resolve, split_line) == {"id": 3, "marks": []}
    assert snapshot(demo) == before  # a write is parsed and planned, never run
    assert "error" in answer({"id": 1, "op": "nope", "source": ""}, resolve, split_line)
    assert "error" in answer({"id": 1, "op": "lint", "source": None}, resolve, split_line)
    assert "error" in answer("not a dict", resolve, split_line)
    assert "error" in answer({"op": "lint", "source": "x" * 300_000}, resolve, split_line)
    hovered = answer({"id": 2, "op": "hover", "source": "%%gcypher\nMATCH (n:Person) RETURN n", "name": "Person", "kind": "label"},
                     resolve, split_line)
    assert hovered["id"] == 2 and hovered["text"].startswith(":Person (label) — ")
    formatted = answer({"id": 4, "op": "format", "source": "%%gcypher\nmatch (n) return n"}, resolve, split_line)
    assert formatted["source"] == "%%gcypher\nMATCH (n)\nRETURN n"
    json.dumps([hovered, formatted])  # JSON-able, as the comm sends it


def test_hover_counts_and_properties_from_the_schema_sample(shell, demo):
    people = len(demo.db.query("MATCH (p:Person) RETURN p").records)
    text = hover(demo, "Person", "label")
    assert text.startswith(f":Person (label) — {people} nodes; properties: ") and "name" in text
    knows = len(demo.db.query("MATCH ()-[r:KNOWS]->() RETURN r").records)
    assert hover(demo, "KNOWS", "type").startswith(f":KNOWS (relationship type) — {knows} relationship")
    assert hover(demo, "Nothing", "label") is None and hover(demo, "Person", "type") is None


# -- format ------------------------------------------------------------------------------------
FORMAT_CORPUS = [
    "match (a:Person)-[:KNOWS]->(b:Person) where a.name <> 'x' with a, count(b) as friends "
    "order by friends desc limit 5 return a.name as name, friends",
    "match (n:Person {name: 'match where return'}) // keep: match return\nreturn n.name   as  name skip $skip limit $limit",
    "MATCH (p:Person) WHERE p.name STARTS WITH 'A' AND p.born IS NOT NULL RETURN p.name ORDER BY p.name",
    "call { match (p:Person) return p } match (p)-[:KNOWS]->(q) return p, q",
    "match (c:Company)<-[:WORKS_FOR]-(p:Person) return c.name as company, count(p) as staff order by staff desc",
    "unwind [1, 2, 3] as x with x where x > 1 return x, [y in [1,2] where y > x | y] as ys",
    "match (n {limit: 1}) /* block\n comment */ return n",
    "MATCH (p:Person)-[r:KNOWS]->(q) RETURN p, r, q UNION MATCH (p:Person)-[r:WORKS_FOR]->(q) RETURN p, r, q",
]


@pytest.mark.parametrize("query", FORMAT_CORPUS)
def test_format_is_idempotent_keeps_text_and_plans_the_same(shell, demo, query):
    formatted = format_query(query)
    assert format_query(formatted) == formatted
    kept = lambda text: [t for kind, t in tokens(text) if kind in ("string", "line", "block", "param", "name")]
    assert kept(formatted) == kept(query)
    executed = lambda text: prepare(text, 1000).text
    assert plan_query(executed(formatted)) == plan_query(executed(query))
    assert explain(demo, formatted).tree == explain(demo, query).tree


def test_format_gives_one_clause_per_line_and_upper_case_keywords():
    formatted = format_query(FORMAT_CORPUS[0])
    assert formatted.split("\n") == [
        "MATCH (a:Person)-[:KNOWS]->(b:Person)",
        "WHERE a.name <> 'x'",
        "WITH a, count(b) AS friends",
        "ORDER BY friends DESC",
        "LIMIT 5",
        "RETURN a.name AS name, friends",
    ]
    assert format_query(FORMAT_CORPUS[3]).split("\n")[:4] == ["CALL {", "  MATCH (p:Person)", "  RETURN p", "}"]
    assert "{limit: 1}" in format_query(FORMAT_CORPUS[6])  # a map key is not a keyword
    assert "[y IN [1,2] WHERE y > x | y]" in format_query(FORMAT_CORPUS[5])  # inside brackets: no line break
    assert format_query("MERGE (n:X {id: 1}) on create set n.a = 1 RETURN n").split("\n") == [
        "MERGE (n:X {id: 1})", "  ON CREATE SET n.a = 1", "RETURN n"]
    assert format_cell("%%gcypher --limit 3\nmatch (n) return n\n") == "%%gcypher --limit 3\nMATCH (n)\nRETURN n\n"
    assert format_cell("print(1)") is None and format_cell("%gcypher MATCH (n) RETURN n") is None


# -- the committed build ------------------------------------------------------------------------
def test_the_committed_labextension_is_built_from_the_committed_sources():
    expected = bundle.source_hash(ROOT / "js" / "labextension")
    committed = (BUILT / "source.hash").read_text(encoding="utf-8").strip()
    assert committed == expected, "gestalt_nb/labextension is stale: run `npm ci && npm run build` in js/labextension/"
    built = json.loads((BUILT / "package.json").read_text(encoding="utf-8"))
    source = json.loads((ROOT / "js" / "labextension" / "package.json").read_text(encoding="utf-8"))
    assert (built["name"], built["version"]) == (source["name"], source["version"])
    assert (BUILT / built["jupyterlab"]["_build"]["load"]).is_file()
    shared = built["jupyterlab"]["sharedPackages"]
    assert all(shared[name]["singleton"] and not shared[name]["bundled"] for name in ("@codemirror/view", "@codemirror/state", "@codemirror/language"))


def test_the_wheel_installs_the_labextension_as_shared_data():
    if sys.version_info < (3, 11):
        pytest.skip("tomllib")
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    shared = config["tool"]["hatch"]["build"]["targets"]["wheel"]["shared-data"]
    assert shared["gestalt_nb/labextension"] == "share/jupyter/labextensions/gestalt-nb-editor"


def test_editor_sources_put_kernel_text_in_the_page_only_as_text():
    forbidden = re.compile(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function")
    offenders = [
        f"{path.name}:{number}"
        for path in sorted((ROOT / "js" / "labextension" / "src").rglob("*.js"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if forbidden.search(line)
    ]
    assert offenders == []
