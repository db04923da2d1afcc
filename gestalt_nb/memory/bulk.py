"""A transaction's new item nodes and ``IN_NAMESPACE`` edges, written with one bulk call per kind.

GestaltDB's ``put_node``/``put_edge`` read each entity again, serialise it through a recursive
walk and encode every index key part by part. A memory item needs little of that: the store has
read the old node already, its value is JSON text already (checked before the transaction), and
when no property index applies to its properties its only index entry is its label's — the same
key when the item is updated, so nothing to rewrite. ``Pending`` collects the nodes, edges, label
and edge-type entries and typed-adjacency records of the puts and writes each kind with one call
of the key-value store, inside the batch's transaction, whenever a read (or a second put of the
same item) needs them written, and at the end. A node a property index applies
to (a TTL's expiry, an item of the earlier layout, a person's own index), another serialiser than
JSON, or a value holding GestaltDB's type tag goes through GestaltDB's own code instead.
"""

from __future__ import annotations

import json
from base64 import urlsafe_b64encode
from json.encoder import encode_basestring_ascii as quote  # a JSON string, as json.dumps writes it
from typing import Any

from gestaltdb import kvstores
from gestaltdb.graphdb import Edge, GraphDB, Node
from gestaltdb.kvstores import LMDBTransactionStore
from gestaltdb.serializers import JSONSerializer

from ..graph.bookkeeping import IN_NAMESPACE
from .codec import ITEM, TAG  # TAG: GestaltDB's serialiser escapes dicts that look like its tagged values

_LABEL = ITEM.encode("utf-8")
_TYPE = IN_NAMESPACE.encode("utf-8")
compact_json = json.JSONEncoder(separators=(",", ":")).encode  # json.dumps's defaults, without the spaces


_BASIC = ("namespace", "key", "name", "created_at", "updated_at")


def _head(node_id: str, props: dict[str, Any]) -> str:
    """``compact_json({"id": node_id, "labels": [ITEM], "properties": props})`` without its last two
    ``}``, spelled out for the properties every item has."""
    if not all(isinstance(props[name], str) for name in _BASIC[1:]):  # e.g. a created_at a person set by hand
        return compact_json({"id": node_id, "labels": [ITEM], "properties": props})[:-2]
    labels = ",".join(map(quote, props["namespace"]))
    head = (f'{{"id":{quote(node_id)},"labels":["{ITEM}"],"properties":{{"namespace":[{labels}],"key":{quote(props["key"])},'
            f'"name":{quote(props["name"])},"created_at":{quote(props["created_at"])},"updated_at":{quote(props["updated_at"])}')
    if len(props) > len(_BASIC):
        head += "," + compact_json({name: value for name, value in props.items() if name not in _BASIC})[1:-1]
    return head


_PREFIXES: dict[tuple, bytes] = {}  # (index, parts) → its key prefix, checked once per process


def put_index_entries(store: Any, entries: list[tuple[str, list[bytes], bytes]]) -> None:
    """``store.put_index_entries_bulk(entries)``. In an LMDB transaction, each (index, parts) prefix is
    encoded once — by GestaltDB's own ``_index_prefix``, checked against its ``_index_key`` — and the
    entries go in with one ``putmulti``; any other store, format or an over-long key: GestaltDB's call."""
    index_db = getattr(getattr(store, "parent", None), "index_db", None)
    if not isinstance(store, LMDBTransactionStore) or index_db is None or not hasattr(kvstores, "_index_prefix"):
        store.put_index_entries_bulk(entries)
        return
    pairs = []
    for name, parts, value in entries:
        prefix = _PREFIXES.get((name, *parts))
        if prefix is None:
            prefix = kvstores._index_prefix(name, parts)
            if prefix + kvstores._index_part(value) != kvstores._index_key(name, parts, value):
                store.put_index_entries_bulk(entries)
                return
            _PREFIXES[(name, *parts)] = prefix
        key = prefix + urlsafe_b64encode(value).rstrip(b"=")
        if len(key) > kvstores.MAX_PORTABLE_INDEX_KEY_BYTES:
            store.put_index_entries_bulk(entries)  # raises GestaltDB's own error
            return
        pairs.append((key, value))
    store.txn.cursor(db=index_db).putmulti(pairs)


def write_node(tx: GraphDB, node: Node, old: Node | None) -> None:
    """``tx.put_node`` without its second read of the old node (we hold it already)."""
    if not hasattr(tx, "_put_node_indexes"):  # another GestaltDB: its own put_node
        tx.put_node(node)
        return
    if old is not None:
        tx._delete_node_indexes(old)
    tx.store.put_node(node.get_id_bytes, tx.entity_serializer.serialize(node, "Node"))
    tx._put_node_indexes(node)


class Pending:
    """What one call's puts write, until ``flush``."""

    def __init__(self, tx: GraphDB) -> None:
        self.tx = tx
        serializer = getattr(getattr(tx, "entity_serializer", None), "serializer", None)
        self.fast = type(serializer) is JSONSerializer and hasattr(tx, "_put_node_indexes") and hasattr(tx.store, "put_nodes_bulk")
        self.edges_fast = self.fast and "type" not in tx.indexed_edge_properties
        self.nodes: dict[bytes, bytes] = {}
        self.entries: list[tuple[str, list[bytes], bytes]] = []
        self.edges: dict[bytes, bytes] = {}
        self.typed: list[tuple[bytes, bytes, str, bytes]] = []

    def _indexed(self, node: Node | None, props: dict[str, Any]) -> bool:
        indexed = self.tx.indexed_node_properties
        if any(name in props for name in indexed):
            return True
        return node is not None and (tuple(node.labels) != (ITEM,) or any(name in node.properties for name in indexed))

    def node(self, node_id: str, props: dict[str, Any], value: Any, text: str | None, old: Node | None) -> None:
        """An item node with ``props`` and ``value`` (``text``: its JSON) replacing ``old`` (or new)."""
        if text is None:
            text = compact_json(value)
        if not self.fast or TAG in text or self._indexed(old, props):
            write_node(self.tx, Node(node_id, labels=[ITEM], properties={**props, "value": value}), old)
            return
        key = node_id.encode("utf-8")
        self.nodes[key] = f'{_head(node_id, props)},"value":{text}}}}}'.encode("utf-8")
        if old is None:
            self.entries.append(("node_label", [_LABEL], key))

    def link(self, edge_id: str, item: str, namespace: str) -> None:
        """A new ``IN_NAMESPACE`` edge from an item to its namespace."""
        if not self.edges_fast:
            self.tx.put_edge(Edge(edge_id, item, namespace, properties={"type": IN_NAMESPACE}), update_adjacency=False)
            return
        key = edge_id.encode("utf-8")
        record = f'{{"id":{quote(edge_id)},"source":{quote(item)},"target":{quote(namespace)},"properties":{{"type":"{IN_NAMESPACE}"}}}}'
        self.edges[key] = record.encode("utf-8")
        self.typed.append((item.encode("utf-8"), namespace.encode("utf-8"), IN_NAMESPACE, key))
        self.entries.append(("edge_type", [_TYPE], key))

    def flush(self) -> None:
        store = self.tx.store
        if self.nodes:
            store.put_nodes_bulk(self.nodes)
        if self.edges:
            store.put_edges_bulk(self.edges)
            store.put_typed_adjacency_bulk(self.typed)
            counts = getattr(self.tx, "_update_typed_adjacency_count_cache", None)
            if counts is not None:
                counts(self.typed, 1)
        if self.entries:
            put_index_entries(store, self.entries)
        self.nodes, self.entries, self.edges, self.typed = {}, [], {}, []
