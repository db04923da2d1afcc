"""Syntax errors that say what is wrong, and help generated from every magic's argument parser."""

from __future__ import annotations

import argparse

import pytest
from IPython.core.error import UsageError

from gestalt_nb.magics import magic as magics
from gestalt_nb.magics.help import default_text, invocation, subcommands

from .conftest import raw, run


@pytest.mark.parametrize(
    ("query", "says", "caret_under"),
    [
        ("MATCH (p:Person RETURN p", "the `(` opened here is never closed; add `)`", "(p:Person"),
        ("MATCH (p:Person)-[:KNOWS->(q) RETURN q", "the `[` opened here is never closed; add `]`", "[:KNOWS"),
        ("MATCH (p:Person)) RETURN p", "`)` closes nothing", ") RETURN"),
        ("MATCH (p:Person]) RETURN p", "`]` cannot close the `(` opened at line 1, column 7", "]) RETURN"),
        ("MATCH (p:Person) RETURN [p.name, p.born", "the `[` opened here is never closed", "[p.name"),
        ("MATCH (p:Person {name: 'Alice}) RETURN p", "the string opened with ' here is never closed", "'Alice"),
        ('MATCH (p:Person) WHERE p.name = "Bob RETURN p', 'the string opened with " here is never closed', '"Bob'),
        ("MATCH (p:Person)\nWHERE p.h_index > 3", "this query has no RETURN", None),
        ("MATCH p = shortestPath((a:Person {id: 'alice'})-[:KNOWS*]-(b:Person {id: 'eva'})) RETURN p",
         "Write MATCH SHORTEST 1 p = (a)-[:TYPE*]-(b)", "shortestPath("),
        ("MATCH p = allShortestPaths((a:Person)-[:KNOWS*]-(b:Person)) RETURN p",
         "Write MATCH ALL SHORTEST p = ", "allShortestPaths("),
        ("MATCH p = shortestPath((a)-[:KNOWS*]-(b)) RETURN p", "RETURN shortestPath((a)-[:TYPE*]-(b)) AS p", None),
        ("EXPLAIN MATCH (p:Person) RETURN p", "no EXPLAIN keyword", "EXPLAIN"),
        ("PROFILE MATCH (p:Person) RETURN p", "run the cell with %%gcypher --explain", "PROFILE"),
        ("MATCH (p) WHERE p:Person RETURN p", "no label predicates in WHERE (p:Person); put the label in the pattern: MATCH (p:Person)", "p:Person RETURN"),
        ("MATCH (p:Person) WHERE p.h_index > 3 AND NOT p:Company RETURN p", "MATCH (p:!Company)", "p:Company"),
        ("RETURN 1", "cannot start with RETURN", "RETURN 1"),
        ("RETURN 1 + 2 AS three", "UNWIND [1] AS _ RETURN", "RETURN 1"),
    ],
)
def test_each_syntax_error_class_says_what_is_wrong(shell, demo, query, says, caret_under):
    with pytest.raises(UsageError) as caught:
        run(shell, f"%%gcypher\n{query}")
    message = str(caught.value)
    assert message.startswith("Cypher syntax error at line ")
    assert says in message
    head, _, excerpt = message.partition("\n")
    source_line, caret_line = excerpt.splitlines()
    line = int(head.split("line ")[1].split(",")[0])
    column = int(head.split("column ")[1].split(":")[0])
    assert source_line == "  " + query.splitlines()[line - 1]
    assert caret_line == "  " + " " * (column - 1) + "^"
    if caret_under is not None:
        assert source_line[2 + column - 1 :].startswith(caret_under)


@pytest.mark.parametrize("query", ["CREATE (n:Person {name: 'Zed'})", "MATCH (p:Person {id: 'alice'})\nSET p.h_index = 99"])
def test_a_write_without_return_is_named_not_patched(shell, demo, query):
    before = raw(demo, "MATCH (p:Person) RETURN p.name AS name, p.h_index AS h ORDER BY name")
    with pytest.raises(UsageError) as caught:
        run(shell, f"%%gcypher --write\n{query}")
    message = str(caught.value)
    assert "has no RETURN, and GestaltDB requires one after a write" in message
    assert "gestalt-nb does not add one" in message
    assert raw(demo, "MATCH (p:Person) RETURN p.name AS name, p.h_index AS h ORDER BY name") == before
    run(shell, f"%%gcypher --write\n{query} RETURN count(*) AS written")  # the suggested fix works


def test_an_error_with_no_known_cause_keeps_the_parsers_position(shell, demo):
    with pytest.raises(UsageError) as caught:
        run(shell, "%%gcypher\nMATCH (p:Person) RETURN p ORDER p.name")
    message = str(caught.value)
    column = len("MATCH (p:Person) RETURN p ORDER ") + 1  # where the engine's parser stopped
    assert message.startswith(f"Cypher syntax error at line 1, column {column}: GestaltDB's Cypher parser cannot read")
    assert message.endswith("  MATCH (p:Person) RETURN p ORDER p.name\n  " + " " * (column - 1) + "^")


def test_valid_text_that_looks_suspicious_is_not_blamed(shell, demo):
    rows = run(shell, "%%gcypher\nMATCH (p:Person {name: 'a (b] c'}) // RETURN ( [\nRETURN p")
    assert len(rows) == 0


# -- help ------------------------------------------------------------------------------------
def _docstring(shell, name: str) -> str:
    """What ``%name?`` (or ``%%name?`` for a cell-only magic) shows."""
    return shell.object_inspect(f"%{name}")["docstring"] or shell.object_inspect(f"%%{name}")["docstring"]


def _check_actions(page: str, parser: argparse.ArgumentParser) -> int:
    checked = 0
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            continue
        line = next((text for text in page.splitlines() if text.strip().startswith(invocation(action) + " ")), None)
        assert line is not None, f"{parser.prog}: {invocation(action)} is not listed"
        assert action.help and action.help in line, f"{parser.prog}: {invocation(action)} has no meaning"
        assert "default" in line and (default_text(action) in line or "default" in action.help)
        checked += 1
    return checked


@pytest.mark.parametrize("entry", magics.HELP, ids=[entry[0] for entry in magics.HELP])
def test_help_lists_every_option_of_every_magic(shell, entry):
    name, build, summary, example, _ = entry
    page = _docstring(shell, name)
    parser = build()
    assert page.startswith(summary)
    assert page.rstrip().endswith("\n".join("  " + line for line in example.strip().splitlines()))
    commands = subcommands(parser)
    if commands:
        for command, meaning, sub in commands:
            assert f"{parser.prog} {command}" in page and meaning in page
            section = page.split(f"  {parser.prog} {command}", 1)[1].split(f"\n  {parser.prog} ", 1)[0]
            _check_actions(section.split("\n", 1)[1] if "\n" in section else "", sub)  # below its usage line
    else:
        assert _check_actions(page, parser) == len(parser._actions)


def test_every_magic_has_a_help_entry(shell):
    magics_of = shell.magics_manager.registry["GestaltMagic"].magics
    registered = set(magics_of["line"]) | set(magics_of["cell"])
    assert registered == {entry[0] for entry in magics.HELP}


def test_the_help_examples_run(shell, demo):
    """The examples are real: the %gcypher one runs on the demo graph as written."""
    example = dict((entry[0], entry[3]) for entry in magics.HELP)["gcypher"]
    result = run(shell, example)
    assert len(result) == len(raw(demo, "MATCH (p:Person)-[r:WORKS_FOR]->(c:Company) RETURN p"))
