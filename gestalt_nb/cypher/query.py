"""Read-only-by-default, bounded Cypher execution with errors a person can act on.

The query is parsed once up front (:mod:`.prepare`): syntax errors come back with line, column and a caret; writes
are found and refused unless ``write=True``; a streaming read whose final ``RETURN`` has no
``LIMIT`` gets ``LIMIT row_limit + 1`` so the work is bounded and truncation is known. Reads then
run through the adapter's ``query_read_only``, which checks the parsed query again before anything
executes, within a time and memory budget (:mod:`gestalt_nb.cypher.budget`): a final ``RETURN`` that
aggregates gets no LIMIT (it would bound nothing), and aggregation, ``ORDER BY``, ``collect`` and
``UNION`` — which read every match first — are bounded by the budget alone. Writes are never given a
LIMIT (it could change what they write) nor a budget (stopping one midway is unsafe); only their
returned rows are cut. A read that was slow, or stopped, says which of its plan's shapes are known to be slow
(``--explain``'s warnings, with their rewrites).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from gestaltdb.cypher_ast import (
    FunctionCall,
)
from langchain_gestaltdb import ReadOnlyQueryError

from .. import display
from ..errors import GestaltError, map_full, storage_problem
from ..graph import ids, names
from ..graph.bookkeeping import asked_in
from ..graph.subgraph import building
from ..options import parse_bytes, settings
from ..shorten import listing, shorten
from . import reading, untyped
from .ast_text import walk
from .budget import Budget, BudgetExceeded, over_budget_up_front, run_within
from .prepare import Prepared, begun_where_found, prepare, rows_allowed
from .result import QueryResult

if TYPE_CHECKING:  # only for annotations: capabilities never import the session at run time
    from ..session import Connection

#: Seconds: a read that took this long or more (or was stopped by its budget) says what ``--explain`` finds slow in it.
EXPLAIN_AFTER = 2.0
SLOW_READ = "This read took "


def _range_items(arguments: tuple[Any, ...], params: dict[str, Any]) -> int:
    """How many values ``range(...)`` will build, when its bounds need no data (literals, parameters,
    arithmetic on them); 0 when they depend on matched data (the watchdog bounds those)."""
    from gestaltdb.query_engine.cypher.expr import evaluate_expression
    from gestaltdb.query_engine.cypher.runtime import QueryContext

    context = QueryContext(graph=None, parameters=params)
    values = []
    for item in arguments:
        if any(isinstance(node, FunctionCall) and node.name.lower() == "range" for node in walk(item)):
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
    storage = storage_problem(exc, connection.path, "write to the database", read_only=connection.read_only) if connection and connection.path else None
    if storage:
        return GestaltError(storage)
    if message.startswith("Missing Cypher parameter"):
        name = message.rsplit("$", 1)[-1]
        given = ", ".join(sorted(params)) or "none"
        return GestaltError(
            f"Missing query parameter ${name} (given: {given}). Pass values with -P, "
            f"e.g. %%gcypher -P {{'{name}': ...}}, or -P NAME_OF_A_DICT."
        )
    full = map_full(exc, "write")
    if full is not None:
        return full
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
    """The work of :meth:`Connection.run <gestalt_nb.capabilities.Capabilities.run>`, ``connection`` first (documented there, once)."""
    _check_write_flag(write)
    row_limit = rows_allowed(limit)
    params = dict(params or {})
    budget = budget or cell_budget(timeout, memory_limit)
    connection.db  # noqa: B018 - reading it fails clearly when the connection or its graph is closed
    prepared = prepare(query, row_limit)
    text, rewritten = ids.rewrite(query)
    if rewritten:  # integer ids as written (0) → the stored form ('__lc_int__:0')
        prepared = prepare(text, row_limit)
    if prepared.writes and not write:
        raise GestaltError(_refusal(prepared.writes))
    prepared, far = begun_where_found(connection.db, prepared, text, row_limit)
    started = time.perf_counter()
    try:
        (rows, truncated), rewrite, usage = _execute(connection, prepared, params, write, budget, row_limit)
    except BudgetExceeded as exc:  # stopped by its time or memory budget: say what in its plan is known to be slow
        shapes = None if exc.kind == "interrupted" else slow_shapes(connection, query, limit)
        if shapes is None:
            raise
        raise BudgetExceeded(f"{exc} {shapes}", kind=exc.kind, budget=exc.budget, usage=exc.usage) from None
    elapsed = time.perf_counter() - started
    subgraph = rows.subgraph(title=_title(query), fetch=connection.nodes)
    subgraph.asked = asked_in(query)
    if prepared.writes:
        connection.feed.publish("cypher", None, exact=False)
    notes = _notes(prepared, row_limit, truncated) + _id_notes(rewritten, bool(rows))
    if not prepared.writes and elapsed >= EXPLAIN_AFTER:
        shapes = slow_shapes(connection, query, limit)
        notes += [f"{SLOW_READ}{elapsed:.1f} s. {shapes}"] if shapes else []
    return QueryResult(
        query=query,
        params=params,
        records=rows,
        columns=list(rows.keys) if rows else _columns(prepared.text),
        truncated=truncated,
        row_limit=row_limit,
        elapsed=elapsed,
        alias=connection.alias,
        write=bool(prepared.writes),
        executed=rewrite.text if rewrite else prepared.text,
        notes=notes,
        rewrite="; ".join(done.sentence() for done in (far, rewrite) if done) or None,
        subgraph=subgraph,
        budget=None if prepared.writes else budget,
        memory_used=usage.memory_peak if usage else None,
        work_bound=_work_bound(prepared, budget, row_limit),
    )


def _execute(connection: Connection, prepared: Prepared, params: dict[str, Any], write: bool, budget: Budget, row_limit: int):
    """(the first ``row_limit`` rows, whether there were more), the untyped-pattern rewrite that ran (or None)
    and the budget's usage (None for writes). Reads pass the adapter's own ``query_read_only`` check; the
    engine's values are read once into ``Rows`` (within the budget), not converted to JSON up front."""
    graph = reading.reader(connection.graph)
    try:
        if prepared.writes:
            records = _write(connection, graph, prepared.text, params)
            return (reading.rows(records, row_limit, write=True), len(records) > row_limit), None, None
        check_ranges(prepared.ranges, params, budget)

        def read():
            records, rewrite = untyped.run_read(graph, prepared, params, write)
            display.free_after_cell(records)  # read into Rows below; freed once the output is out
            return (reading.rows(records, row_limit), len(records) > row_limit), rewrite

        with building():  # outside run_within: a budget's stop never lands between pausing and resuming the collector
            (kept, rewrite), usage = run_within(read, budget)
        return kept, rewrite, usage
    except ReadOnlyQueryError as exc:
        raise GestaltError(
            f"Refused as not provably read-only: {exc}. Nothing was run. If you know it only reads, run it with --write."
        ) from exc
    except GestaltError:
        raise
    except Exception as exc:  # the engine's own errors: keep its message, drop the traceback
        raise _failure(exc, params, connection) from exc


def _write(connection: Connection, graph: Any, text: str, params: dict[str, Any]) -> list[Any]:
    """Run a write in a transaction that keeps the name index for every node it put or deleted.

    Writes inside CALL {} only run outside a read snapshot; top-level writes are unaffected. An
    adapter subclass with its own ``query`` runs as it is (the name index then catches up on its next lookup).
    """
    if not isinstance(graph, reading.EngineReads):
        return graph.query(text, params, read_snapshot=False)
    with names.tracked(connection.db) as tx:
        return reading.EngineRecords(tx.query(text, parameters=params, read_snapshot=False).records)


def _id_notes(rewritten: list[Any], found: bool) -> list[str]:
    """What the result says when integer ids were matched in their stored form."""
    if not rewritten:
        return []
    return [
        f"Integer id {listing(rewritten, 5)} matched as stored ('{ids.PREFIX}{rewritten[0]}'); the query that ran is in Info."
        + (" No node has that integer id; if the ids are text, quote them: {id: '0'}." if not found else "")
    ]


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


def slow_shapes(connection: Connection, query: str, limit: int | None) -> str | None:
    """What ``--explain`` finds slow in ``query`` as one sentence for a read that was slow, or None (also when the
    plan cannot be made: a slow read's notes never fail it)."""
    from .explain import explain  # deferred: keeps %load_ext light

    try:
        plan = explain(connection, query, limit=limit)
    except Exception:
        return None
    return f"Its plan has a known slow shape: {plan.shapes()}. %%gcypher --explain says why." if plan.warnings else None


def _title(query: str) -> str:
    first = " ".join(query.split())
    return shorten(first, 80)


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
