"""Moments as people write them → GestaltDB's ``TemporalInstant``; a load's interval columns → checked intervals.

A moment is a ``datetime`` / ``pandas.Timestamp`` (naive ones are read as UTC), a ``date`` (its midnight, UTC),
ISO-8601 text (``"2023-04-01"``, ``"2023-04-01T12:00:00+02:00"``) or a number of seconds since 1970 (UTC).
An empty value in a ``valid_from`` column means "since always", in ``valid_to`` "still valid" (open intervals).
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

import numpy as np
import pandas as pd
from gestaltdb.temporal import TemporalInstant

from ..errors import GestaltError

#: The start of an interval left open ("since always"): the earliest instant GestaltDB can hold.
SINCE_ALWAYS = TemporalInstant.from_datetime(dt.datetime(1, 1, 1, tzinfo=dt.timezone.utc))


def _timestamp(value: Any) -> pd.Timestamp | None:
    """``value`` as a UTC ``Timestamp``; None when it is not a moment."""
    if isinstance(value, bool):
        return None
    try:
        if isinstance(value, (int, float, np.integer, np.floating)):
            if isinstance(value, (float, np.floating)) and not math.isfinite(value):
                return None
            stamp = pd.Timestamp(float(value), unit="s")
        elif isinstance(value, (str, dt.date, np.datetime64)):
            stamp = pd.Timestamp(value)
        else:
            return None
    except (ValueError, TypeError, OverflowError):
        return None
    if stamp is pd.NaT:
        return None
    return stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")


def instant(value: Any, what: str) -> TemporalInstant:
    """A moment (``as_of=``, ``known_at=``, ``--as-of``) as GestaltDB's instant, or one GestaltError line naming ``what``."""
    stamp = _timestamp(value)
    if stamp is None:
        raise GestaltError(
            f"{what}={value!r} is not a moment: give a date or datetime, ISO text ('2023-04-01', "
            "'2023-04-01T12:00:00Z') or seconds since 1970."
        )
    return TemporalInstant(int(stamp.value // 1000))


def now() -> TemporalInstant:
    """This moment, as GestaltDB's instant."""
    return TemporalInstant.from_datetime(dt.datetime.now(dt.timezone.utc))


def _empty(value: Any) -> bool:
    return value is None or value is pd.NaT or value is pd.NA or (isinstance(value, str) and not value.strip()) or (
        isinstance(value, (float, np.floating)) and math.isnan(value))


def column(df: Any, name: str, where: Any) -> list[TemporalInstant | None]:
    """The column ``name`` as instants (None where empty); an unparsable cell raises, naming its row and column.

    ``where(position, index, column)`` words a row's place as the loader does.
    """
    series = df[name]
    if pd.api.types.is_datetime64_any_dtype(series):
        stamps = series.dt.tz_localize("UTC") if series.dt.tz is None else series.dt.tz_convert("UTC")
        return [None if stamp is pd.NaT else TemporalInstant(int(stamp.value // 1000)) for stamp in stamps]
    moments: list[TemporalInstant | None] = []
    for position, value in enumerate(series.tolist()):
        if _empty(value):
            moments.append(None)
            continue
        stamp = _timestamp(value)
        if stamp is None:
            raise GestaltError(
                f"{where(position, df.index[position], name)}: {value!r} is not a moment (a date, datetime, ISO text or "
                "epoch seconds; empty for an open end). Nothing was written."
            )
        moments.append(TemporalInstant(int(stamp.value // 1000)))
    return moments


def intervals(df: Any, valid_from: str | None, valid_to: str | None, where: Any) -> list[tuple[TemporalInstant, TemporalInstant | None]]:
    """Each row's half-open validity ``[from, to)``; a row whose end is not after its start is refused with its row."""
    rows = len(df)
    starts = column(df, valid_from, where) if valid_from is not None else [None] * rows
    ends = column(df, valid_to, where) if valid_to is not None else [None] * rows
    checked = []
    for position, (start, end) in enumerate(zip(starts, ends)):
        start = start or SINCE_ALWAYS
        if end is not None and end <= start:
            raise GestaltError(
                f"{where(position, df.index[position], valid_to)}: the interval ends ({_text(end)}) "
                f"{'before' if end < start else 'when'} it starts ({_text(start)}); an interval is [from, to) and must not "
                "be empty. Nothing was written."
            )
        checked.append((start, end))
    return checked


def _text(moment: TemporalInstant) -> str:
    return moment.to_datetime().isoformat().replace("+00:00", "Z")


def text(moment: TemporalInstant) -> str:
    """An instant as ISO text in UTC (what the qualifiers and notes say)."""
    return _text(moment)
