"""Load pandas DataFrames (and graph documents) fast, atomically, with progress.

Every column is converted and checked (column-wise) before anything is written; then one backend
transaction writes the whole load through GestaltDB's bulk APIs: ONE ``put_nodes`` call, and ONE
``put_edges_bulk`` call for a load's new relationships (another for changed ones). A failure at any point — a bad value, an edge to a node that
does not exist, a full LMDB map — leaves the database as it was, and the error names the row and
the column. Re-loading merges: properties are updated (incoming values win), labels are added,
rows identical to what is stored are skipped.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
import time
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, TYPE_CHECKING

import numpy as np
import pandas as pd
from gestaltdb.graphdb import Edge, Node
from gestaltdb.temporal import (
    TemporalDate,
    TemporalDuration,
    TemporalInstant,
    TemporalLocalDateTime,
)
from langchain_gestaltdb import GestaltDBGraph

# The adapter's own id rule (integers become "__lc_int__:N", "__lc_"-prefixed strings are hashed),
# so a frame and add_graph_documents name the same entity the same way.
from langchain_gestaltdb._ingestion import entity_id

from ..errors import GestaltError, GestaltWarning, storage_problem
from ..graph.names import keyed

if TYPE_CHECKING:  # only for annotations: capabilities never import the session at run time
    from ..session import Connection

#: Keys read per lookup call when checking what already exists. Writes are never chunked.
CHUNK = 5000
#: Loads with at least this many rows show a progress bar.
PROGRESS_FROM = 5000


@dataclass
class LoadResult:
    kind: str
    rows: int
    created: int
    updated: int
    unchanged: int
    seconds: float
    #: What the load said: how ids were stored, and every warning it raised (mixed types, ...).
    notes: list[str] = field(default_factory=list)

    @property
    def rows_per_second(self) -> float:
        return self.rows / self.seconds if self.seconds else float("inf")

    def __repr__(self) -> str:
        return (
            f"<LoadResult {self.kind}: {self.rows:,} rows → {self.created:,} created, {self.updated:,} updated, "
            f"{self.unchanged:,} unchanged in {self.seconds:.2f} s ({self.rows_per_second:,.0f} rows/s)>"
            + "".join(f"\n  note: {note}" for note in self.notes)
        )


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
        return ABSENT if math.isnan(value) else _finite(value)
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


def _finite(value: float) -> float:
    if math.isinf(value):
        raise TypeError("cannot store an infinite float")
    return value


def _where(position: int, index: Any, column: str) -> str:
    if hasattr(index, "item") and type(index).__module__ == "numpy":
        index = index.item()
    shown = f"row {position}" if index == position else f"row {position} (index {index!r})"
    return f"{shown}, column '{column}'"


def _columns(df: Any, wanted: dict[str, str | None]) -> None:
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
    return entity_id(value)


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
            array = series.to_numpy(dtype=float, na_value=np.nan)
            infinite = np.isinf(array)
            if infinite.any():
                position = _first(infinite)
                raise GestaltError(
                    f"{_where(position, df.index[position], column)}: cannot store an infinite float ({array[position]}); "
                    "replace it (e.g. df.replace([np.inf, -np.inf], np.nan)). Nothing was written."
                )
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
            out = []
            for position, value in enumerate(series.tolist()):
                try:
                    item = convert(value)
                except TypeError as exc:
                    raise GestaltError(f"{_where(position, df.index[position], column)}: {exc}. Nothing was written.") from None
                any_missing = any_missing or item is ABSENT
                out.append(item)
            converted.append(out)
    return converted, any_missing


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


# -- progress ------------------------------------------------------------------------
class _Progress:
    """An ipywidgets bar inside a kernel, a text line on stderr elsewhere; silent for small loads."""

    def __init__(self, total: int, label: str) -> None:
        self.total, self.done, self.label, self.bar = total, 0, label, None
        self.active = total >= PROGRESS_FROM
        if not self.active:
            return
        shell = _kernel_shell()
        if shell is not None:
            import ipywidgets as w
            from IPython.display import display

            self.bar = w.IntProgress(value=0, max=total, description=label)
            self.text = w.Label()
            display(w.HBox([self.bar, self.text]))

    def update(self, rows: int) -> None:
        self.done += rows
        if not self.active:
            return
        if self.bar is not None:
            self.bar.value = self.done
            self.text.value = f"{self.done:,} / {self.total:,}"
        else:
            print(f"\r{self.label}: {self.done:,} / {self.total:,} rows", end="", file=sys.stderr)

    def finish(self, seconds: float) -> None:
        if not self.active:
            return
        rate = f"{self.total / seconds:,.0f} rows/s" if seconds else ""
        if self.bar is not None:
            self.text.value = f"{self.total:,} rows in {seconds:.2f} s ({rate})"
        else:
            print(f"\r{self.label}: {self.total:,} rows in {seconds:.2f} s ({rate})", file=sys.stderr)


def _kernel_shell() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    return shell if shell is not None and type(shell).__name__ == "ZMQInteractiveShell" else None


# -- writing -------------------------------------------------------------------------
def _too_long_for_index(items: list[Any], indexed: set[str]) -> str | None:
    """After GestaltDB refused an index key: the row value that is the likeliest cause, named."""
    longest: tuple[int, str, str] | None = None
    for item in items:
        for name in indexed & set(item.properties):
            value = item.properties[name]
            size = len(value.encode("utf-8")) if isinstance(value, str) else len(json.dumps(value, default=str))
            if longest is None or size > longest[0]:
                longest = (size, item.get_id, name)
    if longest is None:
        return None
    size, entity, name = longest
    return (
        f"{entity!r}, column '{name}': a {size:,}-byte value is too long for the property index on '{name}' "
        "(GestaltDB's index keys are limited to 511 bytes). Shorten such values or load them under an unindexed column."
    )


def _write(connection: Connection, steps: list[tuple[str, list[Any], Any]], total: int, label: str) -> float:
    """Run every (method, items, extra) write step in one transaction, each step as ONE bulk call.

    Chunking would cost: every ``put_edges_bulk`` call re-reads and re-writes the adjacency of each
    node it touches. The progress bar moves once per step (conversion is done before it starts).
    """
    db = connection.db
    progress = _Progress(total, label)
    started = time.perf_counter()
    try:
        with db.transaction() as tx:
            for method, items, extra in steps:
                if not items:
                    continue
                if method == "put_nodes":
                    tx.put_nodes(keyed(tx, items))
                else:
                    tx.put_edges_bulk(items, check_existing=extra)
                progress.update(len(items))
    except Exception as exc:
        if type(exc).__name__ == "MapFullError":
            raise GestaltError(
                "The database is full (LMDB map size reached); the load was rolled back and nothing was written. "
                "Close it and reopen with a larger map: %gestalt open PATH --map-size 16GiB."
            ) from exc
        cause = None
        if "index key exceeds" in str(exc):
            indexed = db.indexed_node_properties if label == "nodes" else db.indexed_edge_properties
            cause = _too_long_for_index([item for _, items, _ in steps for item in items], set(indexed))
        storage = storage_problem(exc, connection.path, "load into the database") if connection.path else None
        raise GestaltError(storage or f"The load failed and was rolled back; nothing was written: {cause or exc}") from exc
    seconds = time.perf_counter() - started
    progress.finish(seconds)
    connection.graph.refresh_schema()  # the schema cache (and tools built on it) see the new data
    if total: connection.feed.publish("load", [item.get_id for _, items, _ in steps for item in items], exact=True)  # noqa: E701
    return seconds


def _existing(db: Any, keys: list[bytes], kind: str) -> dict[bytes, bytes]:
    if kind == "Edge" and next(iter(db.iter_edge_ids(num_edges=1)), None) is None:
        return {}  # no relationships stored yet: nothing to merge with, skip the lookups
    if kind == "Node" and next(iter(db.get_node_keys_generator(num_nodes=1)), None) is None:
        return {}
    getter = db.store.get_nodes_bulk if kind == "Node" else db.store.get_edges_bulk
    found = {}
    for offset in range(0, len(keys), CHUNK):
        found.update(getter(keys[offset : offset + CHUNK]))
    return found


def _warn(messages: list[str]) -> None:
    for message in messages:
        warnings.warn(message, GestaltWarning, stacklevel=3)


def load_nodes(
    connection: Connection,
    df: Any,
    *,
    id: str,
    label: str | None = None,
    label_column: str | None = None,
    properties: Iterable[str] | None = None,
    keep_id: bool | None = None,
) -> LoadResult:
    """Create or update one node per row: ``id`` column, a fixed ``label`` or a ``label_column``.

    ``properties`` defaults to every other column. Missing values (None/NaN/NaT/pd.NA) leave the
    property out. Integer ids become ``__lc_int__:N`` exactly as the adapter's ingestion does; the
    integer is also kept as a property named after the id column (``keep_id``, on by default for
    integer ids unless the column is called ``id``), so ``WHERE n.member = 0`` and ``ORDER BY``
    work on the number.
    """
    if (label is None) == (label_column is None):
        raise GestaltError("Give exactly one of label='Label' or label_column='column'.")
    _columns(df, {"id": id, "label_column": label_column})
    columns = _properties(df, properties, {id, label_column} - {None})
    started = time.perf_counter()
    warn: list[str] = []
    notes: list[str] = []
    ids = _ids(df, id, warn)
    integer_ids = bool(ids) and ids[0].startswith("__lc_int__:")
    if integer_ids:
        keep = keep_id if keep_id is not None else id != "id"
        if keep and id not in columns:
            columns = [*columns, id]
        kept = f"; the number is also kept as the property '{id}'" if keep and id in columns else ""
        notes.append(
            f"Integer ids are stored as '__lc_int__:N' (the adapter's rule){kept}. %gexplore, --seed-ids, shortest_path "
            f"and Cypher literals such as {{id: {ids[0].split(':', 1)[1]}}} or id(n) = {ids[0].split(':', 1)[1]} accept the number as written."
        )
    label_values = df[label_column].tolist() if label_column is not None else None
    plain_labels = label_column is not None and pd.api.types.infer_dtype(df[label_column], skipna=False) == "string" and not (df[label_column] == "").any()
    converted, any_missing = _converted_columns(df, columns, warn)
    rows = _rows(columns, converted, len(df), any_missing)
    nodes: dict[str, Node] = {}
    for position, (node_id, props) in enumerate(zip(ids, rows)):
        if label_values is None:
            labels = [label]
        elif plain_labels:  # a column of non-empty strings: checked once, column-wise
            labels = [label_values[position]]
        else:
            labels = sorted(set(_labels(label_values[position], _where(position, df.index[position], label_column))))
        previous = nodes.get(node_id)
        if previous is not None:  # a repeated id in the frame: merge, later rows win
            labels, props = sorted(set(previous.labels) | set(labels)), {**previous.properties, **props}
        nodes[node_id] = Node(node_id, labels=labels, properties=props)
    db = connection.db
    existing = _existing(db, [node.get_id_bytes for node in nodes.values()], "Node")
    writes, updated, unchanged = [], 0, 0
    for node in nodes.values():
        raw = existing.get(node.get_id_bytes)
        if raw is not None:
            old = db.get_node(node.get_id_bytes)
            node = Node(node.get_id, labels=sorted(set(old.labels) | set(node.labels)), properties={**old.properties, **node.properties})
            if db.serialize_node_value(node) == raw:
                unchanged += 1
                continue
            updated += 1
        writes.append(node)
    _write(connection, [("put_nodes", writes, None)], len(writes), "nodes")
    _warn(warn)
    return LoadResult("nodes", len(df), len(writes) - updated, updated, unchanged, time.perf_counter() - started, [*notes, *warn])


def _labels(value: Any, where: str) -> list[str]:
    converted = convert(value) if not isinstance(value, str) else value
    labels = [converted] if isinstance(converted, str) else converted if isinstance(converted, list) else []
    if not labels or not all(isinstance(item, str) and item for item in labels):
        raise GestaltError(f"{where}: the label must be a non-empty string or a list of them. Nothing was written.")
    return labels


def _edge_id(source: str, kind: str, target: str) -> str:
    digest = hashlib.sha256(json.dumps([source, kind, target], ensure_ascii=False).encode("utf-8")).hexdigest()
    return f"edge:{digest[:32]}"


def _kinds(df: Any, type: str | None, type_column: str | None) -> list[str]:
    if type is not None:
        if not isinstance(type, str) or not type:
            raise GestaltError("type= must be a non-empty string. Nothing was written.")
        return [type] * len(df)
    series = df[type_column]
    values = series.tolist()
    if pd.api.types.infer_dtype(series, skipna=False) != "string" or (series == "").any():
        for position, kind in enumerate(values):
            if not isinstance(kind, str) or not kind:
                raise GestaltError(f"{_where(position, df.index[position], type_column)}: the type must be a non-empty string. Nothing was written.")
    return values


def _missing_endpoint(db: Any, node_id: str) -> str:
    """A hint when an endpoint is absent but the same id exists as the other type (300 vs '300')."""
    if node_id.startswith("__lc_int__:"):
        other = node_id.split(":", 1)[1]
        return f" (a node '{other}' with a text id exists: the nodes were loaded with text ids; convert this column with .astype(str))" if db.get_node(other.encode("utf-8")) else ""
    if node_id.lstrip("-").isdigit() and db.get_node(f"__lc_int__:{node_id}".encode("utf-8")):
        return f" (a node with the integer id {node_id} exists: the nodes were loaded with integer ids; convert this column with .astype(int))"
    return ""


def load_edges(
    connection: Connection,
    df: Any,
    *,
    source: str,
    target: str,
    type: str | None = None,
    type_column: str | None = None,
    id: str | None = None,
    properties: Iterable[str] | None = None,
    directed: bool = True,
) -> LoadResult:
    """Create or update one relationship per row between nodes that already exist.

    Without ``id``, a relationship is identified by (source, type, target): re-loading updates
    it, and parallel relationships of one type need an ``id`` column. Ids are stored as given.
    ``directed=False`` stores one relationship per unordered pair and type: a row (b, a) after
    (a, b) is merged into it (with a warning); query such graphs with ``-[:T]-``. With the default
    ``directed=True``, pairs present in both directions are kept as two relationships, with a warning.
    A property column named ``type`` is refused: the relationship type is stored there.
    """
    if (type is None) == (type_column is None):
        raise GestaltError("Give exactly one of type='TYPE' or type_column='column'.")
    _columns(df, {"source": source, "target": target, "type_column": type_column, "id": id})
    columns = _properties(df, properties, {source, target, type_column, id} - {None})
    if "type" in columns:
        raise GestaltError(
            "The column 'type' would be overwritten: GestaltDB keeps the relationship type in the property 'type'. "
            "Rename it (df.rename(columns={'type': 'kind'})), use it as the type (type_column='type'), "
            "or leave it out (properties=[...]). Nothing was written."
        )
    started = time.perf_counter()
    warn: list[str] = []
    sources, targets = _ids(df, source, warn), _ids(df, target, warn)
    kinds = _kinds(df, type, type_column)
    if id is not None:
        given = df[id]
        empty = given.isna().to_numpy() | (given.astype(str) == "").to_numpy()
        if empty.any():
            position = _first(empty)
            raise GestaltError(f"{_where(position, df.index[position], id)}: the id is empty or missing; every row needs one. Nothing was written.")
        given_ids = given.tolist() if pd.api.types.infer_dtype(given, skipna=False) == "string" else [str(_item(value)) for value in given.tolist()]
    else:
        given_ids = None
    converted, any_missing = _converted_columns(df, columns, warn)
    edges: dict[str, Edge] = {}
    if directed:
        # the relationship type goes into each row's properties as they are built
        rows = _rows([*columns, "type"], [*converted, kinds], len(df), any_missing)
        keys = list(zip(sources, kinds, targets))
        edge_ids = given_ids if given_ids is not None else [_edge_id(*key) for key in keys]
        if len(set(edge_ids)) == len(edge_ids):  # the common case: every row its own relationship
            edges = {edge_id: Edge(edge_id, start, end, properties=props) for edge_id, start, end, props in zip(edge_ids, sources, targets, rows)}
        else:
            for edge_id, start, end, props in zip(edge_ids, sources, targets, rows):
                previous = edges.get(edge_id)
                if previous is not None:
                    props = {**previous.properties, **props}
                edges[edge_id] = Edge(edge_id, start, end, properties=props)
        distinct = set(keys)
        both = sum(1 for start, kind, end in distinct if start < end and (end, kind, start) in distinct)
        if both:
            warn.append(
                f"{both:,} pairs appear in both directions (a→b and b→a), stored as two relationships each, so their "
                "degrees count twice. If the graph is undirected, load it with directed=False and query with -[:T]-."
            )
    else:
        rows = _rows(columns, converted, len(df), any_missing)
        pairs: dict[tuple[str, str, str], str] = {}
        merged = 0
        for position, (start, end, kind, props) in enumerate(zip(sources, targets, kinds, rows)):
            pair = (start, end, kind) if start <= end else (end, start, kind)
            edge_id = pairs.get(pair)
            if edge_id is None:
                edge_id = given_ids[position] if given_ids is not None else _edge_id(*pair)
                pairs[pair] = edge_id
            previous = edges.get(edge_id)
            if previous is not None:
                if (previous.source, previous.target) != (start, end) or given_ids is not None and given_ids[position] != edge_id:
                    merged += 1
                start, end, props = previous.source, previous.target, {**previous.properties, **props}
            props["type"] = kind
            edges[edge_id] = Edge(edge_id, start, end, properties=props)
        if merged:
            warn.append(f"directed=False: {merged:,} rows repeated a pair in the other direction and were merged into one relationship each.")
    db = connection.db
    endpoints = list(dict.fromkeys([*sources, *targets]))
    present = _existing(db, [node_id.encode("utf-8") for node_id in endpoints], "Node")
    missing = [node_id for node_id in endpoints if node_id.encode("utf-8") not in present]
    if missing:
        first = missing[0]
        column, values = (source, sources) if first in set(sources) else (target, targets)
        position = values.index(first)
        more = f" ({len(missing)} missing endpoints in all)" if len(missing) > 1 else ""
        shown = first.split(":", 1)[1] if first.startswith("__lc_int__:") else repr(first)
        raise GestaltError(
            f"{_where(position, df.index[position], column)}: {shown} is not a node in the graph{_missing_endpoint(db, first)}{more}. "
            "Load the nodes first; nothing was written."
        )
    existing = _existing(db, [edge.get_id_bytes for edge in edges.values()], "Edge")
    new, changed, unchanged = [], [], 0
    for edge in edges.values():
        raw = existing.get(edge.get_id_bytes)
        if raw is None:
            new.append(edge)
            continue
        old = db.get_edge(edge.get_id_bytes)
        same = (old.source, old.target) == (edge.source, edge.target) or (not directed and (old.target, old.source) == (edge.source, edge.target))
        if not same or old.get_type != edge.get_type:
            raise GestaltError(
                f"Relationship id {edge.get_id!r} already joins {old.source} -[:{old.get_type}]-> {old.target}; "
                "an id cannot change its endpoints or type. Nothing was written."
            )
        edge = Edge(edge.get_id, old.source, old.target, properties={**old.properties, **edge.properties})
        if db.serialize_edge_value(edge) == raw:
            unchanged += 1
        else:
            changed.append(edge)
    _write(connection, [("put_edges_bulk", new, False), ("put_edges_bulk", changed, True)], len(new) + len(changed), "relationships")
    _warn(warn)
    return LoadResult("relationships", len(df), len(new), len(changed), unchanged, time.perf_counter() - started, warn)


def load_graph_documents(connection: Connection, documents: Iterable[Any], *, include_source: bool = False) -> LoadResult:
    """The adapter's ``add_graph_documents``, run inside one transaction (all or nothing, and fast)."""
    documents = list(documents)
    started = time.perf_counter()
    db = connection.db
    try:
        with db.transaction() as tx:
            GestaltDBGraph(tx).add_graph_documents(documents, include_source=include_source)
    except Exception as exc:
        storage = storage_problem(exc, connection.path, "load into the database") if connection.path else None
        raise GestaltError(storage or f"The load failed and was rolled back; nothing was written: {exc}") from exc
    connection.graph.refresh_schema()
    connection.feed.publish("load", None, exact=False)
    return LoadResult("graph documents", len(documents), len(documents), 0, 0, time.perf_counter() - started)
