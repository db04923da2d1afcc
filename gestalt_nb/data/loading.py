"""Load pandas DataFrames (and graph documents) fast, atomically, with progress.

Every column is converted and checked (column-wise, :mod:`.columns`) before anything is written; then one backend
transaction writes the whole load through GestaltDB's bulk APIs: ONE columnar ``ingest_arrow`` call for
a load's new nodes or relationships, ONE ``put_nodes`` / ``put_edges_bulk`` for those it changes. A failure at any point — a bad value, an edge to a node that
does not exist, a full LMDB map — leaves the database as it was, and the error names the row and
the column. Re-loading merges: properties are updated (incoming values win), labels are added,
rows identical to what is stored are skipped. The transaction and progress bar are :mod:`.writes`.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd
from gestaltdb.graphdb import Edge, Node
from langchain_gestaltdb import GestaltDBGraph

from ..errors import GestaltError, storage_problem
from ..graph import names
from ..temporal import history, moments
from .columns import _columns, _converted_columns, _first, _ids, _item, _properties, _rows, _where, convert
from .held import held_node_ids
from .writes import _existing, _warn, _write

if TYPE_CHECKING:  # only for annotations: capabilities never import the session at run time
    from ..session import Connection


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
    #: Rows merged into an earlier row's node or relationship (same id; for relationships without ids, same
    #: source, type and target): rows = created + updated + unchanged + merged.
    merged: int = 0
    #: The notes that were also raised as a GestaltWarning (shown once, when the load ran).
    warnings: list[str] = field(default_factory=list)

    @property
    def rows_per_second(self) -> float:
        return self.rows / self.seconds if self.seconds else float("inf")

    def __repr__(self) -> str:
        return (
            f"<LoadResult {self.kind}: {self.rows:,} rows → {self.created:,} created, {self.updated:,} updated, "
            f"{self.unchanged:,} unchanged{f', {self.merged:,} merged' if self.merged else ''} in {self.seconds:.2f} s ({self.rows_per_second:,.0f} rows/s)>"
            + "".join(f"\n  note: {note}" for note in self.notes if note not in self.warnings)
            + (f"\n  {len(self.warnings)} warning{'s' if len(self.warnings) != 1 else ''} shown when it ran (all in .notes)" if self.warnings else "")
        )


def load_nodes(
    connection: Connection,
    df: Any,
    *,
    id: str,
    label: str | None = None,
    label_column: str | None = None,
    properties: Iterable[str] | None = None,
    keep_id: bool | None = None,
    valid_from: str | None = None,
    valid_to: str | None = None,
) -> LoadResult:
    """The work of :meth:`Connection.load_nodes <gestalt_nb.capabilities.Capabilities.load_nodes>`, ``connection`` first (documented there, once)."""
    if (label is None) == (label_column is None):
        raise GestaltError("Give exactly one of label='Label' or label_column='column'.")
    _columns(df, {"id": id, "label_column": label_column, "valid_from": valid_from, "valid_to": valid_to})
    columns = _properties(df, properties, {id, label_column, valid_from, valid_to} - {None})
    started = time.perf_counter()
    warn: list[str] = []
    versions: list[Any] = []
    if valid_from is not None or valid_to is not None:
        df, versions = _node_history(df, id, label, label_column, columns, valid_from, valid_to)
    ids = _ids(df, id, warn)
    columns, notes = _integer_ids(ids, id, keep_id, columns)
    converted, any_missing = _converted_columns(df, columns, warn)
    nodes = _nodes(df, ids, _rows(columns, converted, len(df), any_missing), label, label_column)
    merged = len(df) - len(nodes)
    if merged:
        notes.append(f"{merged:,} of {len(df):,} rows repeated an id in '{id}' and were merged into that node (labels added, later values win).")
    created, changed, unchanged = _nodes_against_stored(connection.db, nodes)
    del nodes
    _write(connection, [("ingest_nodes", created, None), ("put_nodes", changed, None), ("commit_versions", versions, None)], len(created) + len(changed) + len(versions), "nodes")
    _warn(warn)
    notes += _history_note(connection, versions, len(df))
    return LoadResult("nodes", len(versions) or len(df), len(created), len(changed), unchanged, time.perf_counter() - started, [*notes, *warn], merged, list(warn))


def _history_note(connection: Connection, versions: list[Any], current: int) -> list[str]:
    if not versions:
        return []
    where = ("held for one_history_commit(), written to the history as one commit when the block ends"
             if connection._held_versions is not None else "written to the history")
    return [f"{len(versions):,} versions {where}; {current:,} rows valid now updated the current graph."]


def _node_history(df: Any, id: str, label: str | None, label_column: str | None, columns: list[str], valid_from: str | None,
        valid_to: str | None) -> tuple[Any, list[Any]]:
    """Every row as a node version (checked before anything is written), and the rows valid now."""
    spans = moments.intervals(df, valid_from, valid_to, _where)
    ids = _ids(df, id)
    converted, any_missing = _converted_columns(df, columns, [])
    rows = _rows(columns, converted, len(df), any_missing)
    if label_column is None:
        labels = [[label]] * len(df)
    else:
        labels = [sorted(set(_labels(value, _where(position, df.index[position], label_column)))) for position, value in enumerate(df[label_column].tolist())]
    now = history.valid_at(spans, moments.now())
    return df[now], history.node_writes(ids, labels, [{**row} for row in rows], spans)


def _integer_ids(ids: list[str], id: str, keep_id: bool | None, columns: list[str]) -> tuple[list[str], list[str]]:
    """The property columns (the id column added when its integers are kept) and the note saying how integer ids are stored."""
    if not ids or not ids[0].startswith("__lc_int__:"):
        return columns, []
    keep = keep_id if keep_id is not None else id != "id"
    if keep and id not in columns:
        columns = [*columns, id]
    kept = f"; the number is also kept as the property '{id}'" if keep and id in columns else ""
    number = ids[0].split(":", 1)[1]
    return columns, [
        f"Integer ids are stored as '__lc_int__:N' (the adapter's rule){kept}. %gexplore, --seed-ids, shortest_path "
        f"and Cypher literals such as {{id: {number}}} or id(n) = {number} accept the number as written."
    ]


def _nodes(df: Any, ids: list[str], rows: list[dict[str, Any]], label: str | None, label_column: str | None) -> dict[str, Node]:
    """One node per distinct id; a repeated id merges into the earlier row's node (labels added, later values win)."""
    label_values = df[label_column].tolist() if label_column is not None else None
    plain_labels = label_column is not None and pd.api.types.infer_dtype(df[label_column], skipna=False) == "string" and not (df[label_column] == "").any()
    nodes: dict[str, Node] = {}
    for position, (node_id, props) in enumerate(zip(ids, rows)):
        if label_values is None:
            labels = [label]
        elif plain_labels:  # a column of non-empty strings: checked once, column-wise
            labels = [label_values[position]]
        else:
            labels = sorted(set(_labels(label_values[position], _where(position, df.index[position], label_column))))
        previous = nodes.get(node_id)
        if previous is not None:
            labels, props = sorted(set(previous.labels) | set(labels)), {**previous.properties, **props}
        nodes[node_id] = Node(node_id, labels=labels, properties=props)
    return nodes


def _nodes_against_stored(db: Any, nodes: dict[str, Node]) -> tuple[list[Node], list[Node], int]:
    """The new nodes, the stored ones to update (merged with what is stored) and how many are unchanged."""
    existing = _existing(db, [node.get_id_bytes for node in nodes.values()], "Node")
    if not existing:
        return list(nodes.values()), [], 0
    created, changed, unchanged = [], [], 0
    for node in nodes.values():
        raw = existing.get(node.get_id_bytes)
        if raw is None:
            created.append(node)
            continue
        old = db.get_node(node.get_id_bytes)
        node = Node(node.get_id, labels=sorted(set(old.labels) | set(node.labels)), properties={**old.properties, **node.properties})
        if db.serialize_node_value(node) == raw:
            unchanged += 1
        else:
            changed.append(node)
    return created, changed, unchanged


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
    id_prefix: str | None = None,
    properties: Iterable[str] | None = None,
    directed: bool = True,
    valid_from: str | None = None, valid_to: str | None = None,
) -> LoadResult:
    """The work of :meth:`Connection.load_edges <gestalt_nb.capabilities.Capabilities.load_edges>`, ``connection`` first (documented there, once)."""
    if (type is None) == (type_column is None):
        raise GestaltError("Give exactly one of type='TYPE' or type_column='column'.")
    _columns(df, {"source": source, "target": target, "type_column": type_column, "id": id, "valid_from": valid_from, "valid_to": valid_to})
    columns = _properties(df, properties, {source, target, type_column, id, valid_from, valid_to} - {None})
    if "type" in columns:
        raise GestaltError(
            "The column 'type' would be overwritten: GestaltDB keeps the relationship type in the property 'type'. "
            "Rename it (df.rename(columns={'type': 'kind'})), use it as the type (type_column='type'), "
            "or leave it out (properties=[...]). Nothing was written."
        )
    started = time.perf_counter()
    warn: list[str] = []
    df, versions = _edge_history(connection, df, source, target, type, type_column, id, id_prefix, columns, (valid_from, valid_to), directed)
    sources, targets = _ids(df, source, warn), _ids(df, target, warn)
    kinds = _kinds(df, type, type_column)
    given_ids = _given_ids(df, id, id_prefix)
    converted, any_missing = _converted_columns(df, columns, warn)
    if directed:
        rows = _rows([*columns, "type"], [*converted, kinds], len(df), any_missing)  # the type goes into each row's properties
        edges, merged = _directed_edges(sources, targets, kinds, rows, given_ids, warn)
    else:
        rows = _rows(columns, converted, len(df), any_missing)
        edges, merged = _undirected_edges(sources, targets, kinds, rows, given_ids, warn)
    if merged:
        warn.append(_merged_note(merged, len(df), id))
    db = connection.db
    _check_endpoints(db, df, source, target, sources, targets)
    new, changed, unchanged = _against_stored(db, edges, directed)
    created, updated = len(new), len(changed)
    del edges, rows, sources, targets, kinds, given_ids, converted  # the relationships alone go on to the write
    _write(connection, [("ingest_edges", new, None), ("put_edges_bulk", changed, True), ("commit_versions", versions, None)], created + updated + len(versions), "relationships")
    _warn(warn)
    return LoadResult("relationships", len(versions) or len(df), created, updated, unchanged, time.perf_counter() - started,
        [*_history_note(connection, versions, len(df)), *warn], merged, list(warn))


def _edge_history(connection: Connection, df: Any, source: str, target: str, type: str | None, type_column: str | None, id: str | None,
        id_prefix: str | None, columns: list[str], valid: tuple[str | None, str | None], directed: bool) -> tuple[Any, list[Any]]:
    """Every row as a relationship version (checked before anything is written), and the rows valid now; without
    ``valid_from`` / ``valid_to``, the frame as it is and no versions."""
    if valid == (None, None):
        return df, []
    if not directed:
        raise GestaltError("valid_from=/valid_to= load directed relationships only; drop directed=False. Nothing was written.")
    spans = moments.intervals(df, valid[0], valid[1], _where)
    sources, targets, kinds = _ids(df, source), _ids(df, target), _kinds(df, type, type_column)
    given = _given_ids(df, id, id_prefix)
    converted, any_missing = _converted_columns(df, [*columns], [])
    rows = _rows(columns, converted, len(df), any_missing)
    edge_ids = given if given is not None else [_edge_id(*key) for key in zip(sources, kinds, targets)]
    edges = [(edge_id, start, end, {**row, "type": kind}) for edge_id, start, end, kind, row in zip(edge_ids, sources, targets, kinds, rows)]
    _check_history_endpoints(connection, df, source, target, sources, targets)
    now = history.valid_at(spans, moments.now())
    return df[now], history.edge_writes(edges, spans)


def _check_history_endpoints(connection: Connection, df: Any, source: str, target: str, sources: list[str], targets: list[str]) -> None:
    """Each end is a node now, in the history or held by an open one_history_commit(); else the row is refused."""
    db = connection.db
    endpoints = list(dict.fromkeys([*sources, *targets]))
    present = set(_existing(db, [node_id.encode("utf-8") for node_id in endpoints], "Node"))
    missing = [node_id for node_id in endpoints if node_id.encode("utf-8") not in present]
    if missing:
        known = history.node_ids(db) | held_node_ids(connection)
        missing = [node_id for node_id in missing if node_id not in known]
    if missing:
        column, values = (source, sources) if missing[0] in set(sources) else (target, targets)
        position = values.index(missing[0])
        raise GestaltError(f"{_where(position, df.index[position], column)}: {missing[0]!r} is not a node, now or in the history. "
            "Load the nodes first; nothing was written.")


def _given_ids(df: Any, id: str | None, id_prefix: str | None) -> list[str] | None:
    """The ``id`` column as relationship ids (``id_prefix`` in front), checked; None without one."""
    if id_prefix is not None and (not isinstance(id_prefix, str) or not id_prefix):
        raise GestaltError(f"id_prefix must be a non-empty string, not {id_prefix!r}. Nothing was written.")
    if id is None:
        if id_prefix is not None:
            raise GestaltError("id_prefix= prefixes the ids of an id= column; give the column too (id='line_id'). Nothing was written.")
        return None
    given = df[id]
    empty = given.isna().to_numpy() | (given.astype(str) == "").to_numpy()
    if empty.any():
        position = _first(empty)
        raise GestaltError(f"{_where(position, df.index[position], id)}: the id is empty or missing; every row needs one. Nothing was written.")
    values = given.tolist() if pd.api.types.infer_dtype(given, skipna=False) == "string" else [str(_item(value)) for value in given.tolist()]
    return [id_prefix + value for value in values] if id_prefix else values


def _directed_edges(sources, targets, kinds, rows, given_ids, warn: list[str]) -> tuple[dict[str, Edge], int]:
    """One relationship per distinct id (given, else per (source, type, target)); how many rows merged."""
    keys = list(zip(sources, kinds, targets))
    edge_ids = given_ids if given_ids is not None else [_edge_id(*key) for key in keys]
    edges: dict[str, Edge] = {}
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
    return edges, len(rows) - len(edges)


def _undirected_edges(sources, targets, kinds, rows, given_ids, warn: list[str]) -> tuple[dict[str, Edge], int]:
    """One relationship per unordered pair and type; rows repeating a pair are merged (how many, returned)."""
    edges: dict[str, Edge] = {}
    pairs: dict[tuple[str, str, str], str] = {}
    reversed_rows = 0
    for position, (start, end, kind, props) in enumerate(zip(sources, targets, kinds, rows)):
        pair = (start, end, kind) if start <= end else (end, start, kind)
        edge_id = pairs.get(pair)
        if edge_id is None:
            edge_id = given_ids[position] if given_ids is not None else _edge_id(*pair)
            pairs[pair] = edge_id
        previous = edges.get(edge_id)
        if previous is not None:
            if (previous.source, previous.target) != (start, end) or given_ids is not None and given_ids[position] != edge_id:
                reversed_rows += 1
            start, end, props = previous.source, previous.target, {**previous.properties, **props}
        props["type"] = kind
        edges[edge_id] = Edge(edge_id, start, end, properties=props)
    if reversed_rows:
        warn.append(f"directed=False: {reversed_rows:,} rows repeated a pair in the other direction and were merged into one relationship each.")
    return edges, len(rows) - len(edges) - reversed_rows


def _merged_note(merged: int, rows: int, id: str | None) -> str:
    same = f"the same id in '{id}'" if id is not None else "the same source, type and target"
    keep = (
        "Give each row its own id to keep them apart." if id is not None
        else "To keep each row as its own relationship (parallel lines), load with an id column: id='line_id'."
    )
    return f"{merged:,} of {rows:,} rows were merged into the relationship of an earlier row with {same} (later values win). {keep}"


def _check_endpoints(db: Any, df: Any, source: str, target: str, sources: list[str], targets: list[str]) -> None:
    endpoints = list(dict.fromkeys([*sources, *targets]))
    present = _existing(db, [node_id.encode("utf-8") for node_id in endpoints], "Node")
    missing = [node_id for node_id in endpoints if node_id.encode("utf-8") not in present]
    if not missing:
        return
    first = missing[0]
    column, values = (source, sources) if first in set(sources) else (target, targets)
    position = values.index(first)
    more = f" ({len(missing)} missing endpoints in all)" if len(missing) > 1 else ""
    shown = first.split(":", 1)[1] if first.startswith("__lc_int__:") else repr(first)
    raise GestaltError(
        f"{_where(position, df.index[position], column)}: {shown} is not a node in the graph{_missing_endpoint(db, first)}{more}. "
        "Load the nodes first; nothing was written."
    )


def _against_stored(db: Any, edges: dict[str, Edge], directed: bool) -> tuple[list[Edge], list[Edge], int]:
    """The relationships to create, those to update and how many are unchanged; an id that would move is refused."""
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
                "an id cannot change its endpoints or type, and ids share one space across relationship types. "
                f"If this table's ids overlap another's, give them a prefix: id_prefix='{edge.get_type.lower()}:'. Nothing was written."
            )
        edge = Edge(edge.get_id, old.source, old.target, properties={**old.properties, **edge.properties})
        if db.serialize_edge_value(edge) == raw:
            unchanged += 1
        else:
            changed.append(edge)
    return new, changed, unchanged


def load_graph_documents(connection: Connection, documents: Iterable[Any], *, include_source: bool = False) -> LoadResult:
    """The adapter's ``add_graph_documents``, run inside one transaction (all or nothing, and fast)."""
    documents = list(documents)
    started = time.perf_counter()
    db = connection.db
    try:
        with names.tracked(db) as tx:  # the name index kept for every node the documents wrote
            GestaltDBGraph(tx).add_graph_documents(documents, include_source=include_source)
    except Exception as exc:
        storage = storage_problem(exc, connection.path, "load into the database", read_only=connection.read_only) if connection.path else None
        raise GestaltError(storage or f"The load failed and was rolled back; nothing was written: {exc}") from exc
    connection.graph.refresh_schema()
    connection.feed.publish("load", None, exact=False)
    return LoadResult("graph documents", len(documents), len(documents), 0, 0, time.perf_counter() - started)
