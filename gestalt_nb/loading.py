"""Load pandas DataFrames (and graph documents) fast, atomically, with progress.

Every row is converted and checked before anything is written; then one backend transaction
writes the whole load through GestaltDB's bulk APIs (``put_nodes``, ``put_edges_bulk``), in chunks
that only drive the progress bar. A failure at any point — a bad value, an edge to a node that
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
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

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

from .errors import GestaltError, storage_problem
from .session import Connection

#: Rows written between two progress updates (all inside the one transaction). Edges go in larger
#: chunks: each put_edges_bulk call rewrites the adjacency of every node it touches.
CHUNK = 5000
EDGE_CHUNK = 25_000
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

    @property
    def rows_per_second(self) -> float:
        return self.rows / self.seconds if self.seconds else float("inf")

    def __repr__(self) -> str:
        return (
            f"<LoadResult {self.kind}: {self.rows:,} rows → {self.created:,} created, {self.updated:,} updated, "
            f"{self.unchanged:,} unchanged in {self.seconds:.2f} s ({self.rows_per_second:,.0f} rows/s)>"
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
    if value is None or (isinstance(value, float) and math.isnan(value)) or value == "":
        raise GestaltError(f"{where}: the id is empty; every row needs one. Nothing was written.")
    if hasattr(value, "item") and type(value).__module__ == "numpy":
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # integer ids in a float column (NaN elsewhere made pandas upcast)
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        raise GestaltError(f"{where}: ids must be strings or integers, not {type(value).__name__}. Nothing was written.")
    return entity_id(value)


def _converted_columns(df: Any, columns: list[str]) -> list[list[Any]]:
    """Each property column as storable values (``ABSENT`` where missing), converted column by column.

    Integer and boolean columns need no conversion; float columns only a NaN check; everything
    else goes through :func:`convert`, and an unstorable value names its row and column.
    """
    converted = []
    for column in columns:
        series = df[column]
        values = series.tolist()
        kind = series.dtype.kind
        if kind in "iub":
            converted.append(values)
        elif kind == "f":
            converted.append([ABSENT if value != value else _finite(value) for value in values])
        else:
            out = []
            for position, value in enumerate(values):
                try:
                    out.append(convert(value))
                except TypeError as exc:
                    raise GestaltError(f"{_where(position, df.index[position], column)}: {exc}. Nothing was written.") from None
            converted.append(out)
    return converted


def _row_properties(columns: list[str], converted: list[list[Any]], position: int) -> dict[str, Any]:
    return {name: values[position] for name, values in zip(columns, converted) if values[position] is not ABSENT}


def _ids(df: Any, column: str) -> list[str]:
    ids = []
    for position, value in enumerate(df[column].tolist()):
        if type(value) is str and value and not value.startswith("__lc_"):
            ids.append(value)  # the common case, same answer as entity_id
        else:
            ids.append(_id(value, _where(position, df.index[position], column)))
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
    """Run every (method, items, extra) write step in one transaction, chunked for progress."""
    db = connection.db
    progress = _Progress(total, label)
    started = time.perf_counter()
    try:
        with db.transaction() as tx:
            for method, items, extra in steps:
                size = CHUNK if method == "put_nodes" else EDGE_CHUNK
                for offset in range(0, len(items), size):
                    chunk = items[offset : offset + size]
                    if method == "put_nodes":
                        tx.put_nodes(chunk)
                    else:
                        tx.put_edges_bulk(chunk, check_existing=extra)
                    progress.update(len(chunk))
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
    return seconds


def _existing(db: Any, keys: list[bytes], kind: str) -> dict[bytes, bytes]:
    getter = db.store.get_nodes_bulk if kind == "Node" else db.store.get_edges_bulk
    found = {}
    for offset in range(0, len(keys), CHUNK):
        found.update(getter(keys[offset : offset + CHUNK]))
    return found


def load_nodes(
    connection: Connection,
    df: Any,
    *,
    id: str,
    label: str | None = None,
    label_column: str | None = None,
    properties: Iterable[str] | None = None,
) -> LoadResult:
    """Create or update one node per row: ``id`` column, a fixed ``label`` or a ``label_column``.

    ``properties`` defaults to every other column. Missing values (None/NaN/NaT) leave the
    property out. Integer ids become ``__lc_int__:N`` exactly as the adapter's ingestion does.
    """
    if (label is None) == (label_column is None):
        raise GestaltError("Give exactly one of label='Label' or label_column='column'.")
    _columns(df, {"id": id, "label_column": label_column})
    columns = _properties(df, properties, {id, label_column} - {None})
    started = time.perf_counter()
    ids = _ids(df, id)
    label_values = df[label_column].tolist() if label_column is not None else None
    converted = _converted_columns(df, columns)
    nodes: dict[str, Node] = {}
    for position, node_id in enumerate(ids):
        if label_values is None:
            labels = [label]
        else:
            labels = _labels(label_values[position], _where(position, df.index[position], label_column))
        props = _row_properties(columns, converted, position)
        previous = nodes.get(node_id)
        if previous is not None:  # a repeated id in the frame: merge, later rows win
            labels, props = sorted(set(previous.labels) | set(labels)), {**previous.properties, **props}
        nodes[node_id] = Node(node_id, labels=sorted(set(labels)), properties=props)
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
    return LoadResult("nodes", len(df), len(writes) - updated, updated, unchanged, time.perf_counter() - started)


def _labels(value: Any, where: str) -> list[str]:
    converted = convert(value) if not isinstance(value, str) else value
    labels = [converted] if isinstance(converted, str) else converted if isinstance(converted, list) else []
    if not labels or not all(isinstance(item, str) and item for item in labels):
        raise GestaltError(f"{where}: the label must be a non-empty string or a list of them. Nothing was written.")
    return labels


def _edge_id(source: str, kind: str, target: str) -> str:
    digest = hashlib.sha256(json.dumps([source, kind, target], ensure_ascii=False).encode("utf-8")).hexdigest()
    return f"edge:{digest[:32]}"


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
) -> LoadResult:
    """Create or update one relationship per row between nodes that already exist.

    Without ``id``, a relationship is identified by (source, type, target): re-loading updates
    it, and parallel relationships of one type need an ``id`` column. Ids are stored as given.
    """
    if (type is None) == (type_column is None):
        raise GestaltError("Give exactly one of type='TYPE' or type_column='column'.")
    _columns(df, {"source": source, "target": target, "type_column": type_column, "id": id})
    columns = _properties(df, properties, {source, target, type_column, id} - {None})
    started = time.perf_counter()
    sources, targets = _ids(df, source), _ids(df, target)
    kinds = [type] * len(df) if type is not None else df[type_column].tolist()
    given_ids = df[id].tolist() if id is not None else None
    converted = _converted_columns(df, columns)
    edges: dict[str, Edge] = {}
    endpoints: dict[str, tuple[int, str]] = {}
    for position, (start, end, kind) in enumerate(zip(sources, targets, kinds)):
        endpoints.setdefault(start, (position, source))
        endpoints.setdefault(end, (position, target))
        if not isinstance(kind, str) or not kind:
            raise GestaltError(f"{_where(position, df.index[position], type_column or 'type')}: the type must be a non-empty string. Nothing was written.")
        props = _row_properties(columns, converted, position)
        if given_ids is not None:
            given = _item(given_ids[position])
            if given is None or given == "":
                raise GestaltError(f"{_where(position, df.index[position], id)}: the id is empty; every row needs one. Nothing was written.")
            edge_id = str(given)
        else:
            edge_id = _edge_id(start, kind, end)
        previous = edges.get(edge_id)
        if previous is not None:
            props = {**previous.properties, **props}
        edges[edge_id] = Edge(edge_id, start, end, properties={**props, "type": kind})
    db = connection.db
    present = _existing(db, [node_id.encode("utf-8") for node_id in endpoints], "Node")
    missing = [node_id for node_id in endpoints if node_id.encode("utf-8") not in present]
    if missing:
        position, column = endpoints[missing[0]]
        more = f" ({len(missing)} missing endpoints in all)" if len(missing) > 1 else ""
        raise GestaltError(
            f"{_where(position, df.index[position], column)}: {missing[0]!r} is not a node in the graph{more}. "
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
        if (old.source, old.target, old.get_type) != (edge.source, edge.target, edge.get_type):
            raise GestaltError(
                f"Relationship id {edge.get_id!r} already joins {old.source} -[:{old.get_type}]-> {old.target}; "
                "an id cannot change its endpoints or type. Nothing was written."
            )
        edge = Edge(edge.get_id, edge.source, edge.target, properties={**old.properties, **edge.properties})
        if db.serialize_edge_value(edge) == raw:
            unchanged += 1
        else:
            changed.append(edge)
    _write(connection, [("put_edges_bulk", new, False), ("put_edges_bulk", changed, True)], len(new) + len(changed), "relationships")
    return LoadResult("relationships", len(df), len(new), len(changed), unchanged, time.perf_counter() - started)


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
    return LoadResult("graph documents", len(documents), len(documents), 0, 0, time.perf_counter() - started)
