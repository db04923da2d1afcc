"""``GestaltStore``: LangGraph long-term memory kept as nodes in the GestaltDB graph a person explores.

Every item is a ``__MemoryItem`` node (namespace, key, value, created/updated times, optional TTL
and vectors) with an ``IN_NAMESPACE`` edge to its ``__MemoryNamespace`` node; namespaces hang off
their parents by ``SUBNAMESPACE_OF``, so the namespace tree is a graph. With ``about=`` an item
also gets ``ABOUT`` edges to the graph entities it names by id.

The store implements only ``batch``/``abatch``; ``put``/``get``/``search``/``delete``/
``list_namespaces`` come from LangGraph's ``BaseStore``. Each op's namespace is checked with
LangGraph's own ``validate_op_namespace``, filters use its comparison function, and text
extraction, embedding set-up and cosine scores are ``InMemoryStore``'s own. Guarantees: each
batch is one transaction (all or nothing, an embedding failure included); reads in a batch see
the state before it; writes from threads and ``abatch`` are serialised by one lock per database;
an expired item is invisible from its expiry instant by the store's clock. Limits: one writing
process per database (a second one is refused while the first is alive), and prefix search reads
an index of the first ``INDEXED_PATH_BYTES`` bytes of each path, so prefixes longer than that
are verified item by item.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import socket
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

from gestaltdb.graphdb import Edge, GraphDB, Node

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        IndexConfig,
        Item,
        ListNamespacesOp,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        TTLConfig,
        validate_op_namespace,
    )
    from langgraph.store.memory import InMemoryStore, _compare_values, _cosine_similarity, _does_match
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("gestalt_nb.memory needs LangGraph: pip install 'gestalt-nb[agents]'") from exc

from ..errors import GestaltError
from ..feed.changes import publish_for
from ..graph.bookkeeping import ABOUT, IN_NAMESPACE, MEMORY_ITEM, MEMORY_NAMESPACE, SUBNAMESPACE_OF

ITEM = MEMORY_ITEM
NAMESPACE = MEMORY_NAMESPACE
#: What the store writes into a graph, so schema and drawing views can leave it out.
INTERNAL_LABELS = frozenset({ITEM, NAMESPACE})
INTERNAL_TYPES = frozenset({IN_NAMESPACE, SUBNAMESPACE_OF, ABOUT})
#: Indexed properties: the encoded namespace path (prefix search) and the expiry (TTL sweeps).
PATH = "__mem_path"
EXPIRES = "__mem_expires"
VECTORS = "__mem_vectors"
INTERNAL_PROPERTIES = frozenset({PATH, EXPIRES, VECTORS})
#: Bytes of a path kept in the index, stored as hex (ASCII, so JSON never escapes it, and byte
#: order is kept): the range-index key hex-encodes it again next to the label, property name and
#: node id, and GestaltDB refuses index keys over 511 bytes.
INDEXED_PATH_BYTES = 80
CAPTION_BYTES = 32
_LEASE = b"gestalt_nb.memory.writer"
_LOCKS: dict[str, threading.RLock] = {}
_LOCKS_GUARD = threading.Lock()


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


# -- encodings ----------------------------------------------------------------------------
def encode_namespace(namespace: tuple[str, ...]) -> str:
    """``("users", "42")`` → ``"users.42."``: labels never contain ``.``, so this is unambiguous
    and a namespace's encoding is a string prefix of its descendants' (``".."`` ends a namespace)."""
    return "".join(f"{label}." for label in namespace)


def _truncate(text: str, limit: int) -> str:
    return text.encode("utf-8")[:limit].decode("utf-8", "ignore")


def index_value(path: str) -> str:
    """What the path index holds: the path's first ``INDEXED_PATH_BYTES`` UTF-8 bytes, in hex."""
    return path.encode("utf-8")[:INDEXED_PATH_BYTES].hex()


def _successor(text: str) -> str | None:
    """The least string greater than every string that starts with ``text`` (None: no bound)."""
    chars = list(text)
    while chars:
        code = ord(chars.pop()) + 1
        if 0xD800 <= code <= 0xDFFF:
            code = 0xE000
        if code <= 0x10FFFF:
            return "".join(chars) + chr(code)
    return None


def _digest(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode("utf-8")).hexdigest()[:32]


def item_id(namespace: tuple[str, ...], key: str) -> str:
    return f"__mem:{_digest(list(namespace), key)}"


def namespace_id(namespace: tuple[str, ...]) -> str:
    return f"__memns:{_digest(list(namespace))}"


def _caption(text: str) -> str:
    short = _truncate(text, CAPTION_BYTES)
    return short if short == text else short + "…"


def _iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat()


def _graph_db(source: Any) -> Callable[[], GraphDB]:
    """A getter for the ``GraphDB`` behind a connection, a ``GestaltDBGraph`` or a ``GraphDB``."""
    from langchain_gestaltdb import GestaltDBGraph

    if hasattr(source, "feed") and hasattr(source, "db"):  # a gestalt-nb connection
        return lambda: source.db
    if isinstance(source, GestaltDBGraph):

        def adapter() -> GraphDB:
            try:
                return source.graph
            except RuntimeError as exc:
                raise GestaltError("The GestaltDBGraph behind this memory store is closed.") from exc

        return adapter
    if isinstance(source, GraphDB):
        return lambda: source
    raise GestaltError(
        f"GestaltStore needs a gestalt-nb connection, a GestaltDBGraph or a GraphDB, not a {type(source).__name__}."
    )


def _lock_for(db: GraphDB) -> threading.RLock:
    """One lock per database (by path), shared by every store on it in this process."""
    key = str(getattr(db, "_store_path", None) or f"id:{id(db)}")
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(key, threading.RLock())


def _started(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (Linux), to tell a reused pid apart."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rpartition(")")[2].split()[19]
    except (OSError, IndexError):
        return None


def _writer_token() -> str:
    pid = os.getpid()
    return f"{socket.gethostname()}:{pid}:{_started(pid) or '-'}"


def _holder_alive(holder: str) -> bool:
    """Whether the process named by a lease still runs. Another host's lease counts as stale:
    LMDB does not work over network file systems, so another host name means the directory was
    moved or the container restarted."""
    host, pid, started = (holder.split(":") + ["", ""])[:3]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    if started not in ("", "-") and os.path.exists("/proc/self/stat"):
        return _started(int(pid)) == started
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# -- reading nodes -------------------------------------------------------------------------
def _is_item(node: Node | None) -> bool:
    """A node this store wrote (a node a person labelled by hand without these properties is not)."""
    return node is not None and ITEM in node.labels and all(
        name in node.properties for name in ("namespace", "key", "created_at", "updated_at")
    )


def _expired(node: Node, now: float) -> bool:
    expires = node.properties.get(EXPIRES)
    return expires is not None and expires <= now


def _to_item(node: Node, cls: type = Item, **extra: Any) -> Item:
    props = node.properties
    return cls(
        namespace=tuple(props["namespace"]),
        key=props["key"],
        value=props.get("value") or {},
        created_at=datetime.fromisoformat(props["created_at"]),
        updated_at=datetime.fromisoformat(props["updated_at"]),
        **extra,
    )


def _items_under(db: GraphDB, prefix: tuple[str, ...], *, exact: bool = False) -> Iterator[Node]:
    """Item nodes whose namespace starts with (or, ``exact``, equals) ``prefix``, in index order.

    An index range on the encoded path, then each node verified, so truncated index values and
    hash ids can never let a wrong item through.
    """
    encoded = encode_namespace(prefix) + ("." if exact else "")
    if encoded:
        start = index_value(encoded)
        ids = db.iter_node_ids_by_label_property_range(ITEM, PATH, start, _successor(start), include_end=False)
    else:
        ids = db.iter_node_ids_by_label_property_range(ITEM, PATH, None, None)
    depth = len(prefix)
    for node_id in ids:
        node = db.get_node(node_id)
        if not _is_item(node):
            continue
        namespace = tuple(node.properties["namespace"])
        if (namespace == prefix) if exact else (namespace[:depth] == prefix):
            yield node


def _namespaces_under(db: GraphDB, prefix: tuple[str, ...]) -> Iterator[Node]:
    encoded = encode_namespace(prefix)
    if encoded:
        start = index_value(encoded)
        ids = db.iter_node_ids_by_label_property_range(NAMESPACE, PATH, start, _successor(start), include_end=False)
    else:
        ids = db.iter_node_ids_by_label_property_range(NAMESPACE, PATH, None, None)
    for node_id in ids:
        node = db.get_node(node_id)
        if node is not None and NAMESPACE in node.labels and "namespace" in node.properties:
            if tuple(node.properties["namespace"])[: len(prefix)] == prefix:
                yield node


def _literal_head(path: tuple[str, ...]) -> tuple[str, ...]:
    head = []
    for label in path:
        if label == "*":
            break
        head.append(label)
    return tuple(head)


class GestaltStore(BaseStore):
    """A LangGraph ``BaseStore`` whose items are nodes of a GestaltDB graph.

    ``GestaltStore(db, index=None, ttl=None, about=None, clock=None)`` — ``db`` is a gestalt-nb
    connection, a ``GestaltDBGraph`` or a ``GraphDB``. ``index`` is ``InMemoryStore``'s
    (``{"dims", "embed", "fields"}``); vectors are stored on the item nodes, so reopening never
    re-embeds. Without ``index``, ``query=`` is ignored exactly as ``InMemoryStore`` ignores it.
    ``ttl`` is LangGraph's ``TTLConfig`` (``default_ttl`` and ``put(..., ttl=)`` in minutes,
    ``refresh_on_read``, ``sweep_interval_minutes`` starts a daemon sweeper thread). ``about`` names
    a value field holding entity ids (or is a callable value → ids): each id that is a node of the
    graph gets an ``ABOUT`` edge from the item. ``clock`` returns an aware ``datetime`` (tests
    pass a controllable one). ``close()`` stops the sweeper and releases the writer lease; it never
    closes the database.
    """

    supports_ttl = True

    def __init__(
        self,
        db: Any,
        *,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
        about: str | Callable[[dict[str, Any]], Iterable[str]] | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self._db = _graph_db(db)
        self._source = db  # a gestalt-nb connection publishes each committed batch on its change feed
        self.index_config: dict[str, Any] | None = None
        self.embeddings = None
        if index:
            if not isinstance(index, dict) or "dims" not in index or "embed" not in index:
                raise GestaltError('index= needs {"dims": N, "embed": function or Embeddings, "fields": [...]} (fields optional).')
            helper = InMemoryStore(index=index)  # InMemoryStore's own set-up: embeddings + tokenized fields
            self.index_config, self.embeddings = helper.index_config, helper.embeddings
        if ttl is not None and not isinstance(ttl, dict):
            raise GestaltError("ttl= takes LangGraph's TTLConfig, e.g. {'default_ttl': 60, 'refresh_on_read': True}.")
        unknown = set(ttl or {}) - {"default_ttl", "refresh_on_read", "sweep_interval_minutes", "omit_expired"}
        if unknown:
            raise GestaltError(f"Unknown TTLConfig keys {sorted(unknown)}; use default_ttl, refresh_on_read, sweep_interval_minutes.")
        self.ttl_config = ttl
        if about is not None and not (isinstance(about, str) or callable(about)):
            raise GestaltError("about= is a value field name (e.g. 'about') or a function value → entity ids.")
        self.about = about
        self.clock = clock or _utc_now
        self._closed = False
        self._token = _writer_token()
        graph = self._db()
        self._lock = _lock_for(graph)
        with self._lock:
            for name in (PATH, EXPIRES):
                if name not in graph.indexed_node_properties:
                    graph.create_node_property_index(name)
        self._sweeper: threading.Thread | None = None
        self._stop = threading.Event()
        interval = (ttl or {}).get("sweep_interval_minutes")
        if interval:
            self.start_ttl_sweeper(interval)

    # -- BaseStore --------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops, puts = self._prepare(ops)
        queries = self._embed_queries(ops)
        vectors = self._embed_documents(puts)
        return self._execute(ops, puts, queries, vectors)

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops, puts = self._prepare(ops)
        queries: dict[str, list[float]] = {}
        texts = sorted({op.query for op in ops if isinstance(op, SearchOp) and op.query}) if self.embeddings else []
        if texts:
            found = await asyncio.gather(*(self.embeddings.aembed_query(text) for text in texts))
            queries = self._checked_vectors(texts, list(found), "query")
        vectors: dict[tuple[tuple[str, ...], str], dict[str, list[float]]] = {}
        to_embed = InMemoryStore._extract_texts(self, puts)
        if to_embed:
            embedded = await self.embeddings.aembed_documents(list(to_embed))
            vectors = self._assign(to_embed, embedded)
        return await asyncio.to_thread(self._execute, ops, puts, queries, vectors)

    # -- preparing -------------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise GestaltError("This GestaltStore is closed; build a new one (connection.memory_store()).")

    def _prepare(self, ops: Iterable[Op]) -> tuple[list[Op], dict[tuple[tuple[str, ...], str], PutOp]]:
        self._check_open()
        ops = list(ops)
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for op in ops:
            if not isinstance(op, (GetOp, SearchOp, ListNamespacesOp, PutOp)):
                raise GestaltError(f"Unknown store operation {type(op).__name__}; use GetOp, SearchOp, ListNamespacesOp or PutOp.")
            validate_op_namespace(op)
            if isinstance(op, PutOp):
                if op.value is not None:
                    try:
                        json.dumps(op.value)
                    except (TypeError, ValueError) as exc:
                        raise GestaltError(f"The value for key {op.key!r} is not JSON: {exc}. Store JSON-compatible values.") from exc
                puts[(op.namespace, op.key)] = op  # the last put of a key wins, as in InMemoryStore
        return ops, puts

    def _checked_vectors(self, texts: list[str], found: list[Any], what: str) -> dict[str, list[float]]:
        if len(found) != len(texts):
            raise GestaltError(f"The embedding function returned {len(found)} vectors for {len(texts)} {what} texts; nothing was written.")
        dims = self.index_config.get("dims")
        out = {}
        for text, vector in zip(texts, found):
            vector = [float(x) for x in vector]
            if dims and len(vector) != dims:
                raise GestaltError(f"The embedding function returned {len(vector)} numbers, but index dims is {dims}; nothing was written.")
            out[text] = vector
        return out

    def _embed_queries(self, ops: list[Op]) -> dict[str, list[float]]:
        if not self.embeddings:
            return {}
        texts = sorted({op.query for op in ops if isinstance(op, SearchOp) and op.query})
        return self._checked_vectors(texts, [self.embeddings.embed_query(text) for text in texts], "query") if texts else {}

    def _embed_documents(self, puts: dict) -> dict[tuple[tuple[str, ...], str], dict[str, list[float]]]:
        to_embed = InMemoryStore._extract_texts(self, puts)  # InMemoryStore's own field extraction
        if not to_embed:
            return {}
        return self._assign(to_embed, self.embeddings.embed_documents(list(to_embed)))

    def _assign(self, to_embed: dict[str, list[tuple]], embedded: list[Any]) -> dict:
        """Each unique text's vector to every (namespace, key, path) that holds the text."""
        by_text = self._checked_vectors(list(to_embed), list(embedded), "document")
        vectors: dict[tuple[tuple[str, ...], str], dict[str, list[float]]] = {}
        for text, places in to_embed.items():
            for namespace, key, path in places:
                vectors.setdefault((namespace, key), {})[path] = by_text[text]
        return vectors

    # -- executing -------------------------------------------------------------------------
    def _execute(self, ops: list[Op], puts: dict, queries: dict, vectors: dict) -> list[Result]:
        db = self._db()
        if not puts:
            now = self.clock()
            refresh: dict[str, float] = {}
            results = [self._read(db, op, now.timestamp(), queries, refresh) for op in ops]
            if refresh:  # reading refreshed TTLs: a write, so it needs the writer lease too
                self._write(lambda tx: self._refresh(tx, refresh, now), hint=" (reads refresh TTLs: pass refresh_ttl=False to only read)")
            return results

        def work(tx: GraphDB) -> list[Result]:
            now = self.clock()  # read under the lock, so updated_at follows the commit order
            refresh: dict[str, float] = {}
            results = [self._read(tx, op, now.timestamp(), queries, refresh) for op in ops]
            self._refresh(tx, refresh, now)
            touched: set[tuple[str, ...]] = set()
            for (namespace, key), op in puts.items():
                self._put(tx, namespace, key, op, vectors.get((namespace, key)), now, touched)
            self._prune(tx, touched)
            return results

        return self._write(work)

    def _write(self, work: Callable[[GraphDB], Any], hint: str = "") -> Any:
        """Run ``work`` in one transaction under the database's lock; a failure changes nothing."""
        db = self._db()
        with self._lock:
            try:
                with db.transaction() as tx:
                    self._claim(tx, hint)
                    result = work(tx)
            except GestaltError:
                raise
            except Exception as exc:
                raise self._explain(exc) from exc
        self._publish(db)
        return result

    def _publish(self, db: GraphDB) -> None:
        """One change-feed event per committed batch, on the connection this store writes through."""
        if hasattr(self._source, "feed"):
            self._source.feed.publish("memory", None, exact=False)
        else:
            publish_for(db, "memory")

    def _explain(self, exc: Exception) -> GestaltError:
        if type(exc).__name__ == "MapFullError":
            return GestaltError("The database is full (LMDB map size reached); the batch was rolled back. Reopen it with a larger --map-size.")
        if "index key exceeds" in str(exc):
            indexed = sorted(self._db().indexed_node_properties - INTERNAL_PROPERTIES)
            return GestaltError(
                f"A memory property is too long for one of this database's property indexes ({', '.join(indexed)}; "
                "GestaltDB's index keys are limited to 511 bytes); the batch was rolled back."
            )
        return GestaltError(f"The memory batch failed and was rolled back; nothing was written: {type(exc).__name__}: {exc}")

    def _claim(self, tx: GraphDB, hint: str = "") -> None:
        """Refuse to write while another live process holds this database's writer lease."""
        raw = tx.store.get_metadata(_LEASE)
        holder = raw.decode("utf-8") if raw else None
        if holder == self._token:
            return
        if holder and _holder_alive(holder):
            raise GestaltError(
                f"Another process ({holder}) is writing memories to this database; several processes writing one "
                f"GestaltStore is unsupported{hint}. Close the store there (store.close()) or use one process."
            )
        tx.store.put_metadata(_LEASE, self._token.encode("utf-8"))

    # -- reads -------------------------------------------------------------------------------
    def _read(self, db: GraphDB, op: Op, now: float, queries: dict, refresh: dict) -> Result:
        if isinstance(op, GetOp):
            node = db.get_node(item_id(op.namespace, op.key).encode("utf-8"))
            if not _is_item(node) or tuple(node.properties["namespace"]) != op.namespace or node.properties["key"] != op.key:
                return None
            if _expired(node, now):
                return None
            self._note_refresh(node, op.refresh_ttl, refresh)
            return _to_item(node)
        if isinstance(op, SearchOp):
            return self._search(db, op, now, queries, refresh)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(db, op, now)
        return None

    def _note_refresh(self, node: Node, wanted: bool, refresh: dict) -> None:
        minutes = node.properties.get("ttl_minutes")
        if wanted and minutes is not None:
            refresh[node.get_id] = minutes

    def _matches(self, node: Node, op: SearchOp) -> bool:
        if not op.filter:
            return True
        value = node.properties.get("value")
        value = value if isinstance(value, dict) else {}  # a value a person replaced through Cypher
        try:
            return all(_compare_values(value.get(key), wanted) for key, wanted in op.filter.items())
        except (TypeError, ValueError) as exc:
            raise GestaltError(f"filter={op.filter!r} cannot be compared with a stored value: {exc}") from exc

    def _search(self, db: GraphDB, op: SearchOp, now: float, queries: dict, refresh: dict) -> list[SearchItem]:
        ranked = bool(op.query and self.embeddings)
        stop = None if ranked or min(op.offset, op.limit) < 0 else op.offset + op.limit
        found: list[Node] = []
        for node in _items_under(db, op.namespace_prefix):
            if _expired(node, now) or not self._matches(node, op):
                continue
            found.append(node)
            if stop is not None and len(found) >= stop:
                break
        if not ranked:
            page = [(node, None) for node in found[op.offset : op.offset + op.limit]]
        else:
            page = self._rank(found, queries[op.query])[op.offset : op.offset + op.limit]
        for node, _ in page:
            self._note_refresh(node, op.refresh_ttl, refresh)
        return [_to_item(node, SearchItem, score=score) for node, score in page]

    @staticmethod
    def _rank(nodes: list[Node], query: list[float]) -> list[tuple[Node, float | None]]:
        """Best cosine score of each item's vectors (InMemoryStore's max pooling), best first;
        items without vectors follow, unscored."""
        owners, flat, unscored = [], [], []
        for node in nodes:
            vectors = list((node.properties.get(VECTORS) or {}).values())
            if not vectors:
                unscored.append((node, None))
            for vector in vectors:
                owners.append(node)
                flat.append(vector)
        best: dict[str, tuple[float, int, Node]] = {}
        for position, (node, score) in enumerate(zip(owners, _cosine_similarity(query, flat))):
            known = best.get(node.get_id)
            if known is None or score > known[0]:
                best[node.get_id] = (float(score), known[1] if known else position, node)
        scored = sorted(best.values(), key=lambda entry: (-entry[0], entry[1]))
        return [(node, score) for score, _, node in scored] + unscored

    def _live_item_in(self, db: GraphDB, namespace: tuple[str, ...], now: float | None) -> bool:
        return any(now is None or not _expired(node, now) for node in _items_under(db, namespace, exact=True))

    def _list_namespaces(self, db: GraphDB, op: ListNamespacesOp, now: float) -> list[tuple[str, ...]]:
        conditions = tuple(op.match_conditions or ())
        heads = [_literal_head(c.path) for c in conditions if c.match_type == "prefix"]
        head = max(heads, key=len) if heads else ()
        namespaces = []
        for node in _namespaces_under(db, head):
            namespace = tuple(node.properties["namespace"])
            if all(_does_match(condition, namespace) for condition in conditions) and self._live_item_in(db, namespace, now):
                namespaces.append(namespace)
        if op.max_depth is not None:
            namespaces = sorted({namespace[: op.max_depth] for namespace in namespaces})
        else:
            namespaces = sorted(namespaces)
        return namespaces[op.offset : op.offset + op.limit]

    # -- writes ------------------------------------------------------------------------------
    def _refresh(self, tx: GraphDB, refresh: dict[str, float], now: datetime) -> None:
        for node_id, minutes in refresh.items():
            node = tx.get_node(node_id.encode("utf-8"))
            if not _is_item(node) or _expired(node, now.timestamp()):
                continue
            node.properties.update(self._expiry(minutes, now))
            tx.put_node(node)

    @staticmethod
    def _expiry(minutes: float, now: datetime) -> dict[str, Any]:
        expires = now + timedelta(minutes=minutes)
        return {"ttl_minutes": minutes, "expires_at": _iso(expires), EXPIRES: expires.timestamp()}

    def _about(self, value: dict[str, Any]) -> list[str]:
        if self.about is None:
            return []
        ids = self.about(value) if callable(self.about) else value.get(self.about)
        if ids is None:
            return []
        if isinstance(ids, str):
            ids = [ids]
        return [str(entity) for entity in ids]

    def _put(self, tx: GraphDB, namespace: tuple, key: str, op: PutOp, vectors: dict | None, now: datetime, touched: set) -> None:
        node_id = item_id(namespace, key)
        old = tx.get_node(node_id.encode("utf-8"))
        old = old if _is_item(old) else None
        if op.value is None:
            if old is not None:
                self._remove(tx, old)
                touched.add(namespace)
            return
        value = dict(op.value)
        live = old is not None and not _expired(old, now.timestamp())
        props: dict[str, Any] = {
            "namespace": list(namespace),
            "key": key,
            "name": _caption(key),
            "value": value,
            "created_at": old.properties["created_at"] if live else _iso(now),
            "updated_at": _iso(now),
            PATH: index_value(encode_namespace(namespace) + "." + key),
        }
        if op.ttl is not None:
            props.update(self._expiry(op.ttl, now))
        if vectors and self.index_config and op.index is not False:
            props[VECTORS] = vectors
        about = self._about(value)
        if about:
            props["about"] = about
        parent = self._ensure_namespace(tx, namespace)
        tx.put_node(Node(node_id, labels=[ITEM], properties=props))
        link = f"__memin:{node_id[6:]}"
        if tx.get_edge(link.encode("utf-8")) is None:
            tx.put_edge(Edge(link, node_id, parent, properties={"type": IN_NAMESPACE}), update_adjacency=False)
        if about or (old is not None and old.properties.get("about")):
            self._link_about(tx, node_id, about)

    def _link_about(self, tx: GraphDB, node_id: str, about: list[str]) -> None:
        wanted = {}
        for entity in about:
            target = tx.get_node(entity.encode("utf-8"))
            if target is not None and not INTERNAL_LABELS & set(target.labels):
                wanted[f"__memabout:{_digest(node_id, entity)}"] = entity
        existing = {_text(record["edge_id"]) for record in tx.iter_typed_adjacency(node_id, ABOUT, "out")}
        for edge_id in existing - wanted.keys():
            tx.delete_edge(edge_id.encode("utf-8"))
        for edge_id, entity in wanted.items():
            if edge_id not in existing:
                tx.put_edge(Edge(edge_id, node_id, entity, properties={"type": ABOUT}), update_adjacency=False)

    def _ensure_namespace(self, tx: GraphDB, namespace: tuple[str, ...]) -> str:
        """The namespace's node id; it and any missing ancestors are created on the way."""
        node_id = namespace_id(namespace)
        if tx.get_node(node_id.encode("utf-8")) is not None:
            return node_id
        props = {
            "namespace": list(namespace),
            "name": _caption(namespace[-1]),
            "path": "/".join(namespace),
            "depth": len(namespace),
            PATH: index_value(encode_namespace(namespace)),
        }
        tx.put_node(Node(node_id, labels=[NAMESPACE], properties=props))
        if len(namespace) > 1:
            parent = self._ensure_namespace(tx, namespace[:-1])
            tx.put_edge(Edge(f"__memsub:{node_id[8:]}", node_id, parent, properties={"type": SUBNAMESPACE_OF}), update_adjacency=False)
        return node_id

    def _remove(self, tx: GraphDB, node: Node) -> None:
        """Delete a node and every edge on it, found by id and adjacency rather than GestaltDB's
        ``delete_node``, which scans every edge in the graph."""
        node_id = node.get_id
        edges = set()
        for edge_type in (IN_NAMESPACE, SUBNAMESPACE_OF, ABOUT):
            for record in tx.iter_typed_adjacency(node_id, edge_type, "any"):
                edges.add(_text(record["edge_id"]))
        adjacency = tx.get_adjacency_list(node_id.encode("utf-8"), return_raw=True)
        if isinstance(adjacency, dict):  # edges other writers (Cypher, bulk loads) put on the node
            edges.update(_text(edge) for edge in adjacency.get("source", []) + adjacency.get("target", []))
        for edge_id in edges:
            tx.delete_edge(edge_id.encode("utf-8"))
        key = node_id.encode("utf-8")
        tx.put_node(Node(node_id))  # drops the label and property index entries
        tx.store.delete_node(key)
        tx.store.delete_adjacency(key)

    def _prune(self, tx: GraphDB, touched: set[tuple[str, ...]]) -> None:
        """Remove namespace nodes left with no items and no sub-namespaces, up the tree."""
        for namespace in sorted(touched, key=len, reverse=True):
            while namespace:
                node = tx.get_node(namespace_id(namespace).encode("utf-8"))
                if node is None:
                    break
                children = next(iter(tx.iter_typed_adjacency(node.get_id, SUBNAMESPACE_OF, "in")), None)
                if children is not None or self._live_item_in(tx, namespace, None):
                    break
                self._remove(tx, node)
                namespace = namespace[:-1]

    # -- TTL ---------------------------------------------------------------------------------
    def sweep_ttl(self) -> int:
        """Delete every item expired by the store's clock, in one transaction; returns how many."""
        self._check_open()
        now = self.clock()

        def work(tx: GraphDB) -> int:
            touched: set[tuple[str, ...]] = set()
            count = 0
            for node_id in list(tx.iter_node_ids_by_label_property_range(ITEM, EXPIRES, None, now.timestamp())):
                node = tx.get_node(node_id)
                if _is_item(node) and _expired(node, now.timestamp()):
                    self._remove(tx, node)
                    touched.add(tuple(node.properties["namespace"]))
                    count += 1
            self._prune(tx, touched)
            return count

        return self._write(work)

    def start_ttl_sweeper(self, sweep_interval_minutes: float | None = None) -> threading.Thread:
        """Sweep every ``sweep_interval_minutes`` in a daemon thread (it never keeps the kernel
        alive, and stops on ``close()``, when the store is garbage-collected or the database closes)."""
        self._check_open()
        if self._sweeper is not None and self._sweeper.is_alive():
            return self._sweeper
        minutes = sweep_interval_minutes or (self.ttl_config or {}).get("sweep_interval_minutes")
        if not minutes or minutes <= 0:
            raise GestaltError("start_ttl_sweeper needs a positive sweep_interval_minutes.")
        self._stop.clear()
        self._sweeper = threading.Thread(
            target=_sweep_loop, args=(weakref.ref(self), self._stop, minutes * 60.0), name="gestalt-memory-sweeper", daemon=True
        )
        self._sweeper.start()
        return self._sweeper

    def stop_ttl_sweeper(self, timeout: float | None = 5.0) -> bool:
        """Stop the sweeper thread; True when it has stopped."""
        return self._halt_sweeper(timeout)

    def _halt_sweeper(self, timeout: float | None) -> bool:
        self._stop.set()
        if self._sweeper is None:
            return True
        self._sweeper.join(timeout)
        stopped = not self._sweeper.is_alive()
        if stopped:
            self._sweeper = None
        return stopped

    # -- lifecycle ---------------------------------------------------------------------------
    def close(self) -> None:
        """Stop the sweeper and release the writer lease; the database stays open."""
        if self._closed:
            return
        self._halt_sweeper(5.0)
        try:
            db = self._db()
            with self._lock:
                if db.store.get_metadata(_LEASE) == self._token.encode("utf-8"):
                    with db.transaction() as tx:
                        tx.store.delete_metadata(_LEASE)
        except Exception:  # the database may already be closed; nothing is left to release then
            pass
        self._closed = True

    def __enter__(self) -> GestaltStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        parts = ["closed"] if self._closed else []
        if self.index_config:
            parts.append(f"index dims={self.index_config.get('dims')}")
        if self.ttl_config:
            parts.append(f"ttl={dict(self.ttl_config)}")
        return f"<GestaltStore {' '.join(parts)}>".replace(" >", ">")


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _sweep_loop(ref: Callable[[], GestaltStore | None], stop: threading.Event, seconds: float) -> None:
    while not stop.wait(seconds):
        store = ref()
        if store is None or store._closed:
            return
        try:
            store.sweep_ttl()
        except Exception:  # a closed database (or connection) ends the sweeper
            return
        finally:
            del store
