"""``GestaltStore``: LangGraph long-term memory kept as nodes in the GestaltDB graph a person explores.

Every item is a ``__MemoryItem`` node (namespace, key, value, created/updated times, optional TTL
and vectors) with an ``IN_NAMESPACE`` edge to its ``__MemoryNamespace`` node; namespaces hang off
their parents by ``SUBNAMESPACE_OF``, so the namespace tree is a graph. With ``about=`` an item
also gets ``ABOUT`` edges to the graph entities it names by id.

The store implements only ``batch``/``abatch``; ``put``/``get``/``search``/``delete``/
``list_namespaces`` come from LangGraph's ``BaseStore``. Each op's namespace is checked with
LangGraph's own ``validate_op_namespace`` (a list namespace reads as its tuple, as in
SqliteStore), filters use its comparison function with dotted keys read as paths (as SqliteStore
and PostgresStore do), and text extraction, embedding set-up and cosine scores are
``InMemoryStore``'s own. Guarantees: each batch is one transaction (all or nothing, an embedding
failure included); reads in a batch see the state before it; concurrent ``abatch`` calls share
transactions (``batching``) without giving up either; writes from threads and ``abatch`` are
serialised by one lock per database; an expired item is invisible from its expiry instant by the
store's clock unless ``ttl={"omit_expired": False}`` (then, as in PostgresStore, it is read until
a sweep deletes it). Limits: one writing process per database (a second one is refused while the
first is alive), and prefix search reads a range of item ids, which hold the first
``INDEXED_PATH_BYTES`` bytes of each path, so prefixes longer than that are verified item by item.

The parts: ``codec`` (layout, ids, reading nodes), ``reads``, ``writes``, ``bulk`` (a call's new
nodes and edges in one write per kind), ``vectors``, ``batching`` (concurrent async calls),
``lease`` (locks, writer lease, sweeper thread).
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from gestaltdb.graphdb import GraphDB

try:
    from langgraph.store.base import (
        BaseStore,
        IndexConfig,
        Op,
        PutOp,
        Result,
        SearchOp,
        TTLConfig,
    )
    from langgraph.store.memory import InMemoryStore
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("gestalt_nb.memory needs LangGraph: pip install 'gestalt-nb[agents]'") from exc

from ..engine.store import store_path
from ..errors import GestaltError, map_full, storage_problem
from ..feed.changes import publish_for
from ..graph import names
from ..graph.bookkeeping import ABOUT, IN_NAMESPACE, SUBNAMESPACE_OF
from . import lease
from .batching import Call, batcher_for, prepare
from .bulk import Pending
from .codec import (
    EXPIRES,
    INDEXED_PATH_BYTES,
    INTERNAL_PROPERTIES,
    ITEM,
    NAMESPACE,
    PATH,
    encode_namespace,
    has_legacy_items,
    item_id,
    namespace_id,
    utc_now,
)
from .reads import Reads
from .vectors import VectorCache, assign, check_index, checked_vectors, write_id
from .writes import Batch, Writes

#: What the store writes into a graph, so schema and drawing views can leave it out.
INTERNAL_LABELS = frozenset({ITEM, NAMESPACE})
INTERNAL_TYPES = frozenset({IN_NAMESPACE, SUBNAMESPACE_OF, ABOUT})
_TTL_KEYS = {"default_ttl", "refresh_on_read", "sweep_interval_minutes", "omit_expired"}

__all__ = [
    "ABOUT", "EXPIRES", "IN_NAMESPACE", "INDEXED_PATH_BYTES", "INTERNAL_LABELS", "INTERNAL_PROPERTIES",
    "INTERNAL_TYPES", "ITEM", "NAMESPACE", "PATH", "SUBNAMESPACE_OF", "GestaltStore", "encode_namespace",
    "item_id", "namespace_id",
]


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


class GestaltStore(Reads, Writes, BaseStore):
    """A LangGraph ``BaseStore`` whose items are nodes of a GestaltDB graph.

    ``GestaltStore(db, index=None, ttl=None, about=None, clock=None)`` — ``db`` is a gestalt-nb
    connection, a ``GestaltDBGraph`` or a ``GraphDB``. ``index`` is ``InMemoryStore``'s
    (``{"dims", "embed", "fields"}``, cosine only; SqliteStore's ``text_fields`` is read as
    ``fields``); vectors are stored on the item nodes, so
    reopening never re-embeds. Without ``index``, ``query=`` is ignored exactly as
    ``InMemoryStore`` ignores it. ``ttl`` is LangGraph's ``TTLConfig`` (``default_ttl`` and
    ``put(..., ttl=)`` in minutes, ``refresh_on_read``, ``omit_expired`` — default True here,
    ``sweep_interval_minutes`` starts a daemon sweeper thread). ``about`` names a value field
    holding entity ids (or is a callable value → ids): each id that is a node of the graph gets
    an ``ABOUT`` edge from the item. ``clock`` returns an aware ``datetime`` (tests pass a
    controllable one). ``close()`` stops the sweeper and releases the writer lease; it never
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
            check_index(index)
            if "text_fields" in index and index.get("fields") is None:  # SqliteStore's name for fields
                index = {**index, "fields": index["text_fields"]}
            helper = InMemoryStore(index=index)  # InMemoryStore's own set-up: embeddings + tokenized fields
            self.index_config, self.embeddings = helper.index_config, helper.embeddings
        if ttl is not None and not isinstance(ttl, dict):
            raise GestaltError("ttl= takes LangGraph's TTLConfig, e.g. {'default_ttl': 60, 'refresh_on_read': True}.")
        unknown = set(ttl or {}) - _TTL_KEYS
        if unknown:
            raise GestaltError(f"Unknown TTLConfig keys {sorted(unknown)}; use {', '.join(sorted(_TTL_KEYS))}.")
        self.ttl_config = ttl
        if about is not None and not (isinstance(about, str) or callable(about)):
            raise GestaltError("about= is a value field name (e.g. 'about') or a function value → entity ids.")
        self.about = about
        self.clock = clock or utc_now
        self._closed = False
        self._token = lease.writer_token()
        self._batcher = None
        self._vector_cache = VectorCache()
        self._vector_lock = threading.Lock()
        graph = self._db()
        self._lock = lease.lock_for(graph)
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
        ops, puts, texts = self._prepare(ops)
        queries = self._embed_queries(ops)
        vectors = self._embed_documents(puts)
        outcome = self._run_calls([Call(ops, puts, queries, vectors, texts)])[0]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops, puts, values = self._prepare(ops)
        queries: dict[str, list[float]] = {}
        texts = sorted({op.query for op in ops if isinstance(op, SearchOp) and op.query}) if self.embeddings else []
        if texts:
            found = list(await asyncio.gather(*(self.embeddings.aembed_query(text) for text in texts)))
            queries = checked_vectors(self._dims(), texts, found, "query")
        vectors: dict[tuple[tuple[str, ...], str], dict[str, list[float]]] = {}
        to_embed = self._texts_to_embed(puts)
        if to_embed:
            embedded = await self.embeddings.aembed_documents(list(to_embed))
            vectors = assign(self._dims(), to_embed, embedded)
        return await batcher_for(self).submit(Call(ops, puts, queries, vectors, values))

    # -- preparing -------------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise GestaltError("This GestaltStore is closed; build a new one (connection.memory_store()).")

    def _dims(self) -> int | None:
        return (self.index_config or {}).get("dims")

    def _prepare(self, ops: Iterable[Op]) -> tuple[list[Op], dict[tuple[tuple[str, ...], str], PutOp], dict]:
        """The ops checked, the puts (last put of a key wins) and each put value's JSON text."""
        self._check_open()
        return prepare(ops)

    def _embed_queries(self, ops: list[Op]) -> dict[str, list[float]]:
        if not self.embeddings:
            return {}
        texts = sorted({op.query for op in ops if isinstance(op, SearchOp) and op.query})
        found = [self.embeddings.embed_query(text) for text in texts]
        return checked_vectors(self._dims(), texts, found, "query") if texts else {}

    def _texts_to_embed(self, puts: dict) -> Any:
        """The texts of ``puts`` to embed, by ``InMemoryStore``'s own field extraction — its one use of a LangGraph
        private: the same fields, paths and defaults, so searches answer as ``InMemoryStore``'s do."""
        return InMemoryStore._extract_texts(self, puts)

    def _embed_documents(self, puts: dict) -> dict[tuple[tuple[str, ...], str], dict[str, list[float]]]:
        to_embed = self._texts_to_embed(puts)
        if not to_embed:
            return {}
        return assign(self._dims(), to_embed, self.embeddings.embed_documents(list(to_embed)))

    # -- executing -------------------------------------------------------------------------
    def _cutoff(self, now: datetime) -> float | None:
        """The instant reads count items expired from (None: read expired items too)."""
        return now.timestamp() if (self.ttl_config or {}).get("omit_expired", True) else None

    def _run_calls(self, calls: list[Call]) -> list[Any]:
        """Each call's results (or the exception it failed with), all in one transaction when any
        writes; a failed shared transaction is retried call by call, so each fails only itself."""
        if not any(call.puts for call in calls):
            return self._read_calls(calls)
        try:
            return self._write(lambda tx: self._write_calls(tx, calls))
        except Exception as exc:
            if len(calls) == 1:
                return [exc]
        return [self._run_calls([call])[0] for call in calls]

    def _read_calls(self, calls: list[Call]) -> list[Any]:
        db, now = self._db(), self.clock()
        cutoff = self._cutoff(now)
        outcomes: list[Any] = []
        refresh: dict[str, float] = {}
        refreshing: list[int] = []
        for position, call in enumerate(calls):
            mine: dict[str, float] = {}
            try:
                outcomes.append([self._read(db, op, cutoff, call.queries, mine) for op in call.ops])
            except Exception as exc:
                outcomes.append(exc)
                continue
            if mine:
                refresh.update(mine)
                refreshing.append(position)
        if refresh:  # reading refreshed TTLs: a write, so it needs the writer lease too
            hint = " (reads refresh TTLs: pass refresh_ttl=False to only read)"
            try:
                self._write(lambda tx: self._refresh(tx, refresh, Batch(now)), hint=hint)
            except Exception as exc:
                for position in refreshing:
                    outcomes[position] = exc
        return outcomes

    def _write_calls(self, tx: GraphDB, calls: list[Call]) -> list[Any]:
        batch = Batch(self.clock(), legacy=has_legacy_items(tx))  # the clock read under the lock: updated_at follows commits
        cutoff = self._cutoff(batch.now)
        pending = Pending(tx)
        outcomes = []
        for call in calls:
            if any(not isinstance(op, PutOp) for op in call.ops):
                pending.flush()  # its reads see the calls before it
            refresh: dict[str, float] = {}
            outcomes.append([None if type(op) is PutOp else self._read(tx, op, cutoff, call.queries, refresh, batch) for op in call.ops])
            self._refresh(tx, refresh, batch)
            for (namespace, key), op in call.puts.items():
                self._put(tx, namespace, key, op, call.vectors.get((namespace, key)), batch, pending, call.texts.get((namespace, key)))
        pending.flush()
        self._prune(tx, batch)
        self._pending_vectors = (batch.vectors, write_id(tx))
        return outcomes

    def _write(self, work: Callable[[GraphDB], Any], hint: str = "") -> Any:
        """Run ``work`` in one transaction under the database's lock; a failure changes nothing."""
        db = self._db()
        with self._lock:
            self._pending_vectors = None
            try:
                with db.transaction() as tx:
                    lease.claim(tx, self._token, hint)
                    result = work(tx)
                    names.advance(tx)  # its nodes are internal, never in the name index: the index stays current
            except GestaltError:
                raise
            except Exception as exc:
                raise self._explain(exc) from exc
            self._committed_vectors()
        self._publish(db)
        return result

    def _committed_vectors(self) -> None:
        """Bring the vector cache along with the commit just made (or drop it)."""
        pending, self._pending_vectors = getattr(self, "_pending_vectors", None), None
        if pending is None or not (pending[0] or self._vector_cache.stamp is not None):
            return
        with self._vector_lock:
            self._vector_cache.apply(pending[0], pending[1])

    def _publish(self, db: GraphDB) -> None:
        """One change-feed event per committed batch, on the connection this store writes through."""
        if hasattr(self._source, "feed"):
            self._source.feed.publish("memory", None, exact=False)
        else:
            publish_for(db, "memory")

    def _explain(self, exc: Exception) -> GestaltError:
        full = map_full(exc, "batch")
        if full is not None:
            return full
        path = store_path(self._db())  # a full disk, an unwritable or read-only database: as loads say it
        storage = storage_problem(exc, path, "write the memory batch", read_only=getattr(self._source, "read_only", False)) if path else None
        if storage is not None:
            return GestaltError(storage)
        if "index key exceeds" in str(exc):
            indexed = sorted(self._db().indexed_node_properties - INTERNAL_PROPERTIES)
            return GestaltError(
                f"A memory property is too long for one of this database's property indexes ({', '.join(indexed)}; "
                "GestaltDB's index keys are limited to 511 bytes); the batch was rolled back."
            )
        return GestaltError(f"The memory batch failed and was rolled back; nothing was written: {type(exc).__name__}: {exc}")

    # -- TTL ---------------------------------------------------------------------------------
    def sweep_ttl(self) -> int:
        """Delete every item expired by the store's clock, in one transaction; returns how many."""
        return self._sweep_once()

    def _sweep_once(self) -> int:  # what the sweeper thread calls
        self._check_open()

        def work(tx: GraphDB) -> int:
            batch = Batch(self.clock())
            count = self._sweep(tx, batch)
            self._pending_vectors = (batch.vectors, write_id(tx))
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
            target=lease.sweep_loop, args=(weakref.ref(self), self._stop, minutes * 60.0),
            name="gestalt-memory-sweeper", daemon=True,
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
        if self._sweeper is not threading.current_thread():
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
                lease.release(db, self._token)
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
