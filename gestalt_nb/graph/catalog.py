"""What the graph holds, listed completely from GestaltDB's own indexes — never from the schema sample.

``relationship_types(db)`` and ``labels(db)`` skip through the type and label indexes: one cursor
seek per distinct name, not one per relationship or node, so they stay cheap on big graphs.
``node_types(db, node_id)`` lists the relationship types one node has, with how many in each
direction, read from its typed adjacency (one seek per type it has). The skipping reads the LMDB
backend's index keys; on other backends the lists come from counting typed adjacency over the
adapter's schema sample, and ``complete(db)`` says False.
"""

from __future__ import annotations

from typing import Any

from ..engine import keys
from ..engine.store import ensure_index_current, lmdb_store


def complete(db: Any) -> bool:
    """True when the lists below are read from the indexes (the LMDB backend)."""
    return lmdb_store(db) is not None


def _names_in_index(db: Any, index: str) -> list[str]:
    store = lmdb_store(db)
    ensure_index_current(db, index)
    with store.env.begin(write=False) as txn:
        return sorted(keys.names_under(txn, store.index_db, keys.index_prefix(index, [])))


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
        with store.env.begin(write=False) as txn:
            kinds = keys.kinds_at(txn, store.typed_adj_db, key)
    counts = {}
    for kind in sorted(kinds):
        out, into = db.count_typed_adjacency(key, kind, "out"), db.count_typed_adjacency(key, kind, "in")
        if out or into:
            counts[kind] = {"out": out, "in": into}
    return counts
