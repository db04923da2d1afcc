"""``%ghistory``: the queries this kernel ran — text, connection, rows, time, truncation, errors.

Kept in memory for the life of the kernel (the newest 1,000); ``frame()`` is a pandas DataFrame.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from ..checks import whole

KEEP = 1000


@dataclass(frozen=True)
class Entry:
    at: datetime
    alias: str | None
    query: str
    rows: int | None
    truncated: bool | None
    elapsed_ms: float | None
    write: bool
    error: str | None = None


HISTORY: list[Entry] = []


def record(result: Any) -> None:
    """Keep a finished run (a ``QueryResult``)."""
    _add(Entry(datetime.now(), result.alias, str(result.query), len(result), result.truncated,
               round(result.elapsed * 1000, 3), result.write))


def record_failure(alias: str | None, query: str, error: Exception, *, write: bool = False) -> None:
    """Keep a run that failed or was refused, with the first line of its message."""
    message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    _add(Entry(datetime.now(), alias, str(query), None, None, None, write, message))


def _add(entry: Entry) -> None:  # the query kept as plain text (a canvas's DrawingQuery is a str with more; asdict copies it)
    HISTORY.append(entry)
    del HISTORY[:-KEEP]


def frame(last: int | None = None):
    """The history as a DataFrame, oldest first (the ``last`` N entries when given)."""
    import pandas as pd

    if last is not None:
        whole(last, "last", 0)
    entries = HISTORY[-last:] if last else HISTORY
    columns = ["at", "alias", "query", "rows", "truncated", "elapsed_ms", "write", "error"]
    return pd.DataFrame([asdict(entry) for entry in entries], columns=columns)


def clear() -> None:
    HISTORY.clear()
