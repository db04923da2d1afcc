"""Preparing a query before it runs: GestaltDB's parser, the read-only check (every write clause, inside
``CALL { }`` too), the LIMIT pushed into a streaming read, what is unbounded, and syntax errors with
line, column and what to do."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gestaltdb.cypher import parse_ast
from gestaltdb.cypher_ast import (
    CreateClause,
    CreateConstraint,
    DeleteClause,
    DropConstraint,
    ForeachClause,
    FunctionCall,
    MergeClause,
    Query,
    RemoveClause,
    ReturnClause,
    SetClause,
    SubqueryClause,
    UnionQuery,
    WithClause,
)
from gestaltdb.cypher_errors import CypherSemanticError, CypherSyntaxError
from gestaltdb.query_engine.cypher.functions import is_aggregate_function

from ..checks import positive
from ..errors import GestaltError, caret_excerpt
from ..options import settings
from . import anchor, untyped
from .ast_text import walk
from .text import bracket_problem, mask, position

_WRITE_CLAUSES = {
    CreateClause: "CREATE",
    MergeClause: "MERGE",
    SetClause: "SET",
    RemoveClause: "REMOVE",
    DeleteClause: "DELETE",
    ForeachClause: "FOREACH",
}


_WRITE_COMMANDS = {CreateConstraint: "CREATE CONSTRAINT", DropConstraint: "DROP CONSTRAINT"}


@dataclass(frozen=True)
class Prepared:
    """What will run: the text (maybe with a pushed-down LIMIT) and what we learned parsing it."""

    text: str
    writes: tuple[str, ...]
    limit_added: bool
    own_limit: int | str | None  # a literal, or "$name" for a parameter
    is_union: bool
    #: Why LIMIT cannot bound the work (the budget does), or None for a streaming read.
    unbounded: str | None = None
    #: The argument expressions of every ``range(...)`` call, checked against the memory budget.
    ranges: tuple[tuple[Any, ...], ...] = ()
    #: Whether a relationship pattern names no type (the read may be rewritten: see untyped.py).
    untyped: bool = False


def _writes(node: Any) -> list[str]:
    if type(node) in _WRITE_COMMANDS:
        return [_WRITE_COMMANDS[type(node)]]
    if isinstance(node, UnionQuery):
        return [kind for branch in node.branches for kind in _writes(branch)]
    found: list[str] = []
    for clause in getattr(node, "clauses", ()) if isinstance(node, Query) else ():
        if type(clause) in _WRITE_CLAUSES:
            found.append(_WRITE_CLAUSES[type(clause)])
        elif isinstance(clause, SubqueryClause):
            found.extend(f"{kind} inside CALL {{}}" for kind in _writes(clause.query))
    return found


def _parse(query: str) -> Any:
    try:
        return parse_ast(query)
    except CypherSemanticError as exc:
        if "UNION branches must be read-only" in exc.message:
            raise GestaltError(
                "GestaltDB never runs a write inside a UNION branch, with or without --write. "
                "Run the write as its own query, then the UNION as a read."
            ) from exc
        raise GestaltError(_located("Cypher error", exc)) from exc
    except CypherSyntaxError as exc:
        raise GestaltError(_located("Cypher syntax error", exc)) from exc


_WRITE_WORD = re.compile(r"\b(CREATE|MERGE|SET|DELETE|REMOVE|FOREACH)\b", re.IGNORECASE)


_RETURN_WORD = re.compile(r"\bRETURN\b", re.IGNORECASE)


_EXPLAIN_WORD = re.compile(r"^\s*(EXPLAIN|PROFILE)\b", re.IGNORECASE)


_SHORTEST_IN_MATCH = re.compile(
    r"\bMATCH\s+(?:(?P<name>[A-Za-z_]\w*)\s*=\s*)?(?P<fn>shortestPath|allShortestPaths)\s*\(", re.IGNORECASE
)


_LABEL_IN_WHERE = re.compile(r"\b(?:WHERE|AND|OR|XOR|NOT)\s+(?:NOT\s+)?(?P<var>[A-Za-z_]\w*)\s*:\s*(?P<label>[A-Za-z_]\w*)", re.IGNORECASE)


_LEADING_PROJECTION = re.compile(r"^\s*(RETURN|WITH)\b", re.IGNORECASE)


def diagnose(source: str) -> tuple[str, int | None] | None:
    """What is wrong with Cypher the parser rejected, where it can be known, and where (an offset).

    Checked in order: an unclosed quote, unbalanced brackets, EXPLAIN/PROFILE, shortestPath in a
    MATCH, a label predicate in WHERE, a query starting with RETURN/WITH, a write without RETURN,
    a read without RETURN. None when the text shows none of these.
    """
    read = mask(source)
    if read.open_kind in ("'", '"', "`"):
        what = "name quoted with `" if read.open_kind == "`" else f"string opened with {read.open_kind}"
        return f"the {what} here is never closed; add the closing {read.open_kind}.", read.open_at
    if read.open_kind == "/*":
        return "the /* comment here is never closed; add */.", read.open_at
    text = read.text
    problem = bracket_problem(text)
    if problem is not None:
        return problem
    if (found := _EXPLAIN_WORD.search(text)) is not None:
        return (
            f"GestaltDB's Cypher has no {found.group(1).upper()} keyword. To see the plan without running the "
            "query, remove it and run the cell with %%gcypher --explain.",
            found.start(1),
        )
    if (found := _SHORTEST_IN_MATCH.search(text)) is not None:
        everything = found.group("fn").lower() == "allshortestpaths"
        name = found.group("name") or "p"
        selector = "ALL SHORTEST" if everything else "SHORTEST 1"
        return (
            f"{found.group('fn')}(...) is not a MATCH pattern here. Write MATCH {selector} {name} = (a)-[:TYPE*]-(b) ... "
            f"(a path selector), or bind both ends first and use it as an expression: "
            f"MATCH (a ...), (b ...) RETURN {found.group('fn')}((a)-[:TYPE*]-(b)) AS {name}.",
            found.start("fn"),
        )
    if (found := _LABEL_IN_WHERE.search(text)) is not None:
        var, label = found.group("var"), found.group("label")
        return (
            f"GestaltDB has no label predicates in WHERE ({var}:{label}); put the label in the pattern: "
            f"MATCH ({var}:{label}) ... (for NOT, use a label expression: MATCH ({var}:!{label})).",
            found.start("var"),
        )
    if (found := _LEADING_PROJECTION.search(text)) is not None:
        word = found.group(1).upper()
        return (
            f"a query cannot start with {word} in GestaltDB (so a bare RETURN 1 fails); start from a row: "
            f"UNWIND [1] AS _ {word} ...",
            found.start(1),
        )
    if not _RETURN_WORD.search(text):
        end = None  # at the end, where the parser stopped
        writes = sorted({word.upper() for word in _WRITE_WORD.findall(text)})
        if writes:
            return (
                f"this query writes ({', '.join(writes)}) but has no RETURN, and GestaltDB requires one after a write. "
                "Add it yourself — gestalt-nb does not add one — e.g. RETURN n, or RETURN count(*) AS written.",
                end,
            )
        return "this query has no RETURN; GestaltDB needs one at the end, e.g. RETURN n LIMIT 25.", end
    return None


def _located(kind: str, exc: CypherSyntaxError | CypherSemanticError) -> str:
    found = diagnose(exc.source) if isinstance(exc, CypherSyntaxError) else None
    if found is None:
        message = exc.message
        if message == "Unsupported Cypher query":
            message = (
                "GestaltDB's Cypher parser cannot read the query from here (it supports a subset of Cypher; "
                "python -m gestaltdb.agent_docs get cypher lists it)"
            )
        line, column = exc.line, exc.column
    else:
        message, offset = found
        line, column = (exc.line, exc.column) if offset is None else position(exc.source, offset)
    return f"{kind} at line {line}, column {column}: {message}\n{caret_excerpt(exc.source, line, column)}"


def rows_allowed(limit: Any) -> int:
    """The rows a read may return: ``limit``, else the setting; a whole number of at least 1 (numpy's too)."""
    return positive(settings.row_limit if limit is None else limit, "The row limit")


def prepare(query: str, row_limit: int) -> Prepared:
    """Parse ``query``; find its writes; push ``LIMIT row_limit+1`` into an unlimited read."""
    if not isinstance(query, str) or not query.strip():
        raise GestaltError("The query is empty. Put Cypher in the cell body, e.g. MATCH (n) RETURN n LIMIT 10.")
    parsed = _parse(query)
    writes = tuple(dict.fromkeys(_writes(parsed)))
    final = parsed.clauses[-1] if isinstance(parsed, Query) and parsed.clauses else None
    own_limit = final.limit if isinstance(final, ReturnClause) else None
    if own_limit is not None and not isinstance(own_limit, int):
        own_limit = f"${own_limit.name}"
    unbounded = _unbounded(parsed)
    ranges = tuple(_ranges(parsed))
    aggregates = isinstance(final, ReturnClause) and any(_aggregates(item) for item in final.items)
    if not writes and isinstance(final, ReturnClause) and final.limit is None and not aggregates:
        # A newline first, so a trailing // comment cannot swallow the LIMIT.
        text = f"{query.rstrip().rstrip(';')}\nLIMIT {row_limit + 1}"
        return Prepared(text, writes, True, None, False, unbounded, ranges, untyped.has_untyped(parsed))
    return Prepared(query, writes, False, own_limit, isinstance(parsed, UnionQuery), unbounded, ranges, untyped.has_untyped(parsed))


def _aggregates(node: Any) -> bool:
    return any(isinstance(item, FunctionCall) and is_aggregate_function(item.name) for item in walk(node))


def _unbounded(parsed: Any) -> str | None:
    """Why a LIMIT on the final RETURN cannot bound this read's work, in a few words."""
    if isinstance(parsed, UnionQuery):
        return "UNION runs every branch in full"
    for node in walk(parsed):
        if isinstance(node, FunctionCall) and is_aggregate_function(node.name):
            return f"{node.name}() reads every match first"
        if isinstance(node, (ReturnClause, WithClause)) and node.order_by:
            return "ORDER BY sorts every match first"
    return None


def ranges_in(query: str) -> tuple[tuple[Any, ...], ...]:
    """The argument expressions of every ``range(...)`` call in ``query`` (none if it does not parse)."""
    try:
        return tuple(_ranges(parse_ast(query)))
    except Exception:
        return ()


def _ranges(parsed: Any):
    for node in walk(parsed):
        if isinstance(node, FunctionCall) and node.name.lower() == "range" and len(node.arguments) in (2, 3):
            yield tuple(node.arguments)


def begun_where_found(db: Any, prepared: Prepared, text: str, row_limit: int) -> tuple[Prepared, anchor.Anchored | None]:
    """``prepared`` (``text`` prepared) begun at a node found directly when its first pattern starts at its far end
    (:mod:`.anchor`; never a write; ``rewrite_far_end`` on), and what was decided (None: nothing to decide). What
    ``run`` runs and ``--explain`` plans."""
    far = anchor.decide(db, text) if not prepared.writes and settings.rewrite_far_end else None
    return (prepare(far.text, row_limit) if far is not None and far.applied else prepared), far
