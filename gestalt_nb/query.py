"""Read-only-by-default, bounded Cypher execution with errors a person can act on.

The query is parsed once up front: syntax errors come back with line, column and a caret; writes
are found and refused unless ``write=True``; a read whose final ``RETURN`` has no ``LIMIT`` gets
``LIMIT row_limit + 1`` so the work is bounded and truncation is known. Reads then run through the
adapter's ``query_read_only``, which checks the parsed query again before anything executes.
Writes are never given a LIMIT (it could change what they write); only their returned rows are cut.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

from gestaltdb.cypher import parse_ast
from gestaltdb.cypher_ast import (
    CreateClause,
    CreateConstraint,
    DeleteClause,
    DropConstraint,
    ForeachClause,
    MergeClause,
    Query,
    RemoveClause,
    ReturnClause,
    SetClause,
    SubqueryClause,
    UnionQuery,
)
from gestaltdb.cypher_errors import CypherSemanticError, CypherSyntaxError
from langchain_gestaltdb import ReadOnlyQueryError

from . import ids
from .cypher_text import bracket_problem, mask, position
from .errors import GestaltError, caret_excerpt
from .options import settings
from .result import QueryResult
from .session import Connection
from .subgraph import from_records

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
    if not writes and isinstance(final, ReturnClause) and final.limit is None:
        # A newline first, so a trailing // comment cannot swallow the LIMIT.
        text = f"{query.rstrip().rstrip(';')}\nLIMIT {row_limit + 1}"
        return Prepared(text, writes, True, None, False)
    return Prepared(query, writes, False, own_limit, isinstance(parsed, UnionQuery))


def _refusal(writes: tuple[str, ...]) -> str:
    return (
        f"Refused: this query writes ({', '.join(writes)}) and queries are read-only by default. "
        "Nothing was run and the database is unchanged. To allow writes, run it again with "
        "%%gcypher --write (or run(..., write=True))."
    )


def _failure(exc: Exception, params: dict[str, Any]) -> GestaltError:
    message = str(exc)
    if message.startswith("Missing Cypher parameter"):
        name = message.rsplit("$", 1)[-1]
        given = ", ".join(sorted(params)) or "none"
        return GestaltError(
            f"Missing query parameter ${name} (given: {given}). Pass values with -P, "
            f"e.g. %%gcypher -P {{'{name}': ...}}, or -P NAME_OF_A_DICT."
        )
    if type(exc).__name__ == "MapFullError":
        return GestaltError(
            "The database is full (LMDB map size reached); the write was rolled back. Close it and reopen "
            "with a larger map: %gestalt open PATH --map-size 16GiB."
        )
    if "'int' object has no attribute 'encode'" in message:
        return GestaltError(
            "Query failed: an integer was used where GestaltDB needs an id string. Integer ids are stored as "
            f"'{ids.PREFIX}N' (write {{id: '{ids.PREFIX}0'}} or id(n) = '{ids.PREFIX}0'); literals in {{id: 0}}, id(n) = 0, "
            "id(n) IN [...] and n.id = 0 are translated for you, parameters are not."
        )
    return GestaltError(f"Query failed: {message or type(exc).__name__}")


def run(
    connection: Connection,
    query: str,
    params: dict[str, Any] | None = None,
    *,
    write: bool = False,
    limit: int | None = None,
) -> QueryResult:
    """Run ``query`` on ``connection`` and return a bounded :class:`QueryResult`.

    Read-only unless ``write=True``. At most ``limit`` rows (default ``settings.row_limit``) are
    kept; ``truncated`` says whether more existed. The row bound limits work only where a LIMIT
    can be pushed into the final RETURN of a read; a UNION, or a query's own larger LIMIT, runs
    in full and is then cut.
    """
    row_limit = settings.row_limit if limit is None else limit
    if not isinstance(row_limit, int) or isinstance(row_limit, bool) or row_limit < 1:
        raise GestaltError(f"The row limit must be a positive whole number, not {row_limit!r}.")
    params = dict(params or {})
    graph = connection.graph
    connection.db  # fails clearly when the connection or its graph is closed
    prepared = prepare(query, row_limit)
    text, rewritten = ids.rewrite(query)
    if rewritten:  # integer ids as written (0) → the stored form ('__lc_int__:0')
        prepared = prepare(text, row_limit)
    if prepared.writes and not write:
        raise GestaltError(_refusal(prepared.writes))
    started = time.perf_counter()
    try:
        if prepared.writes:
            # Writes inside CALL {} only run outside a read snapshot; top-level writes are unaffected.
            records = graph.query(prepared.text, params, read_snapshot=False)
        elif write:
            records = graph.query(prepared.text, params)
        else:
            records = graph.query_read_only(prepared.text, params)
    except ReadOnlyQueryError as exc:
        raise GestaltError(
            f"Refused as not provably read-only: {exc}. Nothing was run. If you know it only reads, run it with --write."
        ) from exc
    except GestaltError:
        raise
    except Exception as exc:  # the engine's own errors: keep its message, drop the traceback
        raise _failure(exc, params) from exc
    elapsed = time.perf_counter() - started
    if prepared.writes: connection.feed.publish("cypher", None, exact=False)  # noqa: E701
    truncated = len(records) > row_limit
    notes = _notes(prepared, row_limit, truncated)
    if rewritten:
        shown = ", ".join(map(str, rewritten[:5])) + (", …" if len(rewritten) > 5 else "")
        notes.append(
            f"Integer id {shown} matched as stored ('{ids.PREFIX}{rewritten[0]}'); the query that ran is in Info."
            + (" No node has that integer id; if the ids are text, quote them: {id: '0'}." if not records else "")
        )
    records = records[:row_limit]
    columns = list(records[0]) if records else _columns(prepared.text)
    return QueryResult(
        query=query,
        params=params,
        records=records,
        columns=columns,
        truncated=truncated,
        row_limit=row_limit,
        elapsed=elapsed,
        alias=connection.alias,
        write=bool(prepared.writes),
        executed=prepared.text,
        notes=notes,
        subgraph=from_records(records, title=_title(query), fetch=connection.nodes),
    )


def _title(query: str) -> str:
    first = " ".join(query.split())
    return first if len(first) <= 80 else first[:79] + "…"


def _notes(prepared: Prepared, row_limit: int, truncated: bool) -> list[str]:
    if not truncated:
        return []
    if prepared.limit_added:
        return [f"Showing {row_limit:,} of more than {row_limit:,} rows (row limit; raise it with --limit)."]
    if prepared.writes:
        return [f"All writes were applied; only the first {row_limit:,} returned rows are kept (--limit)."]
    own = f"{prepared.own_limit:,}" if isinstance(prepared.own_limit, int) else prepared.own_limit
    reason = (
        f"the query's own LIMIT {own} is above the row limit"
        if prepared.own_limit is not None
        else "the row limit could not be pushed into this query (UNION or no final RETURN), so it ran in full"
    )
    return [f"Showing the first {row_limit:,} rows: {reason}. Raise it with --limit."]


def _columns(text: str) -> list[str]:
    """Column names for an empty result, from the query plan (no rows to read them from)."""
    from gestaltdb.cypher import plan

    try:
        return list(plan(text).columns)
    except Exception:
        return []
