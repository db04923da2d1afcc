"""A read of the graph as it was valid at one moment (``as_of``), as it was recorded by another (``known_at``); the
same read at two moments compared (``diff``).

The read runs as every read does (``cypher.query.run``: parsed, refused if it writes, a LIMIT pushed in, within the
cell's time and memory budget) on the graph at that moment (:mod:`.visible`: GestaltDB's own history, read once per
database state, in a scratch database). The database itself is only read. Building the moment's graph counts
against the same budget.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ..cypher.budget import Budget, run_within
from ..cypher.prepare import prepare
from ..cypher.query import SLOW_READ, cell_budget
from ..cypher.query import run as run_now
from ..errors import GestaltError
from . import moments, visible
from .diff import DiffResult, compare

if TYPE_CHECKING:  # only for annotations: capabilities never import the session at run time
    from ..cypher.result import QueryResult
    from ..session import Connection

HISTORY_NOTE_AFTER = 1.0
"""Seconds: a first read of the database's history that took less goes unsaid (a small history reads at once)."""


def when(as_of: Any, known_at: Any) -> tuple[moments.TemporalInstant, moments.TemporalInstant | None, str]:
    """(``as_of``, ``known_at``) as instants (``as_of`` now when only ``known_at`` is given) and the words for them."""
    valid = moments.now() if as_of is None else moments.instant(as_of, "as_of")
    recorded = None if known_at is None else moments.instant(known_at, "known_at")
    words = f"as of {moments.text(valid)}" + ("" if recorded is None else f", as recorded by {moments.text(recorded)}")
    return valid, recorded, words


def at_moment(connection: Connection, valid: moments.TemporalInstant, recorded: moments.TemporalInstant | None, words: str,
              budget: Budget, since: moments.TemporalInstant | None = None) -> tuple[Connection, str | None]:
    """A connection to the graph at (``valid``, ``recorded``) (with ``since``: at either moment), built within ``budget``;
    it borrows the scratch database, which :mod:`.visible` keeps and closes. And, when the database's history had to be
    read first (the slow part of a first read: GestaltDB decodes every version it holds) and that took a second or more,
    a note saying what it cost."""
    db = connection.db
    first, started = not visible.history_read(db), time.perf_counter()
    moment, _ = run_within(lambda: visible.materialize(db, valid, recorded, since), budget, describe=f"graph {words}")
    read, took = None, time.perf_counter() - started
    if first and took >= HISTORY_NOTE_AFTER and visible.history_read(db):  # read by this call, and slowly
        read = (f"The database's history was read first: {len(visible.history(db)):,} versions, {took:.1f} s "
                "with the graph at this moment. It is kept until the database changes: the next read of any moment skips it.")
    again = (f"It was the graph {words}, copied from the database's history and let go after {visible.KEEP} other moments were read: "
             f"run the read or overview {words} again.")
    return type(connection)(alias=f"{connection.alias} ({words})", graph=visible.borrow(moment), owned=False, reopen=again), read


def run(connection: Connection, query: str, params: dict[str, Any] | None = None, *, write: bool = False, limit: int | None = None,
        timeout: float | None = None, memory_limit: int | str | None = None, budget: Budget | None = None, as_of: Any = None,
        known_at: Any = None) -> QueryResult:
    """The work of :meth:`Connection.run <gestalt_nb.capabilities.Capabilities.run>`, ``connection`` first (documented there, once)."""
    if as_of is None and known_at is None:
        return run_now(connection, query, params, write=write, limit=limit, timeout=timeout, memory_limit=memory_limit, budget=budget)
    valid, recorded, words = when(as_of, known_at)
    if write or prepare(query, 1).writes:
        raise GestaltError(f"Refused: a read {words} cannot write (history is changed by loading versions); nothing was run.")
    budget = budget or cell_budget(timeout, memory_limit)
    scratch, read = at_moment(connection, valid, recorded, words, budget)
    result = run_now(scratch, query, params, limit=limit, budget=budget)
    result.notes[:0] = [f"Read {words}: the graph valid then, from the database's own history.", *([read] if read else [])]
    result.alias = connection.alias
    return result


def notes_of(results: list[QueryResult]) -> list[str]:
    """The notes of one query's reads at several moments, each said once (the first of each, the moment it read, left
    out); a slow read's shapes (one plan: the same query) said once, with the slowest read's seconds."""
    notes = list(dict.fromkeys(note for result in results for note in result.notes[1:]))
    slow = next((note for note in notes if note.startswith(SLOW_READ)), None)
    if slow is None:
        return notes
    slowest = max(result.elapsed for result in results)
    return [*(note for note in notes if not note.startswith(SLOW_READ)),
            f"The slowest of the {len(results)} reads took {slowest:.1f} s.{slow.split(' s.', 1)[1]}"]


def diff(connection: Connection, query: str, before: Any, after: Any, params: dict[str, Any] | None = None, *, known_at: Any = None,
         limit: int | None = None, timeout: float | None = None) -> DiffResult:
    """The work of :meth:`Connection.diff <gestalt_nb.capabilities.Capabilities.diff>`, ``connection`` first (documented there, once)."""
    words = moments.text(moments.instant(before, "before")), moments.text(moments.instant(after, "after"))  # named, before any read
    old = run(connection, query, params, limit=limit, timeout=timeout, as_of=before, known_at=known_at)
    new = run(connection, query, params, limit=limit, timeout=timeout, as_of=after, known_at=known_at)
    result = compare(query, *words, old.subgraph, new.subgraph)
    result.notes = notes_of([old, new])
    if old.truncated or new.truncated:
        result.notes.insert(0, f"The read was cut at {len((old if old.truncated else new).df):,} rows at "
                               f"{'both moments' if old.truncated and new.truncated else words[0] if old.truncated else words[1]}: "
                               "what lies past the cut at one moment and not the other shows as added or removed. Raise limit= "
                               "(%gdiff --limit) to compare everything.")
    return result
