"""Read-only-by-default, bounded Cypher execution with errors a person can act on.

The query is parsed once up front: syntax errors come back with line, column and a caret; writes
are found and refused unless ``write=True``; a streaming read whose final ``RETURN`` has no
``LIMIT`` gets ``LIMIT row_limit + 1`` so the work is bounded and truncation is known. Reads then
run through the adapter's ``query_read_only``, which checks the parsed query again before anything
executes, within a time and memory budget (:mod:`gestalt_nb.cypher.budget`): a final ``RETURN`` that
aggregates gets no LIMIT (it would bound nothing), and aggregation, ``ORDER BY``, ``collect`` and
``UNION`` — which read every match first — are bounded by the budget alone. Writes are never given a
LIMIT (it could change what they write) nor a budget (stopping one midway is unsafe); only their
returned rows are cut.
"""

from __future__ import annotations

import dataclasses
import re
import time
from dataclasses import dataclass
from typing import Any, TYPE_CHECKING

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
from langchain_gestaltdb import ReadOnlyQueryError

from ..graph import names
from ..graph import ids
from ..options import parse_bytes
from .budget import Budget, over_budget_up_front, run_within
from . import untyped
from .text import bracket_problem, mask, position
from ..errors import GestaltError, caret_excerpt, storage_problem
from ..options import settings
from .result import QueryResult
from ..graph.subgraph import from_records

if TYPE_CHECKING:  # only for annotations: capabilities never import the session at run time
    from ..session import Connection

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


def _children(node: Any):
    if isinstance(node, (tuple, list)):
        yield from node
    elif dataclasses.is_dataclass(node) and not isinstance(node, type):
        for item in dataclasses.fields(node):
            if item.name not in ("span", "source"):
                yield getattr(node, item.name)


def _walk(node: Any):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(_children(current))


def _aggregates(node: Any) -> bool:
    return any(isinstance(item, FunctionCall) and is_aggregate_function(item.name) for item in _walk(node))


def _unbounded(parsed: Any) -> str | None:
    """Why a LIMIT on the final RETURN cannot bound this read's work, in a few words."""
    if isinstance(parsed, UnionQuery):
        return "UNION runs every branch in full"
    for node in _walk(parsed):
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
    for node in _walk(parsed):
        if isinstance(node, FunctionCall) and node.name.lower() == "range" and len(node.arguments) in (2, 3):
            yield tuple(node.arguments)


def _range_items(arguments: tuple[Any, ...], params: dict[str, Any]) -> int:
    """How many values ``range(...)`` will build, when its bounds need no data (literals, parameters,
    arithmetic on them); 0 when they depend on matched data (the watchdog bounds those)."""
    from gestaltdb.query_engine.cypher.expr import evaluate_expression
    from gestaltdb.query_engine.cypher.runtime import QueryContext

    context = QueryContext(graph=None, parameters=params)
    values = []
    for item in arguments:
        if any(isinstance(node, FunctionCall) and node.name.lower() == "range" for node in _walk(item)):
            return 0  # never build a nested range here, outside the budget; it is checked on its own
        try:
            values.append(evaluate_expression(item, {}, context))
        except Exception:
            return 0
    if len(values) == 2:
        values.append(1)
    if not all(isinstance(value, int) and not isinstance(value, bool) for value in values) or values[2] == 0:
        return 0
    start, end, step = values
    return max(0, (end - start) // step + 1)


def _refusal(writes: tuple[str, ...]) -> str:
    return (
        f"Refused: this query writes ({', '.join(writes)}) and queries are read-only by default. "
        "Nothing was run and the database is unchanged. To allow writes, run it again with "
        "%%gcypher --write (or run(..., write=True))."
    )


def _failure(exc: Exception, params: dict[str, Any], connection: Connection | None = None) -> GestaltError:
    message = str(exc)
    storage = storage_problem(exc, connection.path, "write to the database") if connection and connection.path else None
    if storage:
        return GestaltError(storage)
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
    timeout: float | None = None,
    memory_limit: int | str | None = None,
    budget: Budget | None = None,
) -> QueryResult:
    """Run ``query`` on ``connection`` and return a bounded :class:`QueryResult`.

    Read-only unless ``write=True``. At most ``limit`` rows (default ``settings.row_limit``) are
    kept; ``truncated`` says whether more existed. The row bound limits work only where a LIMIT
    can be pushed into the final RETURN of a streaming read. Every read also runs within a time
    budget (``timeout`` seconds, default ``settings.timeout``) and a memory budget (what the
    process may gain, ``memory_limit``, default ``settings.memory_limit``); a read that spends
    either is stopped and :class:`~gestalt_nb.cypher.budget.BudgetExceeded` says which and how to raise
    it. ``budget`` passes both at once (agent tools do).
    """
    _check_write_flag(write)
    row_limit = settings.row_limit if limit is None else limit
    if not isinstance(row_limit, int) or isinstance(row_limit, bool) or row_limit < 1:
        raise GestaltError(f"The row limit must be a positive whole number, not {row_limit!r}.")
    params = dict(params or {})
    budget = budget or cell_budget(timeout, memory_limit)
    graph = connection.graph
    connection.db  # fails clearly when the connection or its graph is closed
    prepared = prepare(query, row_limit)
    text, rewritten = ids.rewrite(query)
    if rewritten:  # integer ids as written (0) → the stored form ('__lc_int__:0')
        prepared = prepare(text, row_limit)
    if prepared.writes and not write:
        raise GestaltError(_refusal(prepared.writes))
    usage = rewrite = None
    started = time.perf_counter()
    try:
        if prepared.writes:
            # Writes inside CALL {} only run outside a read snapshot; top-level writes are unaffected.
            records = graph.query(prepared.text, params, read_snapshot=False)
        else:
            check_ranges(prepared.ranges, params, budget)
            (records, rewrite), usage = run_within(lambda: untyped.run_read(graph, prepared, params, write), budget)
    except ReadOnlyQueryError as exc:
        raise GestaltError(
            f"Refused as not provably read-only: {exc}. Nothing was run. If you know it only reads, run it with --write."
        ) from exc
    except GestaltError:
        raise
    except Exception as exc:  # the engine's own errors: keep its message, drop the traceback
        raise _failure(exc, params, connection) from exc
    elapsed = time.perf_counter() - started
    subgraph = from_records(records[:row_limit], title=_title(query), fetch=connection.nodes)
    if prepared.writes:
        names.rekey_written(connection.db, subgraph.nodes)  # a name written here resolves in the next cell
        connection.feed.publish("cypher", None, exact=False)
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
        executed=rewrite.text if rewrite else prepared.text,
        notes=notes,
        rewrite=rewrite.sentence() if rewrite else None,
        subgraph=subgraph,
        budget=None if prepared.writes else budget,
        memory_used=usage.memory_peak if usage else None,
        work_bound=_work_bound(prepared, budget, row_limit),
    )


def _check_write_flag(write: Any) -> None:
    """``write`` is True or False itself: "no", 1 or None would otherwise opt in (or out) by truthiness."""
    if write is not True and write is not False:
        raise GestaltError(f"write must be True or False, not {write!r}; pass write=True to allow this query to write. Nothing was run.")


def cell_budget(timeout: float | None = None, memory_limit: int | str | None = None) -> Budget:
    """The budget of a cell or ``run()`` call: the arguments, else ``settings.timeout`` / ``memory_limit``."""
    return _budget(settings.timeout if timeout is None else timeout, settings.memory_limit if memory_limit is None else memory_limit, "cell")


def tool_budget(timeout: float | None = None, memory_limit: int | str | None = None) -> Budget:
    """The budget of an agent tool call: the arguments, else ``settings.tool_timeout`` / ``tool_memory_limit``."""
    return _budget(
        settings.tool_timeout if timeout is None else timeout,
        settings.tool_memory_limit if memory_limit is None else memory_limit,
        "tool",
    )


def _budget(timeout: Any, memory_limit: Any, scope: str) -> Budget:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise GestaltError(f"The time budget must be a positive number of seconds, not {timeout!r}.")
    return Budget(float(timeout), parse_bytes(memory_limit, "the memory budget"), scope)


def check_ranges(ranges: tuple[tuple[Any, ...], ...], params: dict[str, Any], budget: Budget) -> None:
    """Refuse, before running, a ``range(...)`` too large for the memory budget (it is built in one C call)."""
    items = max((_range_items(arguments, params) for arguments in ranges), default=0)
    error = over_budget_up_front(items, budget, "query")
    if error is not None:
        raise error


def _work_bound(prepared: Prepared, budget: Budget, row_limit: int) -> str:
    if prepared.writes:
        return "writes run in full (no LIMIT, no budget); only returned rows are cut"
    if prepared.unbounded:
        return f"the time and memory budget ({budget.describe()}): {prepared.unbounded}, so no LIMIT bounds it"
    if prepared.limit_added:
        return f"LIMIT {row_limit + 1} (added), and the budget ({budget.describe()})"
    return f"the query's own LIMIT, and the budget ({budget.describe()})"


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
