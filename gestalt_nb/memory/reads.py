"""GestaltStore's reads: get, search (prefix, filter, paging, vector ranking) and list_namespaces."""

from __future__ import annotations

from typing import Any

from gestaltdb.graphdb import GraphDB, Node
from langgraph.store.base import GetOp, ListNamespacesOp, Op, SearchItem, SearchOp
from langgraph.store.memory import _does_match

from .codec import expired, find_item, items_under, literal_head, matches, namespaces_under, to_item
from .vectors import VectorCache, scored_nodes, snapshot_id, write_id


class Reads:
    """The read half of ``GestaltStore`` (a mixin: it needs ``embeddings``, ``_vector_cache``)."""

    embeddings: Any
    _vector_cache: VectorCache
    _vector_lock: Any

    def _read(self, db: GraphDB, op: Op, now: float | None, queries: dict, refresh: dict, batch: Any = None) -> Any:
        """One op's answer; ``now`` None when expired items are read too (``omit_expired=False``);
        ``batch`` is the write transaction's ``Batch`` when ``db`` is one."""
        if isinstance(op, GetOp):
            node = find_item(db, op.namespace, op.key, legacy=batch.legacy if batch is not None else True)
            if node is None or expired(node, now):
                return None
            self._note_refresh(node, op.refresh_ttl, refresh)
            return to_item(node)
        if isinstance(op, SearchOp):
            return self._search(db, op, now, queries, refresh, batch)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(db, op, now)
        return None

    @staticmethod
    def _note_refresh(node: Node, wanted: bool, refresh: dict) -> None:
        minutes = node.properties.get("ttl_minutes")
        if wanted and minutes is not None:
            refresh[node.get_id] = minutes

    def _search(self, db: GraphDB, op: SearchOp, now: float | None, queries: dict, refresh: dict, batch: Any = None) -> list[SearchItem]:
        if op.query and self.embeddings:
            page = self._ranked_page(db, op, now, queries[op.query], batch)
        else:
            stop = None if min(op.offset, op.limit) < 0 else op.offset + op.limit
            found: list[Node] = []
            for node in items_under(db, op.namespace_prefix):
                if expired(node, now) or not matches(node, op.filter):
                    continue
                found.append(node)
                if stop is not None and len(found) >= stop:
                    break
            page = [(node, None) for node in found[op.offset : op.offset + op.limit]]
        for node, _ in page:
            self._note_refresh(node, op.refresh_ttl, refresh)
        return [to_item(node, SearchItem, score=score) for node, score in page]

    def _ranked_page(self, db: GraphDB, op: SearchOp, now: float | None, query: list[float], batch: Any) -> list[tuple[Node, float | None]]:
        """Best cosine score of each item's vectors (InMemoryStore's max pooling), best first; items
        without vectors follow, unscored. Vectors come from the cache as one array; only the
        page's nodes (and, with a filter, the candidates before it) are read."""
        stop = None if min(op.offset, op.limit) < 0 else op.offset + op.limit
        cache = self._vectors_for(db, batch)
        with self._vector_lock:
            hits = list(cache.ranked(op.namespace_prefix, query, now))
        page: list[tuple[Node, float | None]] = []
        seen: set[str] = set()
        for node, score in scored_nodes(db, hits, op.namespace_prefix):
            seen.add(node.get_id)
            if matches(node, op.filter):
                page.append((node, score))
                if stop is not None and len(page) >= stop:
                    return page[op.offset : op.offset + op.limit]
        for node in items_under(db, op.namespace_prefix):
            if node.get_id in seen or expired(node, now) or not matches(node, op.filter):
                continue
            if cache.has(node.get_id):
                continue  # scored above (and filtered out there), or expired by the cache's clock
            page.append((node, None))
            if stop is not None and len(page) >= stop:
                break
        return page[op.offset : op.offset + op.limit]

    def _vectors_for(self, db: GraphDB, batch: Any) -> VectorCache:
        """A vector cache that reflects ``db``'s state: the store's own, brought up to date (in a write
        transaction: to the state it began from), or — when earlier calls of this transaction changed
        vectors — one built for this read alone."""
        if batch is not None and batch.vectors:
            cache = VectorCache()
            cache.rebuild(db, None)
            return cache
        current = write_id(db)
        current = current - 1 if current is not None else snapshot_id(db)
        with self._vector_lock:
            if not self._vector_cache.fresh(current):
                self._vector_cache.rebuild(db, current)
        return self._vector_cache

    def _live_item_in(self, db: GraphDB, namespace: tuple[str, ...], now: float | None) -> bool:
        return any(not expired(node, now) for node in items_under(db, namespace, exact=True))

    def _list_namespaces(self, db: GraphDB, op: ListNamespacesOp, now: float | None) -> list[tuple[str, ...]]:
        conditions = tuple(op.match_conditions or ())
        heads = [literal_head(c.path) for c in conditions if c.match_type == "prefix"]
        head = max(heads, key=len) if heads else ()
        namespaces = []
        for node in namespaces_under(db, head):
            namespace = tuple(node.properties["namespace"])
            if all(_does_match(condition, namespace) for condition in conditions) and self._live_item_in(db, namespace, now):
                namespaces.append(namespace)
        if op.max_depth is not None:
            namespaces = sorted({namespace[: op.max_depth] for namespace in namespaces})
        else:
            namespaces = sorted(namespaces)
        return namespaces[op.offset : op.offset + op.limit]
