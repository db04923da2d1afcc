"""Case-insensitive name lookup, kept BESIDE the graph: the nodes stay exactly as they were written.

The lookup is a side index in GestaltDB's own LMDB environment — records in its ``index`` table
under a prefix no engine index uses (the engine's are ``I\\0…`` and ``R\\0…``), written with the
writer's own LMDB transaction, so they commit (or roll back) with the nodes:

- ``gestalt_nb:name\\0`` + a 12-byte BLAKE2b digest of a key of ``name`` + the node id → ``b""``, for
  two keys: the casefolded, space-collapsed name (:func:`name_key`, every lookup) and GraphRAG's
  looser :func:`norm_key` (NFKC, punctuation dropped; entity resolution) — one record when equal;
- ``gestalt_nb:name_of\\0`` + the node id → its digests (so a rename or delete finds its old records),

and one metadata record, ``gestalt_nb:names``, saying the index exists and which LMDB write
transaction last kept it (``{"version": 1, "txn": N}``). Lookups read the candidates and keep only
nodes whose current ``name`` still matches, so a digest collision or a record left behind can never
return a wrong node. Other backends (RocksDB, LevelDB) have no side index: names are then matched
exactly, and results say so.

Keeping it right: every gestalt-nb writer runs its write in :func:`tracked` (a transaction whose store
records every node put or deleted — the write's own change set, whatever the Cypher said or
returned) or calls :func:`sync` with the ids it wrote, then :func:`advance`, which moves the
metadata's transaction number to its own only when the index was current before it. Any other
write (another process, a raw ``GraphDB``, gestalt-nb's claims) leaves the number behind LMDB's
``last_txnid``: :func:`stale` says so, and :func:`catch_up` (run before a lookup through a
connection) rebuilds a writable graph of up to ``CATCH_UP_NODES`` nodes at once; a larger one is
told to run ``connection.index_names()``.

Databases written before (nodes carrying ``__name_lc`` / ``__name_norm``, engine property indexes on
them) are migrated once on a writable open by :func:`ensure_index`: the properties removed from every
node, the engine indexes dropped, the side index built — one transaction, one printed line. A read-only open
still finds names through the old property index.
"""

from __future__ import annotations

import hashlib
import json
import os
import unicodedata
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from gestaltdb.graphdb import GraphDB, Node

from ..engine.store import drop_node_indexes, index_table, node_count, node_writes, reading, save_manifest_file, sequence, write_txn
from ..errors import GestaltError

NAME_PROPERTY = "name"
#: The property earlier versions wrote into every named node (read-only fallback, migrated away).
NAME_KEY = "__name_lc"
#: The property earlier GraphRAG writes kept their resolution key in (migrated away likewise).
NORM_KEY = "__name_norm"
LEGACY = (NAME_KEY, NORM_KEY)
STATE = b"gestalt_nb:names"
#: Longest normalised name other modules key on (graphrag's resolution); the side index hashes, so has no limit.
MAX_KEY_BYTES = 300
FAMILY_PREFIX = b"gestalt_nb:name\0"
OWNER_PREFIX = b"gestalt_nb:name_of\0"
DIGEST_BYTES = 12
#: Node ids longer than this get no record (LMDB keys are at most 511 bytes).
MAX_ID_BYTES = 480
#: Nodes read per batch while rebuilding.
BATCH = 5000
#: A stale index of a writable graph up to this many nodes is rebuilt before a lookup without asking.
CATCH_UP_NODES = 100_000


def name_key(value: Any) -> str | None:
    """The lookup key of a name (spaces collapsed, ``str.casefold``), or None when it has none."""
    if not isinstance(value, str) or not value.strip():
        return None
    key = " ".join(value.split()).casefold()
    try:
        key.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: not storable text, so not a key
        return None
    return key


_DROPPED = {"'", "’", "‘", ".", "`"}


_ASCII_PUNCTUATION = str.maketrans({char: ("" if char in _DROPPED else " ") for char in map(chr, range(128)) if unicodedata.category(char).startswith(("P", "S"))})


def norm_key(value: Any) -> str | None:
    """GraphRAG's resolution key: NFKC, casefolded, dots and apostrophes dropped, other punctuation a space."""
    if not isinstance(value, str):
        return None
    if value.isascii():  # NFKC and casefold are lower() here; punctuation by one table
        return name_key(value.lower().translate(_ASCII_PUNCTUATION))
    chars = []
    for char in unicodedata.normalize("NFKC", value).casefold():
        if char in _DROPPED:
            continue
        chars.append(" " if unicodedata.category(char).startswith(("P", "S")) else char)
    return name_key("".join(chars))


def digest(key: str) -> bytes:
    return hashlib.blake2b(key.encode("utf-8"), digest_size=DIGEST_BYTES).digest()


def _node_digests(node: Node | None) -> list[bytes]:
    """The index digests of a node: none for a bookkeeping node (a ``__`` label: memory items, sources)."""
    if node is None or len(node.get_id_bytes) > MAX_ID_BYTES or any(label.startswith("__") for label in node.labels):
        return []
    name = node.properties.get(NAME_PROPERTY)
    return sorted({digest(key) for key in (name_key(name), norm_key(name)) if key is not None})


# -- state -----------------------------------------------------------------------------
def _state(db: Any) -> dict | None:
    try:
        payload = db.store.get_metadata(STATE)
    except NotImplementedError:
        return None
    return json.loads(payload.decode("utf-8")) if payload else None


def has_index(db: Any) -> bool:
    """Whether ``db`` has the side index (or, read-only and not yet migrated, the old property index)."""
    return _state(db) is not None or legacy(db)


def built(db: Any) -> bool:
    """Whether ``db`` has the side index and no old property index left (nothing to build or migrate)."""
    return _state(db) is not None and not legacy(db)


def supported(db: Any) -> bool:
    """Whether ``db`` can keep the side index (LMDB)."""
    return index_table(db) is not None


def legacy(db: Any) -> bool:
    """Whether ``db`` still has the old ``__name_lc`` / ``__name_norm`` property indexes (a database not yet migrated)."""
    return any(name in db.indexed_node_properties for name in LEGACY)


def stale(db: Any) -> bool:
    """Whether something wrote to ``db`` since the side index was last kept (another process, a raw write)."""
    state = _state(db)
    if state is None:
        return False
    now = sequence(db)
    return now is not None and state.get("txn") is not None and now > state["txn"]


def _set_state(tx: GraphDB, current: bool) -> None:
    txn = write_txn(tx)
    tx.store.put_metadata(STATE, json.dumps({"version": 1, "txn": txn.id() if txn is not None and current else None}).encode())


def advance(tx: GraphDB) -> None:
    """Inside a writer's transaction that kept the index: record it, if the index was current before it."""
    state = _state(tx)
    txn = write_txn(tx)
    if state is None or txn is None:
        return
    if state.get("txn") is not None and state["txn"] >= txn.id() - 1:
        _set_state(tx, True)


# -- keeping entries -------------------------------------------------------------------
def _split(digests: bytes) -> list[bytes]:
    return [digests[i : i + DIGEST_BYTES] for i in range(0, len(digests), DIGEST_BYTES)]


def sync(tx: GraphDB, node_ids: Iterable[bytes], nodes: dict[bytes, Node | None] | None = None, *, new: bool = False) -> int:
    """Make the records of these nodes match their current ``name``, inside ``tx``; how many changed.

    ``nodes`` gives the current node of an id when the caller has it (None: deleted), else it is
    read; ``new=True`` says none of them had records before (skips reading the old ones).
    """
    txn, table = write_txn(tx), index_table(tx)
    if txn is None or table is None or _state(tx) is None:
        return 0
    puts: list[tuple[bytes, bytes]] = []
    changed = 0
    for node_id in node_ids:
        node = nodes[node_id] if nodes is not None and node_id in nodes else tx.get_node(node_id)
        wanted = b"".join(_node_digests(node))
        old = b"" if new else (txn.get(OWNER_PREFIX + node_id, db=table) or b"")
        if old == wanted:
            continue
        for stored in _split(old):
            txn.delete(FAMILY_PREFIX + stored + node_id, db=table)
        if wanted:
            puts += [(FAMILY_PREFIX + value + node_id, b"") for value in _split(wanted)]
            puts.append((OWNER_PREFIX + node_id, wanted))
        else:
            txn.delete(OWNER_PREFIX + node_id, db=table)
        changed += 1
    if puts:
        txn.cursor(db=table).putmulti(puts)
    return changed


def put_nodes(tx: GraphDB, nodes: list[Node], *, new: bool = False) -> None:
    """``tx.put_nodes(nodes)`` with their names kept in the side index (the same transaction)."""
    tx.put_nodes(nodes)
    sync(tx, [node.get_id_bytes for node in nodes], {node.get_id_bytes: node for node in nodes}, new=new)


@contextmanager
def tracked(db: GraphDB) -> Iterator[GraphDB]:
    """``db.transaction()`` whose node writes keep the side index, whatever wrote them (one commit)."""
    with db.transaction() as tx:
        with node_writes(tx) as touched:
            yield tx
        if touched and _state(tx) is not None:
            sync(tx, list(touched))
        advance(tx)


# -- building, migrating ---------------------------------------------------------------
def all_nodes(db: Any) -> Iterator[Node]:
    keys: list[bytes] = []
    for key in db.get_node_keys_generator():
        keys.append(key)
        if len(keys) >= BATCH:
            yield from (node for node in db.get_nodes(keys) if node is not None)
            keys = []
    yield from (node for node in db.get_nodes(keys) if node is not None)


def _clear(tx: GraphDB) -> None:
    """Remove every record of the side index (a cursor over each prefix)."""
    txn, table = write_txn(tx), index_table(tx)
    for prefix in (FAMILY_PREFIX, OWNER_PREFIX):
        cursor = txn.cursor(db=table)
        if not cursor.set_range(prefix):
            continue
        while cursor.key().startswith(prefix):
            if not cursor.delete():
                break


def _drop_legacy(db: GraphDB, tx: GraphDB, nodes: list[Node]) -> list[Node]:
    """Inside ``tx``: ``__name_lc`` / ``__name_norm`` removed from these nodes and their engine indexes dropped."""
    bare = [
        Node(node.get_id, labels=list(node.labels), properties={k: v for k, v in node.properties.items() if k not in LEGACY})
        for node in nodes
        if any(name in node.properties for name in LEGACY)
    ]
    for offset in range(0, len(bare), BATCH):
        tx.put_nodes(bare[offset : offset + BATCH])  # the old index entries go with the old values
    drop_node_indexes(db, tx, LEGACY)
    return bare


def rebuild(db: GraphDB) -> int:
    """Build the side index afresh from every node in one transaction (and migrate ``__name_lc`` away); named nodes indexed."""
    if index_table(db) is None:
        return 0  # not LMDB: no side index (names are matched exactly)
    was_legacy, indexed = legacy(db), set(db.indexed_node_properties) & set(LEGACY)
    try:
        with db.transaction() as tx:
            nodes = list(all_nodes(tx))
            if was_legacy:
                _drop_legacy(db, tx, nodes)
            _clear(tx)
            _set_state(tx, True)
            count = sum(1 for node in nodes if _node_digests(node))
            sync(tx, [node.get_id_bytes for node in nodes], {node.get_id_bytes: node for node in nodes}, new=True)
    except Exception:
        db.indexed_node_properties.update(indexed)
        raise
    if was_legacy:
        save_manifest_file(db)
    return count


def start(db: GraphDB) -> None:
    """A new database's side index: empty and current (its own small transaction; LMDB only)."""
    if _state(db) is not None or index_table(db) is None:
        return
    with db.transaction() as tx:
        _set_state(tx, True)


def index_names(connection: Any) -> int:
    """Build (or rebuild) the side index from every node in one transaction; how many named nodes it holds.

    Reads every node once (O(N)); afterwards gestalt-nb's writers keep it.
    """
    if getattr(connection, "read_only", False):
        raise GestaltError(f"'{connection.alias}' was opened read-only: names are matched in memory. Open it without read-only to build the index.")
    count = rebuild(connection.db)
    connection.graph.refresh_schema()
    return count


def _writable(connection: Any) -> bool:
    return connection.path is not None and os.access(connection.path, os.W_OK)


def ensure_index(connection: Any) -> Any:
    """On open: migrate a database that keeps ``__name_lc`` in its nodes, or build a missing index (once, saying so)."""
    db = connection.db
    if not _writable(connection) or index_table(db) is None or built(db):
        return catch_up(connection)
    if legacy(db):
        print(f"Moving the case-insensitive name index of '{connection.alias}' out of the nodes' properties (once; one transaction)…", flush=True)
        done = f"'{NAME_KEY}' and '{NORM_KEY}' removed from every node"
    else:
        print(f"Building the case-insensitive name index of '{connection.alias}' (once; one transaction)…", flush=True)
        done = "built"
    try:
        count = connection.index_names()
    except Exception as exc:  # rolled back: the database is as it was (an old one still finds names its old way)
        print(f"The name index was not changed ({type(exc).__name__}: {exc}); retry with connection.index_names().", flush=True)
        return connection
    print(f"Name index beside the graph: {count:,} names; {done}.", flush=True)
    return connection


def catch_up(connection: Any) -> Any:
    """A writable graph's stale index rebuilt (up to ``CATCH_UP_NODES`` nodes); the connection."""
    db = connection.db
    if stale(db) and _writable(connection) and node_count(db, CATCH_UP_NODES + 1) <= CATCH_UP_NODES:
        rebuild(db)
    return connection


def stale_note(db: Any) -> str | None:
    """What a lookup says when the index may miss names written elsewhere, else None."""
    if not stale(db):
        return None
    return (
        "The graph was written outside gestalt-nb since its name index was last kept, so names written there may "
        "not be found case-insensitively. Rebuild the index with connection.index_names()."
    )


def lookup(db: Any, name: str, *, limit: int, loose: bool = False) -> list[str]:
    """Ids of nodes whose ``name`` equals ``name`` case-insensitively (at most ``limit``), checked against the nodes.

    ``loose=True`` compares :func:`norm_key` (GraphRAG's resolution) instead of :func:`name_key`.
    """
    keyer = norm_key if loose else name_key
    key = keyer(name)
    if key is None:
        return []
    if _state(db) is None:
        old = NORM_KEY if loose else NAME_KEY
        if old not in db.indexed_node_properties:
            return []
        candidates: Iterable[bytes] = db.iter_node_ids_by_property(old, key)
    else:
        candidates = _candidates(db, FAMILY_PREFIX + digest(key), limit)
    found = []
    for node_id in candidates:
        node = db.get_node(node_id)
        if node is not None and keyer(node.properties.get(NAME_PROPERTY)) == key:
            found.append(db.key_to_string(node_id))
            if len(found) >= limit:
                break
    return found


def _candidates(db: Any, prefix: bytes, limit: int) -> list[bytes]:
    """Node ids under ``prefix`` (read up to ``8 × limit`` records: enough, since each is verified)."""
    found: list[bytes] = []
    with reading(db) as (txn, table):
        cursor = txn.cursor(db=table)
        if not cursor.set_range(prefix):
            return found
        for key in cursor.iternext(keys=True, values=False):
            if not key.startswith(prefix) or len(found) >= 8 * limit + 8:
                break
            found.append(bytes(key[len(prefix) :]))
    return found
