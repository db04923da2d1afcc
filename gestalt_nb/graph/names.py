"""Case-insensitive name lookup: a lower-cased copy of ``name`` in ``__name_lc``, with a property index.

Every database gestalt-nb creates has the index, and opening a writable one without it builds it
once (:func:`index_names`, one transaction). gestalt-nb's writers (the demo graph, loading) call
:func:`keyed` on each batch of nodes inside their transaction, so the key is written with the node
and indexed by the same commit; ``load_graph_documents`` and ``%%gcypher --write`` re-key the nodes
they wrote (a Cypher write: the nodes its ``RETURN`` names) with :func:`rekey`, without a scan.
Writes that bypass gestalt-nb (another process, a raw ``GraphDB``), and Cypher writes that do not
return the node they named, do not maintain the key (``connection.index_names()`` backfills).
Names whose key would pass GestaltDB's 511-byte index-key limit get no key.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gestaltdb.graphdb import Node

NAME_PROPERTY = "name"
NAME_KEY = "__name_lc"
#: Longest key kept (GestaltDB index keys are at most 511 bytes, including their framing).
MAX_KEY_BYTES = 300
#: Nodes written per put_nodes call while backfilling (all inside the one transaction).
BATCH = 5000


def name_key(value: Any) -> str | None:
    """The lookup key of a name (``str.casefold``), or None when it cannot be indexed."""
    if not isinstance(value, str) or not value.strip():
        return None
    key = " ".join(value.split()).casefold()
    try:
        return key if len(key.encode("utf-8")) <= MAX_KEY_BYTES else None
    except UnicodeEncodeError:  # a lone surrogate: not storable text, so not a key
        return None


def has_index(db: Any) -> bool:
    return NAME_KEY in db.indexed_node_properties


def keyed(db: Any, nodes: list[Node]) -> list[Node]:
    """``nodes`` with ``__name_lc`` set (or cleared) from their ``name``, when ``db`` keeps the index.

    Call it on a batch just before ``tx.put_nodes`` inside the writer's transaction; without the
    index it returns the batch unchanged, so graphs that never asked for it are untouched.
    """
    if not has_index(db):
        return nodes
    return [_with_key(node) for node in nodes]


def _with_key(node: Node) -> Node:
    key = name_key(node.properties.get(NAME_PROPERTY))
    if node.properties.get(NAME_KEY) == key or (key is None and NAME_KEY not in node.properties):
        return node
    properties = {name: value for name, value in node.properties.items() if name != NAME_KEY}
    if key is not None:
        properties[NAME_KEY] = key
    return Node(node.get_id, labels=list(node.labels), properties=properties)


def rekey(db: Any, node_ids: Iterable[str]) -> int:
    """Set (or clear) the key of these nodes from their current ``name``; how many changed.

    Reads only the nodes named (no scan); call it inside the writer's transaction, or right after a
    write that could not key its nodes itself (a Cypher write, the adapter's graph documents).
    """
    if not has_index(db):
        return 0
    changed = []
    for node_id in dict.fromkeys(node_ids):
        node = db.get_node(str(node_id).encode("utf-8"))
        if node is not None and (keyed_node := _with_key(node)) is not node:
            changed.append(keyed_node)
    for offset in range(0, len(changed), BATCH):
        db.put_nodes(changed[offset : offset + BATCH])
    return len(changed)


def rekey_written(db: Any, node_ids: Iterable[str]) -> int:
    """After a Cypher write: re-key the nodes it returned (CREATE, MERGE, SET of ``name``) in one transaction."""
    node_ids = list(node_ids)
    if not node_ids or not has_index(db):
        return 0
    with db.transaction() as tx:
        return rekey(tx, node_ids)


def _all_nodes(db: Any) -> Iterable[Node]:
    keys: list[bytes] = []
    for key in db.get_node_keys_generator():
        keys.append(key)
        if len(keys) >= BATCH:
            yield from (node for node in db.get_nodes(keys) if node is not None)
            keys = []
    yield from (node for node in db.get_nodes(keys) if node is not None)


def index_names(connection: Any) -> int:
    """Create the ``__name_lc`` index and backfill every node's key in one transaction; returns how many nodes changed.

    Reads every node once (O(N)); run it once per graph. Afterwards gestalt-nb's writers keep it.
    """
    db = connection.db
    changed = [keyed_node for node in _all_nodes(db) if (keyed_node := _with_key(node)) is not node]
    with db.transaction() as tx:
        if not has_index(tx):
            tx.create_node_property_index(NAME_KEY)
        for offset in range(0, len(changed), BATCH):
            tx.put_nodes(changed[offset : offset + BATCH])
    db.indexed_node_properties.add(NAME_KEY)
    connection.graph.refresh_schema()
    return len(changed)


def ensure_index(connection: Any) -> Any:
    """Build the index of a writable database opened without it (once, one transaction, saying so); the connection."""
    import os

    if has_index(connection.db) or connection.path is None or not os.access(connection.path, os.W_OK):
        return connection
    print(f"Building the case-insensitive name index of '{connection.alias}' (once; one transaction)…", flush=True)
    changed = connection.index_names()
    print(f"Name index built: {changed:,} nodes keyed.", flush=True)
    return connection


def lookup(db: Any, name: str, *, limit: int) -> list[str]:
    """Ids of nodes whose name equals ``name`` case-insensitively (at most ``limit``), through the index."""
    key = name_key(name)
    if key is None:
        return []
    found = []
    for node_id in db.iter_node_ids_by_property(NAME_KEY, key):
        found.append(db.key_to_string(node_id))
        if len(found) >= limit:
            break
    return found
