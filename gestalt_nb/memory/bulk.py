"""A transaction's new nodes and edges, written with one bulk call per kind.

GestaltDB's ``put_node``/``put_edge`` read each entity again, serialise it through a recursive
walk and encode every index key part by part. A memory item needs little of that: the store has
read the old node already, its value is JSON text already (checked before the transaction), and
when no property index applies to its properties its only index entry is its label's — the same
key when the item is updated, so nothing to rewrite. ``Pending`` collects the nodes, edges
(``IN_NAMESPACE`` and ``SUBNAMESPACE_OF``), label and edge-type entries and typed-adjacency
records of the puts, and the new namespace nodes, and writes each kind with one call inside the
batch's transaction (in LMDB, one ``putmulti`` of records and keys spelled out by ``engine.records``
and ``engine.keys``, checked once per process against GestaltDB's own key functions), whenever a
read (or a second put of the same item) needs them written, and at the end. Namespace nodes carry
the range-indexed path, so their index entries are GestaltDB's own (``records.write_node_indexes``). A node a
property index applies to (a TTL's expiry, an item of the earlier layout, a person's own index),
another serialiser than JSON, or a value holding GestaltDB's type tag goes through GestaltDB's own
code instead.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii as quote  # a JSON string, as json.dumps writes it
from typing import Any

from gestaltdb.graphdb import Edge, GraphDB, Node

from ..engine import keys, records
from ..engine.records import edge_json, node_json, write_node
from ..graph.bookkeeping import IN_NAMESPACE
from .codec import CAPTION_BYTES, ITEM, ITEM_IDS, TAG, caption  # TAG: GestaltDB's serialiser escapes dicts that look like its tagged values

_LABEL = ITEM.encode("utf-8")
_TYPE = IN_NAMESPACE.encode("utf-8")
compact_json = json.JSONEncoder(separators=(",", ":")).encode  # json.dumps's defaults, without the spaces

try:  # SqliteStore's encoder (installed with LangGraph), ~4× faster than json for a put value
    import orjson

    # datetimes, dataclasses and subclasses of str/int/dict/list are left to json, which refuses or writes them as before
    _ORJSON = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS
except ImportError:  # pragma: no cover - LangGraph brings it
    orjson = None


def value_json(value: Any) -> str:
    """A put value as JSON text: orjson's where it reads back the same as json's (no ``null``, which
    orjson also writes for NaN and infinities), else ``compact_json`` (big integers, non-string keys,
    NaN, lone surrogates, and the types json refuses — a TypeError/ValueError as from json)."""
    if orjson is not None:
        try:
            raw = orjson.dumps(value, option=_ORJSON)
        except TypeError:  # orjson.JSONEncodeError included
            pass
        else:
            if b"null" not in raw:
                return raw.decode("utf-8")
    return compact_json(value)


_BASIC = ("namespace", "key", "name", "created_at", "updated_at")
_ITEM_PROPERTIES = frozenset(_BASIC) | {"value"}


def _body(props: dict[str, Any]) -> str:
    """``compact_json(props)`` without its braces, spelled out for the properties every item has."""
    if not all(isinstance(props[name], str) for name in _BASIC[1:]):  # e.g. a created_at a person set by hand
        return compact_json(props)[1:-1]
    labels = ",".join(map(quote, props["namespace"]))
    body = (f'"namespace":[{labels}],"key":{quote(props["key"])},"name":{quote(props["name"])},'
            f'"created_at":{quote(props["created_at"])},"updated_at":{quote(props["updated_at"])}')
    if len(props) > len(_BASIC):
        body += "," + compact_json({name: value for name, value in props.items() if name not in _BASIC})[1:-1]
    return body


class Pending:
    """What one transaction's puts write, until ``flush``."""

    def __init__(self, tx: GraphDB) -> None:
        self.tx = tx
        self.fast = records.fast(tx)
        self.edges_fast = self.fast and "type" not in tx.indexed_edge_properties
        # a new item's node, label entry and edge spelled out at once (``new_item``): no index on what an item holds
        self.plain = self.edges_fast and not _ITEM_PROPERTIES & set(tx.indexed_node_properties)
        # in LMDB, a new item's index and adjacency records as the key/value pairs GestaltDB would write
        lmdb = records.table_of(tx.store, "index_db") is not None and keys.layout_checked()
        self.keys = (keys.index_prefix("node_label", [_LABEL]), keys.index_prefix("edge_type", [_TYPE])) if lmdb else None
        self.new: list[tuple[str, str, str, str, str, str]] = []  # new items, spelled out at the flush
        self.new_ids: set[str] = set()
        self.namespaces: list[Node] = []
        self.nodes: dict[bytes, bytes] = {}
        self.edges: dict[bytes, bytes] = {}
        self.entries: list[tuple[str, list[bytes], bytes]] = []  # index entries as GestaltDB's bulk call takes them
        self.linked: list[tuple[bytes, bytes, str, bytes]] = []  # typed adjacency records as GestaltDB's bulk call takes them
        self.index_pairs: list[tuple[bytes, bytes]] = []  # and the new items', as LMDB keys and values
        self.adjacency_pairs: list[tuple[bytes, bytes]] = []

    def holds(self, node_id: str) -> bool:
        """Whether this item node waits here (a read of it needs a flush first)."""
        return node_id in self.new_ids or node_id.encode("utf-8") in self.nodes

    def _indexed(self, node: Node | None, props: dict[str, Any]) -> bool:
        indexed = self.tx.indexed_node_properties
        if "value" in indexed or any(name in props for name in indexed):
            return True
        return node is not None and (tuple(node.labels) != (ITEM,) or any(name in node.properties for name in indexed))

    def namespace(self, node: Node) -> None:
        """A new namespace node (written with its index entries at the flush)."""
        self.namespaces.append(node)

    def node(self, node_id: str, props: dict[str, Any], value: Any, text: str | None, old: Node | None) -> None:
        """An item node with ``props`` and ``value`` (``text``: its JSON) replacing ``old`` (or new)."""
        if text is None:
            text = compact_json(value)
        if not self.fast or TAG in text or self._indexed(old, props):
            write_node(self.tx, Node(node_id, labels=[ITEM], properties={**props, "value": value}), old)
            return
        key = node_id.encode("utf-8")
        self.nodes[key] = node_json(quote(node_id), f'["{ITEM}"]', f'{_body(props)},"value":{text}').encode("utf-8")
        if old is None:
            self.entries.append(("node_label", [_LABEL], key))

    def new_item(self, node_id: str, key: str, labels: str, stamp: str, text: str, namespace: str) -> bool:
        """A new item with the basic properties only (``labels``: its namespace as a JSON list,
        ``stamp``: its times, quoted), its label entry and its ``IN_NAMESPACE`` edge to ``namespace``;
        False (nothing done) when it needs ``node`` and ``link``."""
        if not self.plain or TAG in text or not node_id.startswith(ITEM_IDS):
            return False
        self.new.append((node_id, key, labels, stamp, text, namespace))
        self.new_ids.add(node_id)
        return True

    def _spell_new(self) -> None:
        """The new items' records: node, edge, label and type entries, typed adjacency both ways."""
        nodes, edges, prefixes = self.nodes, self.edges, self.keys
        index, adjacency = self.index_pairs, self.adjacency_pairs
        targets: dict[str, tuple[bytes, str]] = {}
        for node_id, key, labels, stamp, text, namespace in self.new:
            quoted_id, quoted_key = quote(node_id), quote(key)  # quoted_id: '"__mem2:…'
            name = quoted_key if len(key) <= CAPTION_BYTES and key.isascii() else quote(caption(key))
            node = node_id.encode("utf-8")
            nodes[node] = node_json(quoted_id, f'["{ITEM}"]', f'"namespace":{labels},"key":{quoted_key},"name":{name},'
                                    f'"created_at":{stamp},"updated_at":{stamp},"value":{text}').encode("utf-8")
            edge = b"__memin" + node[5:]  # codec.link_id
            found = targets.get(namespace)
            if found is None:
                target = namespace.encode("utf-8")
                found = targets[namespace] = (target, quote(namespace))
            target, quoted_target = found
            edges[edge] = edge_json(f'"__memin{quoted_id[6:]}', quoted_id, quoted_target, f'"type":"{IN_NAMESPACE}"').encode("utf-8")
            if prefixes is None:
                self.linked.append((node, target, IN_NAMESPACE, edge))
                self.entries += (("node_label", [_LABEL], node), ("edge_type", [_TYPE], edge))
                continue
            # item and edge ids hold at most ~130 bytes, so these keys stay far below GestaltDB's 511-byte limit
            index.append((prefixes[0] + keys.index_part(node), node))
            index.append((prefixes[1] + keys.index_part(edge), edge))
            adjacency.append((keys.adjacency_key(b"out", node, _TYPE, edge), target))
            adjacency.append((keys.adjacency_key(b"in", target, _TYPE, edge), node))
        self.new, self.new_ids = [], set()

    def _write_namespaces(self) -> None:
        """The new namespace nodes: their records with the items', their index entries (the path is
        range-indexed) by GestaltDB's own ``_put_node_indexes``; with another serialiser, its ``put_nodes``."""
        if not self.fast:
            self.tx.put_nodes(self.namespaces)
        else:
            for node in self.namespaces:  # new: _ensure_namespace found no node with its id
                record = node_json(quote(node.get_id), compact_json(list(node.labels)), compact_json(node.properties)[1:-1])
                self.nodes[node.get_id.encode("utf-8")] = record.encode("utf-8")
                records.write_node_indexes(self.tx, node)
        self.namespaces = []

    def link(self, edge_id: str, source: str, target: str, edge_type: str = IN_NAMESPACE) -> None:
        """A new edge (an item's ``IN_NAMESPACE``, a namespace's ``SUBNAMESPACE_OF``) with only its type."""
        if not self.edges_fast:
            self.tx.put_edge(Edge(edge_id, source, target, properties={"type": edge_type}), update_adjacency=False)
            return
        key = edge_id.encode("utf-8")
        record = edge_json(quote(edge_id), quote(source), quote(target), f'"type":{quote(edge_type)}')
        self.edges[key] = record.encode("utf-8")
        self.linked.append((source.encode("utf-8"), target.encode("utf-8"), edge_type, key))
        self.entries.append(("edge_type", [_TYPE if edge_type == IN_NAMESPACE else edge_type.encode("utf-8")], key))

    def flush(self) -> None:
        tx = self.tx
        store = tx.store
        if self.new:
            self._spell_new()
        if self.namespaces:
            self._write_namespaces()
        if self.nodes:
            records.put_records(store, "nodes_db", self.nodes, store.put_nodes_bulk)
        if self.edges:
            records.put_records(store, "edges_db", self.edges, store.put_edges_bulk)
            if self.adjacency_pairs:
                records.put_pairs(store, "typed_adj_db", self.adjacency_pairs)
            if self.linked:
                records.put_typed_adjacency(store, self.linked)
            records.forget_adjacency_counts(tx)
        if self.index_pairs:
            records.put_pairs(store, "index_db", self.index_pairs)
        if self.entries:
            records.put_index_entries(store, self.entries)
        self.namespaces, self.nodes, self.edges, self.entries, self.linked = [], {}, {}, [], []
        self.index_pairs, self.adjacency_pairs = [], []
