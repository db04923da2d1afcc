"""Records written straight into LMDB as GestaltDB writes them, and GestaltDB's own index upkeep for one node.

Used by the memory store's batches (``memory/bulk.py``), which spell a new item's records themselves: a node and an
edge as the JSON GestaltDB's ``JSONSerializer`` writes (``node_json``, ``edge_json``), their index entries and
typed adjacency (keys from ``keys``), each kind written with one LMDB ``putmulti`` inside the batch's transaction.
Whatever this GestaltDB does otherwise (another serialiser, another key layout, a store that is not LMDB's) goes
through GestaltDB's own bulk calls instead (``fast``, ``keys.layout_checked``).
"""

from __future__ import annotations

from typing import Any

from . import keys

__all__ = [
    "edge_json", "fast", "forget_adjacency_counts", "node_json", "put_index_entries", "put_pairs", "put_records",
    "put_typed_adjacency", "table_of", "write_node", "write_node_indexes",
]


def node_json(quoted_id: str, labels: str, properties: str) -> str:
    """A node's record as GestaltDB's JSON serialiser writes it (``properties``: the JSON object's inside, no braces)."""
    return f'{{"id":{quoted_id},"labels":{labels},"properties":{{{properties}}}}}'


def edge_json(quoted_id: str, source: str, target: str, properties: str) -> str:
    """An edge's record as GestaltDB's JSON serialiser writes it (ids quoted; ``properties`` without braces)."""
    return f'{{"id":{quoted_id},"source":{source},"target":{target},"properties":{{{properties}}}}}'


def fast(tx: Any) -> bool:
    """Whether ``tx`` (a transaction-bound ``GraphDB``) stores JSON records that may be written as spelled here."""
    from gestaltdb.serializers import JSONSerializer  # deferred: start-up time (the engine loads on first use)

    serializer = getattr(getattr(tx, "entity_serializer", None), "serializer", None)
    return type(serializer) is JSONSerializer and hasattr(tx, "_put_node_indexes") and hasattr(tx.store, "put_nodes_bulk")


def table_of(store: Any, name: str) -> Any:
    """The LMDB table ``name`` (``"nodes_db"``, ``"index_db"``, …) of a transaction's store, or None (another store)."""
    from gestaltdb.kvstores import LMDBTransactionStore

    if not isinstance(store, LMDBTransactionStore) or not hasattr(store, "txn"):
        return None
    return getattr(getattr(store, "parent", None), name, None)


def put_pairs(store: Any, name: str, pairs: Any) -> None:
    """(key, value) pairs into LMDB table ``name`` of a transaction's LMDB store, with one ``putmulti``."""
    store.txn.cursor(db=getattr(store.parent, name)).putmulti(pairs)


def put_records(store: Any, name: str, records: dict[bytes, bytes], fallback: Any) -> None:
    """Records into table ``name`` with one ``putmulti``; ``fallback(records)`` (GestaltDB's bulk call) when not LMDB."""
    table = table_of(store, name)
    if table is None:
        fallback(records)
    else:
        store.txn.cursor(db=table).putmulti(records.items())


def put_index_entries(store: Any, entries: list[tuple[str, list[bytes], bytes]]) -> None:
    """``store.put_index_entries_bulk(entries)``. In an LMDB transaction whose keys are laid out as ``keys`` says, each
    (index, parts) prefix is encoded once and the entries go in with one ``putmulti``; any other store, layout or an
    over-long key: GestaltDB's call."""
    from gestaltdb.kvstores import MAX_PORTABLE_INDEX_KEY_BYTES

    index_db = table_of(store, "index_db")
    if index_db is None or not keys.layout_checked():
        store.put_index_entries_bulk(entries)
        return
    pairs = []
    for name, parts, value in entries:
        key = keys.index_prefix(name, parts) + keys.index_part(value)
        if len(key) > MAX_PORTABLE_INDEX_KEY_BYTES:
            store.put_index_entries_bulk(entries)  # GestaltDB's own keys (and its error for an over-long one)
            return
        pairs.append((key, value))
    store.txn.cursor(db=index_db).putmulti(pairs)


def put_typed_adjacency(store: Any, records: list[tuple[bytes, bytes, str, bytes]]) -> None:
    """``store.put_typed_adjacency_bulk(records)``, in LMDB as one ``putmulti`` of both directions."""
    adjacency_db = table_of(store, "typed_adj_db")
    if adjacency_db is None or not keys.layout_checked():
        store.put_typed_adjacency_bulk(records)
        return
    pairs = []
    for source, target, edge_type, edge in records:
        kind = edge_type.encode("utf-8")
        pairs.append((keys.adjacency_key(b"out", source, kind, edge), target))
        pairs.append((keys.adjacency_key(b"in", target, kind, edge), source))
    store.txn.cursor(db=adjacency_db).putmulti(pairs)


def write_node_indexes(tx: Any, node: Any) -> None:
    """GestaltDB's own index entries of a node whose record is written here (labels, property indexes)."""
    tx._put_node_indexes(node)


def write_node(tx: Any, node: Any, old: Any | None) -> None:
    """``tx.put_node`` without its second read of the old node (the caller holds it already)."""
    if not hasattr(tx, "_put_node_indexes"):  # another GestaltDB: its own put_node
        tx.put_node(node)
        return
    if old is not None:
        tx._delete_node_indexes(old)
    tx.store.put_node(node.get_id_bytes, tx.entity_serializer.serialize(node, "Node"))
    tx._put_node_indexes(node)


def forget_adjacency_counts(tx: Any) -> None:
    """Drop the typed-adjacency counts ``tx`` cached so far (adjacency was written past them: counted again when asked)."""
    counts = getattr(tx, "_typed_adjacency_count_cache", None)
    if counts:
        counts.clear()
