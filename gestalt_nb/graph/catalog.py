"""What the graph holds, listed completely from GestaltDB's own indexes — never from the schema sample.

``relationship_types(db)`` and ``labels(db)`` skip through the type and label indexes: one cursor
seek per distinct name, not one per relationship or node, so they stay cheap on big graphs.
``node_types(db, node_id)`` lists the relationship types one node has, with how many in each
direction, read from its typed adjacency (one seek per type it has). The skipping reads the LMDB
backend's index keys; on other backends the lists come from counting typed adjacency over the
adapter's schema sample, and ``complete(db)`` says False.
"""

from __future__ import annotations

import base64
from typing import Any

_SEP = b"\x1f"


def lmdb_store(db: Any) -> Any:
    """The LMDB store under a ``GraphDB``, or None on another backend."""
    from gestaltdb.kvstores import LMDBStore

    store = getattr(db, "store", None)
    return store if isinstance(store, LMDBStore) else None


def complete(db: Any) -> bool:
    """True when the lists below are read from the indexes (the LMDB backend)."""
    return lmdb_store(db) is not None


def skip_scan(txn: Any, index_db: Any, prefix: bytes) -> list[str]:
    """The distinct names under ``prefix`` in GestaltDB's LMDB index: one cursor seek per name, not one per entry."""
    found = []
    cursor = txn.cursor(db=index_db)
    position = prefix
    while cursor.set_range(position):
        key = cursor.key()
        if not key.startswith(prefix):
            break
        part = key[len(prefix) :].split(_SEP, 1)[0]
        found.append(base64.urlsafe_b64decode(part + b"=" * (-len(part) % 4)).decode("utf-8"))
        position = prefix + part + b"\x20"  # past every key of this name (the separator is \x1f)
    return found


def _names_in_index(db: Any, index: str) -> list[str]:
    from gestaltdb.kvstores import _index_prefix  # deferred: start-up time (the engine loads on first use)

    store = lmdb_store(db)
    db._ensure_indexes_current(index)
    with store.env.begin(write=False) as txn:
        return sorted(skip_scan(txn, store.index_db, _index_prefix(index, [])))


def _sampled(db: Any, graph: Any, what: str) -> list[str]:
    schema = graph.get_structured_schema if graph is not None else {}
    if what == "types":
        return sorted({rel["type"] for rel in schema.get("relationships", [])} - {"__untyped__"})
    return sorted(set(schema.get("node_props", {})) - {"__unlabeled__"})


def relationship_types(db: Any, graph: Any = None) -> list[str]:
    """Every relationship type in the graph, exactly (the LMDB type index); else the schema sample of ``graph``."""
    return _names_in_index(db, "edge_type") if complete(db) else _sampled(db, graph, "types")


def labels(db: Any, graph: Any = None) -> list[str]:
    """Every node label in the graph, exactly (the LMDB label index); else the schema sample of ``graph``."""
    return _names_in_index(db, "node_label") if complete(db) else _sampled(db, graph, "labels")


def node_types(db: Any, node_id: str, graph: Any = None) -> dict[str, dict[str, int]]:
    """The relationship types ``node_id`` has: ``{type: {"out": n, "in": m}}`` (types with none left out)."""
    key = node_id.encode("utf-8") if isinstance(node_id, str) else node_id
    store = lmdb_store(db)
    if store is None:
        kinds = relationship_types(db, graph)
    else:
        kinds = set()
        with store.env.begin(write=False, db=store.typed_adj_db) as txn:
            cursor = txn.cursor()
            for direction in (b"out", b"in"):
                prefix = direction + _SEP + key + _SEP
                position = prefix
                while cursor.set_range(position):
                    found = cursor.key()
                    if not found.startswith(prefix):
                        break
                    kind = found[len(prefix) :].split(_SEP, 1)[0]
                    kinds.add(kind.decode("utf-8"))
                    position = prefix + kind + b"\x20"
    counts = {}
    for kind in sorted(kinds):
        out, into = db.count_typed_adjacency(key, kind, "out"), db.count_typed_adjacency(key, kind, "in")
        if out or into:
            counts[kind] = {"out": out, "in": into}
    return counts
