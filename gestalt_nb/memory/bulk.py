"""A transaction's new nodes and edges, written with one bulk call per kind.

GestaltDB's ``put_node``/``put_edge`` read each entity again, serialise it through a recursive
walk and encode every index key part by part. A memory item needs little of that: the store has
read the old node already, its value is JSON text already (checked before the transaction), and
when no property index applies to its properties its only index entry is its label's — the same
key when the item is updated, so nothing to rewrite. ``Pending`` collects the nodes, edges
(``IN_NAMESPACE`` and ``SUBNAMESPACE_OF``), label and edge-type entries and typed-adjacency
records of the puts, and the new namespace nodes, and writes each kind with one call inside the
batch's transaction (in LMDB, one ``putmulti`` of keys spelled out here and checked once per
process against GestaltDB's own key functions), whenever a read (or a second put of the same
item) needs them written, and at the end. Namespace nodes carry the range-indexed path, so their
index entries are GestaltDB's own (``_put_node_indexes``). A node a
property index applies to (a TTL's expiry, an item of the earlier layout, a person's own index),
another serialiser than JSON, or a value holding GestaltDB's type tag goes through GestaltDB's own
code instead.
"""

from __future__ import annotations

import json
from binascii import b2a_base64
from json.encoder import encode_basestring_ascii as quote  # a JSON string, as json.dumps writes it
from typing import Any

from gestaltdb import kvstores
from gestaltdb.graphdb import Edge, GraphDB, Node
from gestaltdb.kvstores import LMDBTransactionStore
from gestaltdb.serializers import JSONSerializer

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
_URLSAFE = bytes.maketrans(b"+/", b"-_")
_SEP = b"\x1f"
_IN_KIND = b"\x1f" + IN_NAMESPACE.encode("utf-8") + b"\x1f"


def _index_part(value: bytes) -> bytes:
    """GestaltDB's ``_index_part`` of bytes (URL-safe base64 without padding) in two C calls."""
    return b2a_base64(value, newline=False).translate(_URLSAFE).rstrip(b"=")


def _lmdb(store: Any, name: str) -> Any:
    """The LMDB sub-database ``name`` of a transaction's store, or None (another store, another GestaltDB)."""
    if not isinstance(store, LMDBTransactionStore) or not hasattr(store, "txn"):
        return None
    return getattr(getattr(store, "parent", None), name, None)


def index_prefix(name: str, parts: list[bytes]) -> bytes | None:
    """The key prefix of GestaltDB's index ``name`` over ``parts``, checked against its ``_index_key``
    once per process (None: this GestaltDB spells index keys otherwise)."""
    prefix = _PREFIXES.get((name, *parts))
    if prefix is None and hasattr(kvstores, "_index_prefix"):
        prefix = kvstores._index_prefix(name, parts)
        if prefix + _index_part(b"id-1") != kvstores._index_key(name, parts, b"id-1"):
            return None
        _PREFIXES[(name, *parts)] = prefix
    return prefix


def put_index_entries(store: Any, entries: list[tuple[str, list[bytes], bytes]]) -> None:
    """``store.put_index_entries_bulk(entries)``. In an LMDB transaction, each (index, parts) prefix is
    encoded once — by GestaltDB's own ``_index_prefix``, checked against its ``_index_key`` — and the
    entries go in with one ``putmulti``; any other store, format or an over-long key: GestaltDB's call."""
    index_db = _lmdb(store, "index_db")
    if index_db is None or not hasattr(kvstores, "_index_prefix"):
        store.put_index_entries_bulk(entries)
        return
    pairs = []
    limit = kvstores.MAX_PORTABLE_INDEX_KEY_BYTES
    for name, parts, value in entries:
        prefix = index_prefix(name, parts)
        key = prefix + _index_part(value) if prefix is not None else b""
        if prefix is None or len(key) > limit:
            store.put_index_entries_bulk(entries)  # GestaltDB's own keys (and its error for an over-long one)
            return
        pairs.append((key, value))
    store.txn.cursor(db=index_db).putmulti(pairs)


_ADJACENCY_CHECKED: list[bool] = []  # whether GestaltDB's typed-adjacency keys are spelled as below


def _adjacency_spelled_out() -> bool:
    if not _ADJACENCY_CHECKED:
        key = getattr(kvstores, "_typed_adjacency_key", None)
        _ADJACENCY_CHECKED.append(key is not None and key("out", b"a", "T", b"e") == b"out\x1fa\x1fT\x1fe"
                                  and key("in", b"b", "T", b"e") == b"in\x1fb\x1fT\x1fe")
    return _ADJACENCY_CHECKED[0]


def put_typed_adjacency(store: Any, records: list[tuple[bytes, bytes, str, bytes]]) -> None:
    """``store.put_typed_adjacency_bulk(records)``, in LMDB as one ``putmulti`` of both directions."""
    adjacency_db = _lmdb(store, "typed_adj_db")
    if adjacency_db is None or not _adjacency_spelled_out():
        store.put_typed_adjacency_bulk(records)
        return
    pairs = []
    for source, target, edge_type, edge in records:
        kind = _SEP + edge_type.encode("utf-8") + _SEP + edge
        pairs.append((b"out\x1f" + source + kind, target))
        pairs.append((b"in\x1f" + target + kind, source))
    store.txn.cursor(db=adjacency_db).putmulti(pairs)


def _put_records(store: Any, name: str, records: dict[bytes, bytes], fallback: Any) -> None:
    table = _lmdb(store, name)
    if table is None:
        fallback(records)
    else:
        store.txn.cursor(db=table).putmulti(records.items())


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
    """What one transaction's puts write, until ``flush``."""

    def __init__(self, tx: GraphDB) -> None:
        self.tx = tx
        serializer = getattr(getattr(tx, "entity_serializer", None), "serializer", None)
        self.fast = type(serializer) is JSONSerializer and hasattr(tx, "_put_node_indexes") and hasattr(tx.store, "put_nodes_bulk")
        self.edges_fast = self.fast and "type" not in tx.indexed_edge_properties
        # a new item's node, label entry and edge spelled out at once (``new_item``): no index on what an item holds
        self.plain = self.edges_fast and not _ITEM_PROPERTIES & set(tx.indexed_node_properties)
        # in LMDB, a new item's index and adjacency records as the key/value pairs GestaltDB would write
        label, kind = index_prefix("node_label", [_LABEL]), index_prefix("edge_type", [_TYPE])
        self.keys = (label, kind) if label and kind and _lmdb(tx.store, "index_db") is not None and _adjacency_spelled_out() else None
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
        self.nodes[key] = f'{_head(node_id, props)},"value":{text}}}}}'.encode("utf-8")
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
        nodes, edges, keys = self.nodes, self.edges, self.keys
        index, adjacency = self.index_pairs, self.adjacency_pairs
        targets: dict[str, tuple[bytes, str, bytes]] = {}
        for node_id, key, labels, stamp, text, namespace in self.new:
            quoted_id, quoted_key = quote(node_id), quote(key)  # quoted_id: '"__mem2:…'
            name = quoted_key if len(key) <= CAPTION_BYTES and key.isascii() else quote(caption(key))
            node = node_id.encode("utf-8")
            nodes[node] = (f'{{"id":{quoted_id},"labels":["{ITEM}"],"properties":{{"namespace":{labels},"key":{quoted_key},'
                           f'"name":{name},"created_at":{stamp},"updated_at":{stamp},"value":{text}}}}}').encode("utf-8")
            edge = b"__memin" + node[5:]  # codec.link_id
            found = targets.get(namespace)
            if found is None:
                target = namespace.encode("utf-8")
                found = targets[namespace] = (target, quote(namespace), b"in\x1f" + target + _IN_KIND)
            target, quoted_target, inward = found
            edges[edge] = (f'{{"id":"__memin{quoted_id[6:]},"source":{quoted_id},"target":{quoted_target},'
                           f'"properties":{{"type":"{IN_NAMESPACE}"}}}}').encode("utf-8")
            if keys is None:
                self.linked.append((node, target, IN_NAMESPACE, edge))
                self.entries += (("node_label", [_LABEL], node), ("edge_type", [_TYPE], edge))
                continue
            # item and edge ids hold at most ~130 bytes, so these keys stay far below GestaltDB's 511-byte limit
            index.append((keys[0] + _index_part(node), node))
            index.append((keys[1] + _index_part(edge), edge))
            adjacency.append((b"out\x1f" + node + _IN_KIND + edge, target))
            adjacency.append((inward + edge, node))
        self.new, self.new_ids = [], set()

    def _write_namespaces(self) -> None:
        """The new namespace nodes: their records with the items', their index entries (the path is
        range-indexed) by GestaltDB's own ``_put_node_indexes``; with another serialiser, its ``put_nodes``."""
        if not self.fast:
            self.tx.put_nodes(self.namespaces)
        else:
            for node in self.namespaces:  # new: _ensure_namespace found no node with its id
                record = {"id": node.get_id, "labels": list(node.labels), "properties": node.properties}
                self.nodes[node.get_id.encode("utf-8")] = compact_json(record).encode("utf-8")
                self.tx._put_node_indexes(node)
        self.namespaces = []

    def link(self, edge_id: str, source: str, target: str, edge_type: str = IN_NAMESPACE) -> None:
        """A new edge (an item's ``IN_NAMESPACE``, a namespace's ``SUBNAMESPACE_OF``) with only its type."""
        if not self.edges_fast:
            self.tx.put_edge(Edge(edge_id, source, target, properties={"type": edge_type}), update_adjacency=False)
            return
        key = edge_id.encode("utf-8")
        record = f'{{"id":{quote(edge_id)},"source":{quote(source)},"target":{quote(target)},"properties":{{"type":{quote(edge_type)}}}}}'
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
            _put_records(store, "nodes_db", self.nodes, store.put_nodes_bulk)
        if self.edges:
            _put_records(store, "edges_db", self.edges, store.put_edges_bulk)
            if self.adjacency_pairs:
                store.txn.cursor(db=store.parent.typed_adj_db).putmulti(self.adjacency_pairs)
            if self.linked:
                put_typed_adjacency(store, self.linked)
            counts = getattr(tx, "_typed_adjacency_count_cache", None)
            if counts:  # adjacency counts this transaction cached so far: counted again when next asked
                counts.clear()
        if self.index_pairs:
            store.txn.cursor(db=store.parent.index_db).putmulti(self.index_pairs)
        if self.entries:
            put_index_entries(store, self.entries)
        self.namespaces, self.nodes, self.edges, self.entries, self.linked = [], {}, {}, [], []
        self.index_pairs, self.adjacency_pairs = [], []
