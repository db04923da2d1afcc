"""GestaltStore's writes inside one transaction: put, delete, TTL refresh and sweep, namespace upkeep.

A batch of N puts costs work proportional to N: each namespace node is looked up once per batch
(``Batch.namespaces``), each item node is read at most once and written once, and an item's
``IN_NAMESPACE`` edge is written only when the item is new; new nodes and edges, namespaces
included, go to the key-value store with one call per kind (``bulk``). A namespace created by the
transaction whose range of item ids is empty (``Place.fresh``) holds no stored item, so its
puts skip the read for an old item, unless an earlier call of the transaction put the same key.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from gestaltdb.graphdb import Edge, GraphDB, Node
from langgraph.store.base import PutOp

from ..engine.records import write_node
from ..graph.bookkeeping import ABOUT, IN_NAMESPACE, SUBNAMESPACE_OF
from .bulk import Pending, compact_json
from .codec import (
    EXPIRES,
    ITEM,
    ITEM_IDS,
    NAMESPACE,
    PATH,
    VECTORS,
    caption,
    digest,
    encode_namespace,
    expired,
    find_item,
    index_value,
    is_item,
    iso,
    item_id,
    item_ids,
    item_path,
    items_under,
    link_id,
    namespace_id,
    text,
)

_MEMORY_LABELS = frozenset({ITEM, NAMESPACE})


@dataclass
class Batch:
    """What one write transaction has touched so far."""

    now: datetime
    namespaces: dict[tuple[str, ...], str] = field(default_factory=dict)  # ensured this batch → node id
    emptied: set[tuple[str, ...]] = field(default_factory=set)  # lost an item: prune if now empty
    vectors: dict[str, dict[str, Any] | None] = field(default_factory=dict)  # item id → new props (None: gone)
    legacy: bool = True  # items of the earlier layout may be stored (look their ids up too)
    stamp: str = ""  # now, as the ISO text items store
    quoted: str = ""  # the stamp as a JSON string
    created: set[tuple[str, ...]] = field(default_factory=set)  # namespace nodes this transaction made
    touched: set[str] = field(default_factory=set)  # item ids put this transaction in a fresh namespace
    places: dict[tuple[str, ...], Place] = field(default_factory=dict)  # namespaces puts went to

    def __post_init__(self) -> None:
        self.stamp = iso(self.now)
        self.quoted = compact_json(self.stamp)


@dataclass
class Place:
    """A namespace as this transaction's puts use it: its node id, whether it is fresh, its item ids
    (``codec.item_ids``) and its labels as the JSON list items store."""

    node_id: str
    fresh: bool
    ids: Callable[[str], str]
    labels: str


def expiry(minutes: float, now: datetime) -> dict[str, Any]:
    expires = now + timedelta(minutes=minutes)
    return {"ttl_minutes": minutes, "expires_at": iso(expires), EXPIRES: expires.timestamp()}


class Writes:
    """The write half of ``GestaltStore`` (a mixin: it needs ``index_config``, ``about``)."""

    index_config: dict[str, Any] | None
    about: Any

    def _refresh(self, tx: GraphDB, refresh: dict[str, float], batch: Batch) -> None:
        for node_id, minutes in refresh.items():
            node = tx.get_node(node_id.encode("utf-8"))
            if not is_item(node) or expired(node, batch.now.timestamp()):
                continue
            old = Node(node.get_id, labels=list(node.labels), properties=dict(node.properties))
            node.properties.update(expiry(minutes, batch.now))
            write_node(tx, node, old)
            if node.properties.get(VECTORS):
                batch.vectors[node.get_id] = node.properties

    def _about(self, value: dict[str, Any]) -> list[str]:
        if self.about is None:
            return []
        ids = self.about(value) if callable(self.about) else value.get(self.about)
        if ids is None:
            return []
        if isinstance(ids, str):
            ids = [ids]
        return [str(entity) for entity in ids]

    def _put(self, tx: GraphDB, namespace: tuple, key: str, op: PutOp, vectors: dict | None, batch: Batch,
             pending: Pending, text: str | None = None) -> None:
        """Write one put (``text``: its value as JSON, when already made); new nodes and edges wait in
        ``pending`` until a read or a later put of the same item needs them written."""
        if op.value is None:
            self._delete(tx, namespace, key, batch, pending)
            return
        place = self._place(tx, namespace, batch, pending)
        node_id = place.ids(key)
        if place.fresh and node_id not in batch.touched:
            old = None  # nothing is stored under a namespace this transaction created empty
            batch.touched.add(node_id)
        else:
            if pending.holds(node_id):  # an earlier call of this transaction wrote it
                pending.flush()
            old = find_item(tx, namespace, key, legacy=batch.legacy, node_id=node_id)
        if old is None and op.ttl is None and self.about is None and not (vectors and self.index_config and op.index is not False):
            if text is None:
                text = compact_json(op.value)
            if pending.new_item(node_id, key, place.labels, batch.quoted, text, place.node_id):
                return
        parent = place.node_id
        now, stamp = batch.now, batch.stamp
        if old is not None:
            node_id = old.get_id
        props: dict[str, Any] = {
            "namespace": list(namespace),
            "key": key,
            "name": caption(key),
            "created_at": old.properties["created_at"] if old is not None and not expired(old, now.timestamp()) else stamp,
            "updated_at": stamp,
        }
        if not node_id.startswith(ITEM_IDS):  # an item of the earlier layout keeps its id and path index
            props[PATH] = index_value(item_path(namespace, key))
        if op.ttl is not None:
            props.update(expiry(op.ttl, now))
        if vectors and self.index_config and op.index is not False:
            props[VECTORS] = vectors
        about = self._about(op.value)
        if about:
            props["about"] = about
        pending.node(node_id, props, op.value, text, old)
        if old is not None or VECTORS in props:
            batch.vectors[node_id] = props
        link = link_id(node_id)
        if old is None or tx.store.get_edge(link.encode("utf-8")) is None:
            pending.link(link, node_id, parent)
        if about or (old is not None and old.properties.get("about")):
            self._link_about(tx, node_id, about)

    def _delete(self, tx: GraphDB, namespace: tuple, key: str, batch: Batch, pending: Pending) -> None:
        node_id = item_id(namespace, key)
        if pending.holds(node_id):  # an earlier call of this transaction wrote it
            pending.flush()
        old = find_item(tx, namespace, key, legacy=batch.legacy, node_id=node_id)
        if old is not None:
            self._remove(tx, old)
            batch.emptied.add(namespace)
            batch.vectors[old.get_id] = None

    def _place(self, tx: GraphDB, namespace: tuple[str, ...], batch: Batch, pending: Pending) -> Place:
        place = batch.places.get(namespace)
        if place is None:
            node_id = self._ensure_namespace(tx, namespace, batch, pending)
            # a namespace this transaction made holds no stored item unless items outlived its node (Cypher)
            fresh = namespace in batch.created and next(items_under(tx, namespace, exact=True, legacy=batch.legacy), None) is None
            place = Place(node_id, fresh, item_ids(namespace), compact_json(list(namespace)))
            batch.places[namespace] = place
        return place

    def _link_about(self, tx: GraphDB, node_id: str, about: list[str]) -> None:
        wanted = {}
        for entity in about:
            target = tx.get_node(entity.encode("utf-8"))
            if target is not None and not _MEMORY_LABELS & set(target.labels):
                wanted[f"__memabout:{digest(node_id, entity)}"] = entity
        existing = {text(record["edge_id"]) for record in tx.iter_typed_adjacency(node_id, ABOUT, "out")}
        for edge_id in existing - wanted.keys():
            tx.delete_edge(edge_id.encode("utf-8"))
        for edge_id, entity in wanted.items():
            if edge_id not in existing:
                tx.put_edge(Edge(edge_id, node_id, entity, properties={"type": ABOUT}), update_adjacency=False)

    def _ensure_namespace(self, tx: GraphDB, namespace: tuple[str, ...], batch: Batch, pending: Pending) -> str:
        """The namespace's node id; it and any missing ancestors are created on the way (each looked
        up once per batch, written with the batch's other new nodes)."""
        known = batch.namespaces.get(namespace)
        if known is not None:
            return known
        node_id = namespace_id(namespace)
        if tx.store.get_node(node_id.encode("utf-8")) is None:
            props = {
                "namespace": list(namespace),
                "name": caption(namespace[-1]),
                "path": "/".join(namespace),
                "depth": len(namespace),
                PATH: index_value(encode_namespace(namespace)),
            }
            pending.namespace(Node(node_id, labels=[NAMESPACE], properties=props))
            if len(namespace) > 1:
                parent = self._ensure_namespace(tx, namespace[:-1], batch, pending)
                pending.link(f"__memsub:{node_id[8:]}", node_id, parent, SUBNAMESPACE_OF)
            batch.created.add(namespace)
        batch.namespaces[namespace] = node_id
        return node_id

    def _remove(self, tx: GraphDB, node: Node) -> None:
        """Delete a node and every edge on it, found by id and adjacency rather than GestaltDB's
        ``delete_node``, which scans every edge in the graph."""
        node_id = node.get_id
        edges = set()
        for edge_type in (IN_NAMESPACE, SUBNAMESPACE_OF, ABOUT):
            for record in tx.iter_typed_adjacency(node_id, edge_type, "any"):
                edges.add(text(record["edge_id"]))
        adjacency = tx.get_adjacency_list(node_id.encode("utf-8"), return_raw=True)
        if isinstance(adjacency, dict):  # edges other writers (Cypher, bulk loads) put on the node
            edges.update(text(edge) for edge in adjacency.get("source", []) + adjacency.get("target", []))
        for edge_id in edges:
            tx.delete_edge(edge_id.encode("utf-8"))
        key = node_id.encode("utf-8")
        tx.put_node(Node(node_id))  # drops the label and property index entries
        tx.store.delete_node(key)
        tx.store.delete_adjacency(key)

    def _prune(self, tx: GraphDB, batch: Batch) -> None:
        """Remove namespace nodes left with no items and no sub-namespaces, up the tree."""
        for namespace in sorted(batch.emptied, key=len, reverse=True):
            while namespace:
                node = tx.get_node(namespace_id(namespace).encode("utf-8"))
                if node is None:
                    break
                children = next(iter(tx.iter_typed_adjacency(node.get_id, SUBNAMESPACE_OF, "in")), None)
                if children is not None or next(items_under(tx, namespace, exact=True), None) is not None:
                    break
                self._remove(tx, node)
                batch.namespaces.pop(namespace, None)
                batch.places.pop(namespace, None)
                batch.created.discard(namespace)
                namespace = namespace[:-1]

    def _sweep(self, tx: GraphDB, batch: Batch) -> int:
        count = 0
        now = batch.now.timestamp()
        for node_id in list(tx.iter_node_ids_by_label_property_range(ITEM, EXPIRES, None, now)):
            node = tx.get_node(node_id)
            if is_item(node) and expired(node, now):
                self._remove(tx, node)
                batch.emptied.add(tuple(node.properties["namespace"]))
                batch.vectors[node.get_id] = None
                count += 1
        self._prune(tx, batch)
        return count
