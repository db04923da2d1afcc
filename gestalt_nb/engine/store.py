"""What GestaltDB keeps private about a ``GraphDB`` and its LMDB store, read (and, for the manifest, written) here only.

Every function takes a ``GraphDB`` (or a transaction-bound one, as ``db.transaction()`` yields) and works on any
backend: where a part is LMDB's only, it returns None (or the given default) on another.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from operator import attrgetter
from pathlib import Path
from typing import Any

__all__ = [
    "adapter_db", "cypher_tree", "drop_node_indexes", "ensure_index_current", "index_table", "lmdb_store", "node_count", "node_writes", "raw_id",
    "reading", "sampled_schema", "save_manifest_file", "sequence", "snapshot_db", "stale_indexes", "store_path", "write_txn",
]

#: GestaltDB's metadata keys: the manifest, and the list of node properties it indexes.
MANIFEST_KEY = b"schema:manifest"
NODE_INDEXES_KEY = b"schema:indexes:node_properties"

#: An engine ``Node``'s or ``Edge``'s id as the engine holds it (``get_id`` converts; ``Rows`` reads thousands).
raw_id = attrgetter("_id")


def lmdb_store(db: Any) -> Any:
    """The LMDB store under a ``GraphDB``, or None on another backend (or a transaction-bound one)."""
    from gestaltdb.kvstores import LMDBStore  # deferred: start-up time (the engine loads on first use)

    store = getattr(db, "store", None)
    return store if isinstance(store, LMDBStore) else None


def index_table(db: Any) -> Any:
    """The LMDB ``index`` table of ``db`` (a ``GraphDB`` or a transaction-bound one), or None (not LMDB)."""
    store = getattr(db.store, "parent", db.store)
    return getattr(store, "index_db", None) if hasattr(store, "env") else None


def write_txn(db: Any) -> Any:
    """The LMDB write transaction behind a transaction-bound ``GraphDB`` (None elsewhere)."""
    txn = getattr(db.store, "txn", None)
    return txn if txn is not None and hasattr(txn, "id") else None


@contextmanager
def reading(db: Any) -> Iterator[tuple[Any, Any]]:
    """(an LMDB transaction, the ``index`` table): the writer's own inside a transaction, else a short read."""
    table, txn = index_table(db), write_txn(db)
    if txn is not None:
        yield txn, table
        return
    with db.store.env.begin(write=False) as read:
        yield read, table


def sequence(db: Any) -> int | None:
    """The store's snapshot sequence (LMDB's last transaction id), or None when the store has none."""
    read = getattr(db.store, "current_snapshot_sequence", None)
    return int(read()) if read is not None else None


def node_count(db: Any, default: int) -> int:
    """How many records the node table holds (LMDB's own count, no scan); ``default`` on another backend."""
    env = getattr(db.store, "env", None)
    if env is None:
        return default
    with env.begin() as txn:
        return int(txn.stat(db.store.nodes_db)["entries"])


def ensure_index_current(db: Any, index: str) -> None:
    """Rebuild GestaltDB's deferred index ``index`` (``"node_label"``, ``"edge_type"``) now, if it is behind."""
    db._ensure_indexes_current(index)


def stale_indexes(db: Any) -> set[str]:
    """The engine indexes whose upkeep was deferred and not yet rebuilt."""
    return set(db._load_stale_indexes())


def store_path(db: Any) -> Path | None:
    """The folder a ``GraphDB`` was opened from (None: made in memory, or not known)."""
    path = getattr(db, "_store_path", None)
    return Path(path) if path is not None else None


def snapshot_db(view: Any) -> Any:
    """The ``GraphDB`` over one read view's pinned snapshot (``db.current_read_view()``), without its read-only facade."""
    return view._graph


def adapter_db(graph: Any) -> Any:
    """The ``GraphDB`` under a ``GestaltDBGraph``, closed or not (its ``graph`` property refuses a closed one)."""
    return graph._graph


def sampled_schema(graph: Any) -> Any:
    """The schema sample a ``GestaltDBGraph`` holds (its ``_schema``), or None before its first: a new object each time
    it samples again, so a cache of ours built from it (completion's words) is rebuilt only then."""
    return getattr(graph, "_schema", None)


def cypher_tree(text: str) -> Any:
    """The Lark parse tree of ``text`` from GestaltDB's own Cypher grammar (positions of every token kept)."""
    from gestaltdb.query_engine.cypher.parser import _PARSER

    return _PARSER.parse(text)


def drop_node_indexes(db: Any, tx: Any, names: tuple[str, ...]) -> None:
    """Inside ``tx`` (of ``db``): the engine's property indexes on ``names`` dropped, and the manifest kept in the database
    saying so (the caller has rewritten the nodes without those properties). ``db`` is left as it was on an error."""
    tx.indexed_node_properties.difference_update(names)
    tx._persist_property_index_metadata(NODE_INDEXES_KEY, tx.indexed_node_properties)
    indexed = set(db.indexed_node_properties)
    db.indexed_node_properties.difference_update(names)
    try:
        manifest = db._manifest_from_current(created_at=(db._manifest or {}).get("created_at"))
    except Exception:
        db.indexed_node_properties = indexed
        raise
    tx.store.put_metadata(MANIFEST_KEY, json.dumps(manifest, sort_keys=True).encode("utf-8"))
    db._manifest = manifest


class _NodeWrites:
    """A transaction's store that notes every node id put or deleted (the write's change set) and passes every call on."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.touched: dict[bytes, None] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def put_node(self, node_id: bytes, value: bytes) -> Any:
        self.touched[bytes(node_id)] = None
        return self._store.put_node(node_id, value)

    def put_nodes_bulk(self, keys_and_values: dict[bytes, bytes]) -> Any:
        self.touched.update(dict.fromkeys(bytes(key) for key in keys_and_values))
        return self._store.put_nodes_bulk(keys_and_values)

    def delete_node(self, node_id: bytes) -> Any:
        self.touched[bytes(node_id)] = None
        return self._store.delete_node(node_id)


@contextmanager
def node_writes(tx: Any) -> Iterator[dict[bytes, None]]:
    """The ids of the nodes put or deleted through transaction ``tx`` while inside (its store is wrapped meanwhile:
    the engine's transaction writes through ``tx.store``, whichever of its calls makes the change)."""
    recording = _NodeWrites(tx.store)
    tx.store = recording
    try:
        yield recording.touched
    finally:
        tx.store = recording._store


def save_manifest_file(db: Any) -> bool:
    """Write ``db``'s manifest to the file beside its data (as ``GraphDB.open`` reads it); False when it has none."""
    path, manifest = store_path(db), getattr(db, "_manifest", None)
    if path is None or manifest is None:
        return False
    from gestaltdb.graphdb import MANIFEST_FILENAME

    with (path / MANIFEST_FILENAME).open("w", encoding="utf-8") as handle:
        json.dump(manifest, handle, indent=2, sort_keys=True)
    return True
