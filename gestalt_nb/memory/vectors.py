"""Embeddings and vector search for GestaltStore.

Embedding set-up, text extraction and cosine scores follow ``InMemoryStore`` (each distinct
text embedded once; an item scores by its best vector). Vectors live on the item nodes
(``__mem_vectors``), so reopening never re-embeds. To rank, they are read as one array:
``VectorCache`` holds every item's vectors, sorted by path, stamped with the LMDB transaction id
it reflects. A search uses it only when the stamp is the database's current one (any other
writer — Cypher, another process — makes it stale and it is rebuilt from the nodes); the store's
own commits update it in place. Ranked hits are then read and verified node by node, page only.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from typing import Any

import numpy as np
from gestaltdb.graphdb import GraphDB

from ..errors import GestaltError
from .codec import EXPIRES, VECTORS, encode_namespace, is_item, item_path, items_under, successor

_DISTANCES = (None, "cosine")


def check_index(index: Any) -> None:
    if not isinstance(index, dict) or "dims" not in index or "embed" not in index:
        raise GestaltError('index= needs {"dims": N, "embed": function or Embeddings, "fields": [...]} (fields optional).')
    if index.get("distance_type") not in _DISTANCES:
        raise GestaltError(
            f"GestaltStore scores by cosine similarity only; distance_type={index['distance_type']!r} is not supported."
        )


def checked_vectors(dims: int | None, texts: list[str], found: list[Any], what: str) -> dict[str, list[float]]:
    if len(found) != len(texts):
        raise GestaltError(f"The embedding function returned {len(found)} vectors for {len(texts)} {what} texts; nothing was written.")
    out = {}
    for text, vector in zip(texts, found):
        vector = [float(x) for x in vector]
        if dims and len(vector) != dims:
            raise GestaltError(f"The embedding function returned {len(vector)} numbers, but index dims is {dims}; nothing was written.")
        out[text] = vector
    return out


def assign(dims: int | None, to_embed: dict[str, list[tuple]], embedded: list[Any]) -> dict:
    """Each unique text's vector to every (namespace, key, path) that holds the text."""
    by_text = checked_vectors(dims, list(to_embed), list(embedded), "document")
    vectors: dict[tuple[tuple[str, ...], str], dict[str, list[float]]] = {}
    for text, places in to_embed.items():
        for namespace, key, path in places:
            vectors.setdefault((namespace, key), {})[path] = by_text[text]
    return vectors


def snapshot_id(db: GraphDB) -> int | None:
    """The LMDB transaction id the database's committed state is at (None: not LMDB)."""
    sequence = getattr(db.store, "current_snapshot_sequence", None)
    return sequence() if sequence else None


def write_id(tx: GraphDB) -> int | None:
    """The id an LMDB write transaction commits as (None: not LMDB)."""
    txn = getattr(tx.store, "txn", None)
    return txn.id() if txn is not None and hasattr(txn, "id") else None


class VectorCache:
    """Every item's vectors as one float64 array, sorted by path; rows of one item are adjacent."""

    def __init__(self) -> None:
        self.stamp: int | None = None
        self._rows: dict[str, tuple[str, float, list[list[float]]]] = {}  # node id → (path, expires, vectors)
        self._compiled: tuple | None = None

    def has(self, node_id: str) -> bool:
        return node_id in self._rows

    def fresh(self, stamp: int | None) -> bool:
        return stamp is not None and self.stamp == stamp

    def rebuild(self, db: GraphDB, stamp: int | None) -> None:
        self._rows = {}
        for node in items_under(db, ()):
            self._note(node.get_id, node.properties)
        self.stamp, self._compiled = stamp, None

    def _note(self, node_id: str, props: dict[str, Any] | None) -> None:
        vectors = list(((props or {}).get(VECTORS) or {}).values())
        if not vectors:
            self._rows.pop(node_id, None)
            return
        path = item_path(tuple(props["namespace"]), props["key"])
        expires = props.get(EXPIRES)
        self._rows[node_id] = (path, float("inf") if expires is None else float(expires), vectors)

    def apply(self, changes: dict[str, dict[str, Any] | None], committed: int | None) -> None:
        """Our own commit (LMDB transaction ``committed``): applied in place when the cache is at the
        state that transaction began from (``committed - 1``), else dropped."""
        if committed is None or self.stamp != committed - 1:
            self.stamp, self._rows, self._compiled = None, {}, None
            return
        for node_id, props in changes.items():
            self._note(node_id, props)
        self.stamp, self._compiled = committed, None

    def _compile(self) -> tuple:
        if self._compiled is None:
            order = sorted(self._rows.items(), key=lambda entry: (entry[1][0], entry[0]))
            paths, ids, starts, expires, flat = [], [], [], [], []
            for node_id, (path, expiry, vectors) in order:
                paths.append(path)
                ids.append(node_id)
                starts.append(len(flat))
                expires.append(expiry)
                flat.extend(vectors)
            matrix = np.asarray(flat, dtype=np.float64).reshape(len(flat), -1) if flat else np.zeros((0, 0))
            norms = np.linalg.norm(matrix, axis=1) if flat else np.zeros(0)
            self._compiled = (paths, ids, np.asarray(starts, dtype=np.intp), np.asarray(expires), matrix, norms)
        return self._compiled

    def ranked(self, prefix: tuple[str, ...], query: list[float], now: float | None) -> Iterator[tuple[str, float]]:
        """(node id, best cosine score) of the items under ``prefix`` with vectors, best first
        (ties in path order); expired items (by ``now``) left out."""
        paths, ids, starts, expires, matrix, norms = self._compile()
        encoded = encode_namespace(prefix)
        lo = bisect.bisect_left(paths, encoded) if encoded else 0
        upper = successor(encoded) if encoded else None
        hi = bisect.bisect_left(paths, upper) if upper else len(paths)
        if lo >= hi:
            return iter(())
        q = np.asarray(query, dtype=np.float64)
        row_lo = starts[lo]
        row_hi = starts[hi] if hi < len(starts) else matrix.shape[0]
        scale = norms[row_lo:row_hi] * np.linalg.norm(q)  # InMemoryStore's cosine: 0 for a zero vector
        dots = matrix[row_lo:row_hi] @ q
        scores = np.divide(dots, scale, out=np.zeros_like(dots), where=scale != 0)
        best = np.maximum.reduceat(scores, starts[lo:hi] - row_lo)
        keep = np.ones(hi - lo, dtype=bool) if now is None else expires[lo:hi] > now
        positions = np.flatnonzero(keep)
        order = positions[np.lexsort((positions, -best[positions]))]
        return ((ids[lo + i], float(best[i])) for i in order.tolist())


def scored_nodes(db: GraphDB, hits: list[tuple[str, float]], prefix: tuple[str, ...]):
    """The ranked hits' item nodes (node, score), read and verified lazily."""
    depth = len(prefix)
    for node_id, score in hits:
        node = db.get_node(node_id.encode("utf-8"))
        if is_item(node) and tuple(node.properties["namespace"])[:depth] == prefix:
            yield node, score
