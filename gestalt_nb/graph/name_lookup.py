"""Finding nodes by name without writing: reads never build or rebuild the name index in the database.

The case-insensitive name index (:mod:`gestalt_nb.graph.names`) is built in a database only when asked:
``connection.index_names()``, or ``connect(path, index_names=True)`` / ``%gestalt open PATH --index-names``. A plain
``connect`` and every read (``query_subgraph``, ``%gsubgraph "name"``) write nothing: when the index is absent,
left behind by another writer (stale), or cannot be written (``read_only=True``), names are matched through a map
of every node's name made in memory (one read of the nodes, up to ``names.CATCH_UP_NODES`` of them, kept until
the database changes); a larger graph is matched exactly and the result says how to build the index.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine.store import index_table, node_count, sequence
from . import names

Finder = Callable[[str, int], list[str]]


def _table_missing(db: Any) -> bool:
    return index_table(db) is None


def _memory_map(connection: Any, db: Any) -> dict[str, list[str]] | None:
    """name key -> node ids, read from every node once per database state (None: too many nodes)."""
    if node_count(db, names.CATCH_UP_NODES + 1) > names.CATCH_UP_NODES:
        return None
    state = sequence(db)
    kept = connection.__dict__.get("_name_map")
    if kept is not None and kept[0] == state and state is not None:
        return kept[1]
    found: dict[str, list[str]] = {}
    for node in names.all_nodes(db):
        if any(label.startswith("__") for label in node.labels):  # bookkeeping nodes, as in the index
            continue
        key = names.name_key(node.properties.get(names.NAME_PROPERTY))
        if key is not None:
            found.setdefault(key, []).append(db.key_to_string(node.get_id_bytes))
    connection.__dict__["_name_map"] = (state, found)
    return found


def finder(connection: Any) -> tuple[Finder | None, str | None]:
    """How names are found now (None: matched exactly, as ids or through a 'name' index) and the note a result carries."""
    db = connection.db
    if _table_missing(db):
        return None, ("Names were matched exactly (as ids, or through a 'name' index), not case-insensitively: this graph "
                      "is not stored in LMDB, the only backend that keeps a case-insensitive name index.")
    if names.has_index(db) and not names.stale(db):
        return (lambda name, limit: names.lookup(db, name, limit=limit)), None
    found = _memory_map(connection, db)
    if found is not None:
        return (lambda name, limit: found.get(names.name_key(name) or "", [])[:limit]), None
    if names.has_index(db):
        return (lambda name, limit: names.lookup(db, name, limit=limit)), names.stale_note(db)
    return None, ("Names were matched exactly (as ids, or through a 'name' index), not case-insensitively: this graph has "
                  f"more than {names.CATCH_UP_NODES:,} nodes and no case-insensitive name index. Build it once with connection.index_names().")


def on_open(connection: Any, *, build: bool) -> Any:
    """After an open: build (or migrate) the index in the database only when ``build``; else say in one line how names are found."""
    db = connection.db
    if _table_missing(db) or names.built(db):
        return connection
    if build:
        return names.ensure_index(connection)
    if not getattr(connection, "read_only", False):
        print(f"'{connection.alias}' has no current case-insensitive name index, and opening it wrote nothing: names are matched "
              "in memory. connection.index_names() (or --index-names when opening) builds it in the database.", flush=True)
    return connection
