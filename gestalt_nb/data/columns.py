"""DataFrame columns as GestaltDB values and ids: converted and checked column-wise, before anything is written.

A missing value (None, NaN, NaT, pd.NA) is ``ABSENT``: the property is left out. A value that
cannot be stored raises a GestaltError naming its row and column; a column of mixed types adds a
warning. Ids follow the adapter's rule (integers become ``__lc_int__:N``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import date, datetime, timedelta
from typing import Any

import numpy as np
import pandas as pd
from gestaltdb.temporal import (
    TemporalDate,
    TemporalDuration,
    TemporalInstant,
    TemporalLocalDateTime,
)

# The adapter's own id rule (integers become "__lc_int__:N", "__lc_"-prefixed strings are hashed),
# so a frame and add_graph_documents name the same entity the same way.
from ..engine.adapter import entity_id
from ..errors import GestaltError


# -- values ---------------------------------------------------------------------------
class _Absent:
    """Marks a missing value (None, NaN, NaT): the property is left out."""


ABSENT = _Absent()


def convert(value: Any) -> Any:
    """A DataFrame cell as a GestaltDB property value; ``ABSENT`` for missing; TypeError if unstorable."""
    if value is None:
        return ABSENT
    if isinstance(value, bool):
        return value
    if hasattr(value, "item") and type(value).__module__ == "numpy":  # numpy scalars
        if hasattr(value, "shape") and value.shape:  # arrays
            return [_item(item) for item in value.tolist()]
        value = value.item()
    if isinstance(value, float):
        return ABSENT if math.isnan(value) else value  # inf and -inf are stored as they are
    if isinstance(value, (int, str)):
        return value
    if type(value).__name__ in ("NaTType", "NAType"):
        return ABSENT
    if isinstance(value, datetime):  # includes pandas.Timestamp
        plain = value.to_pydatetime() if hasattr(value, "to_pydatetime") else value
        return TemporalInstant.from_datetime(plain) if plain.tzinfo else TemporalLocalDateTime(plain)
    if isinstance(value, date):
        return TemporalDate(value)
    if isinstance(value, timedelta):
        plain = value.to_pytimedelta() if hasattr(value, "to_pytimedelta") else value
        return TemporalDuration.from_timedelta(plain)
    if isinstance(value, (list, tuple)) or type(value).__name__ == "ndarray":
        return [_item(item) for item in list(value)]
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return {key: _item(item) for key, item in value.items()}
    raise TypeError(f"cannot store a {type(value).__name__}")


def _item(value: Any) -> Any:
    converted = convert(value)
    return None if converted is ABSENT else converted


def _where(position: int, index: Any, column: str) -> str:
    if hasattr(index, "item") and type(index).__module__ == "numpy":
        index = index.item()
    shown = f"row {position}" if index == position else f"row {position} (index {index!r})"
    return f"{shown}, column '{column}'"


SELF_REFERENCE = ("the value refers to itself (a dict or list that contains itself, directly or deeper), which "
                  "cannot be stored; break the cycle first. Nothing was written.")


def _flat_frame(df: Any) -> None:
    """A pandas DataFrame with one level of column names and a plain index, or one line saying what to do."""
    if not isinstance(df, pd.DataFrame):
        raise GestaltError(
            f"Loading takes a pandas DataFrame, not a {type(df).__name__}; wrap it first, e.g. pd.DataFrame(rows). Nothing was written."
        )
    if isinstance(df.columns, pd.MultiIndex):
        raise GestaltError(
            "Loading takes a DataFrame with one level of column names; this one has a MultiIndex of columns. Flatten it first, "
            "e.g. df.columns = ['_'.join(map(str, c)) for c in df.columns]. Nothing was written."
        )
    if isinstance(df.index, pd.MultiIndex):
        raise GestaltError(
            f"Loading takes a DataFrame with a plain index; this one has a MultiIndex ({', '.join(map(str, df.index.names))}). "
            "Turn its levels into columns first with df.reset_index(). Nothing was written."
        )


def _text(value: str, where: str) -> str:
    """``value`` if it is storable text; a lone surrogate (half of a broken character) is refused."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise GestaltError(
            f"{where}: the text {value[:40]!r} holds a lone surrogate ({value[exc.start]!r}), which cannot be stored; "
            "fix the decoding it came from (e.g. read the file with encoding='utf-8', errors='replace'). Nothing was written."
        ) from None
    return value


def _texts(values: list[str], df: Any, column: str) -> None:
    """Every value storable text (checked at once; the first bad one named by its row)."""
    try:
        "".join(values).encode("utf-8")
    except UnicodeEncodeError:
        for position, value in enumerate(values):
            _text(value, _where(position, df.index[position], column))


def _columns(df: Any, wanted: dict[str, str | None]) -> None:
    _flat_frame(df)
    missing = [f"{option}={name!r}" for option, name in wanted.items() if name is not None and name not in df.columns]
    if missing:
        raise GestaltError(f"No such column: {', '.join(missing)}. The frame has: {', '.join(map(str, df.columns))}.")


def _properties(df: Any, properties: Iterable[str] | None, used: set[str]) -> list[str]:
    if properties is None:
        return [str(column) for column in df.columns if column not in used]
    chosen = list(properties)
    _columns(df, {f"properties[{name!r}]": name for name in chosen})
    return chosen


def _id(value: Any, where: str) -> str:
    if value is None or type(value).__name__ == "NAType" or (isinstance(value, float) and math.isnan(value)) or value == "":
        raise GestaltError(f"{where}: the id is empty or missing; every row needs one. Nothing was written.")
    if hasattr(value, "item") and type(value).__module__ == "numpy":
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # integer ids in a float column (NaN elsewhere made pandas upcast)
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        raise GestaltError(f"{where}: ids must be strings or integers, not {type(value).__name__}. Nothing was written.")
    return entity_id(_text(value, where) if isinstance(value, str) else value)


def _first(mask: Any) -> int:
    return int(np.flatnonzero(np.asarray(mask, dtype=bool))[0])


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float, np.number)):
        return "number"
    return "list" if isinstance(value, (list, tuple, np.ndarray)) else type(value).__name__


def _mixed(series: Any) -> list[str]:
    """The kinds of scalar value in a column that holds more than one (text beside numbers, ...)."""
    if series.dtype != object or pd.api.types.infer_dtype(series, skipna=True) not in ("mixed", "mixed-integer"):
        return []
    kinds = sorted({_kind(value) for value in series.tolist() if value is not None and value is not pd.NA and not (isinstance(value, float) and math.isnan(value))} - {"list", "dict"})
    return kinds if len(kinds) > 1 else []


def _converted_columns(df: Any, columns: list[str], warn: list[str]) -> tuple[list[list[Any]], bool]:
    """Each property column as storable values (``ABSENT`` where missing), converted column by column.

    Returns the columns and whether any value is missing. Integer and boolean columns need no
    conversion (nullable ``Int64``/``boolean`` keep their type, ``pd.NA`` is left out); float
    columns a vectorised NaN/inf check; everything else goes through :func:`convert`. A value that
    cannot be stored names its row and column; a column of mixed types adds a warning.
    """
    converted, any_missing = [], False
    for column in columns:
        series = df[column]
        kind = series.dtype.kind
        if kind in "iub" and series.dtype != object:
            if isinstance(series.dtype, np.dtype):
                values = series.tolist()
            else:  # a nullable pandas dtype (Int64, boolean): pd.NA means "left out"
                missing = series.isna().to_numpy()
                values = series.astype(object).tolist()
                if missing.any():
                    any_missing = True
                    values = [ABSENT if gap else value for value, gap in zip(values, missing)]
            converted.append(values)
        elif kind == "f":
            array = series.to_numpy(dtype=float, na_value=np.nan)  # inf and -inf are stored as they are
            missing = np.isnan(array)
            values = array.tolist()
            if missing.any():
                any_missing = True
                values = [ABSENT if gap else value for value, gap in zip(values, missing)]
            converted.append(values)
        else:
            kinds = _mixed(series)
            if kinds:
                warn.append(
                    f"Column '{column}' mixes types ({', '.join(kinds)}); they are stored as given, but comparing "
                    "or sorting on it in Cypher fails at query time. Convert it first (e.g. .astype(str))."
                )
            out, missing = _object_column(series, df, column)
            any_missing = any_missing or missing
            converted.append(out)
    return converted, any_missing


def _object_column(series: Any, df: Any, column: str) -> tuple[list[Any], bool]:
    """An object column as storable values (``ABSENT`` where missing) and whether any is missing."""
    values = series.tolist()
    if pd.api.types.infer_dtype(series, skipna=False) == "string" and not series.isna().any():  # plain text: nothing to convert
        _texts(values, df, column)
        return values, False
    out, texts, any_missing = [], [], False
    for position, value in enumerate(values):
        try:
            item = convert(value)
        except TypeError as exc:
            raise GestaltError(f"{_where(position, df.index[position], column)}: {exc}. Nothing was written.") from None
        except RecursionError:
            raise GestaltError(f"{_where(position, df.index[position], column)}: {SELF_REFERENCE}") from None
        if isinstance(item, str):
            texts.append(item)
        any_missing = any_missing or item is ABSENT
        out.append(item)
    try:
        "".join(texts).encode("utf-8")
    except UnicodeEncodeError:
        for position, item in enumerate(out):
            if isinstance(item, str):
                _text(item, _where(position, df.index[position], column))
    return out, any_missing


def _rows(columns: list[str], converted: list[list[Any]], rows: int, any_missing: bool) -> list[dict[str, Any]]:
    """One property dict per row (missing values left out), built from the converted columns."""
    if not columns:
        return [{} for _ in range(rows)]
    if not any_missing:
        return [dict(zip(columns, values)) for values in zip(*converted)]
    return [{name: value for name, value in zip(columns, values) if value is not ABSENT} for values in zip(*converted)]


def _ids(df: Any, column: str, warn: list[str] | None = None) -> list[str]:
    """The column as stored ids, checked column-wise; missing ids name their row and column."""
    series = df[column]
    missing = series.isna().to_numpy()
    if missing.any():
        position = _first(missing)
        raise GestaltError(f"{_where(position, df.index[position], column)}: the id is empty or missing; every row needs one. Nothing was written.")
    kind = series.dtype.kind
    if kind in "iu" and series.dtype != object:
        return [f"__lc_int__:{value}" for value in series.astype(object).tolist()]
    if kind == "f":
        array = series.to_numpy(dtype=float)
        fractional = array != np.floor(array)
        if fractional.any():
            position = _first(fractional)
            raise GestaltError(f"{_where(position, df.index[position], column)}: ids must be strings or integers, not {array[position]!r}. Nothing was written.")
        return [f"__lc_int__:{int(value)}" for value in array.tolist()]
    values = series.tolist()
    if pd.api.types.infer_dtype(series, skipna=False) == "string":
        bad = (series == "") | series.str.startswith("__lc_")
        if not bad.any():
            _texts(values, df, column)
            return values  # the common case, same answer as entity_id
    ids = [_id(value, _where(position, df.index[position], column)) for position, value in enumerate(values)]
    if warn is not None and pd.api.types.infer_dtype(series, skipna=False) == "mixed-integer":
        numbers = {str(value) for value in values if isinstance(value, (int, np.integer)) and not isinstance(value, bool)}
        texts = {value for value in values if isinstance(value, str)}
        clash = sorted(numbers & texts)
        both = f": {clash[0]} (integer) and '{clash[0]}' (text) are two different nodes" if clash else ""
        warn.append(
            f"Column '{column}' mixes integer and text ids{both}. Integers are stored as '__lc_int__:N', text as given; "
            f"convert the column to one type first (e.g. df['{column}'].astype(str))."
        )
    return ids
