"""``%gmemory``: what agents remember, as the namespace tree with its items (and what they are about).

Read-only: it reads the nodes a ``GestaltStore`` wrote and never creates anything, so it works
on a database that has no memory yet (and says so). Expired items are left out by the wall
clock, as the store leaves them out.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from typing import Any

from ..cypher.result import QueryResult
from ..display import Displayable
from ..errors import GestaltError
from ..graph import values
from ..graph.bookkeeping import ABOUT, IN_NAMESPACE, SUBNAMESPACE_OF
from ..graph.subgraph import Edge, Node, Subgraph
from .codec import ITEM, NAMESPACE, PATH, link_id, namespace_id
from .codec import expired as _expired
from .codec import items_under as _items_under
from .codec import namespaces_under as _namespaces_under

COLUMNS = ["namespace", "key", "value", "created_at", "updated_at", "expires_at", "about"]


def parse_prefix(text: str | None) -> tuple[str, ...]:
    """``"users/42"`` → ``("users", "42")``; empty or ``/`` is the whole store."""
    labels = tuple(label for label in (text or "").strip().split("/") if label)
    for label in labels:
        if "." in label:
            raise GestaltError(f"Namespace labels cannot contain '.', as in {label!r}; separate labels with '/' (e.g. users/42).")
    return labels


@dataclass(eq=False)
class MemoryResult(Displayable):
    """The memories under ``prefix``: ``records`` (one per item), ``df``, ``subgraph`` (namespace
    tree, items, ``ABOUT`` entities), ``namespaces``, ``truncated`` when more than ``limit`` items exist."""

    prefix: tuple[str, ...]
    alias: str
    limit: int
    records: list[dict[str, Any]] = field(default_factory=list)
    namespaces: list[tuple[str, ...]] = field(default_factory=list)
    subgraph: Subgraph = field(default_factory=Subgraph)
    truncated: bool = False
    notes: list[str] = field(default_factory=list)
    elapsed: float = 0.0

    @cached_property
    def df(self):
        return values.frame(self.records, COLUMNS)

    def as_query_result(self):
        """The same answer as a ``QueryResult``, so it displays in the shared result view."""
        where = "/".join(self.prefix) or "(all)"
        return QueryResult(
            query=f"%gmemory {where}", params={}, records=self.records, columns=list(COLUMNS), truncated=self.truncated,
            row_limit=self.limit, elapsed=self.elapsed, alias=self.alias, write=False, executed=f"%gmemory {where}",
            notes=list(self.notes), subgraph=self.subgraph,
        )

    def __len__(self) -> int:
        return len(self.records)

    def __repr__(self) -> str:
        more = " (truncated)" if self.truncated else ""
        return f"<MemoryResult {'/'.join(self.prefix) or '(all)'}: {len(self.records)} items{more} in {len(self.namespaces)} namespaces; {self.subgraph.summary()}>"


def browse(connection: Any, prefix: tuple[str, ...] = (), *, limit: int = 200) -> MemoryResult:
    """The namespaces and (at most ``limit``) live items under ``prefix``, drawn as a tree."""
    if limit < 1:
        raise GestaltError("--limit must be at least 1.")
    started = time.perf_counter()
    db = connection.db
    result = MemoryResult(prefix=prefix, alias=connection.alias, limit=limit)
    graph = Subgraph(title=f"memory: {'/'.join(prefix) or 'all'}")
    result.subgraph = graph
    if PATH not in db.indexed_node_properties:
        result.notes.append("No agent memory in this database yet: connection.memory_store() makes one.")
        return result
    now = datetime.now(timezone.utc).timestamp()
    for depth in range(1, len(prefix)):  # the path down to the prefix, for context
        node = db.get_node(namespace_id(prefix[:depth]).encode("utf-8"))
        if node is not None:
            _add_namespace(graph, node)
    for node in _namespaces_under(db, prefix):
        _add_namespace(graph, node, highlight=tuple(node.properties["namespace"]) == prefix)
    about: dict[str, list[tuple[str, str]]] = {}
    namespaces: set[tuple[str, ...]] = set()
    for node in _items_under(db, prefix):
        if _expired(node, now):
            continue
        if len(result.records) >= limit:
            result.truncated = True
            result.notes.append(f"Showing the first {limit:,} items; raise --limit to see more.")
            break
        props = node.properties
        namespace = tuple(props["namespace"])
        namespaces.add(namespace)
        links = [(str(r["edge_id"], "utf-8") if isinstance(r["edge_id"], bytes) else str(r["edge_id"]),
                  str(r["neighbor_id"], "utf-8") if isinstance(r["neighbor_id"], bytes) else str(r["neighbor_id"]))
                 for r in db.iter_typed_adjacency(node.get_id, ABOUT, "out")]
        about[node.get_id] = links
        result.records.append({
            "namespace": "/".join(namespace), "key": props["key"], "value": props.get("value"),
            "created_at": props.get("created_at"), "updated_at": props.get("updated_at"),
            "expires_at": props.get("expires_at"), "about": [target for _, target in links],
        })
        shown = {"name": props.get("name", props["key"]), "key": props["key"], "namespace": "/".join(namespace),
                 "value": json.dumps(props.get("value"), ensure_ascii=False), "updated_at": props.get("updated_at")}
        if props.get("expires_at"):
            shown["expires_at"] = props["expires_at"]
        graph.add_node(Node(node.get_id, (ITEM,), shown))
        parent = namespace_id(namespace)
        graph.add_edge(Edge(link_id(node.get_id), node.get_id, parent, IN_NAMESPACE, {"type": IN_NAMESPACE}))
    result.namespaces = sorted(namespaces)
    for item, links in about.items():
        for edge_id, target in links:
            graph.add_edge(Edge(edge_id, item, target, ABOUT, {"type": ABOUT}))
    graph.complete_endpoints(connection.nodes)
    if not result.records:
        result.notes.append(f"No live memories under {'/'.join(prefix) or 'the root'}.")
    result.elapsed = time.perf_counter() - started
    return result


def _add_namespace(graph: Subgraph, node: Any, *, highlight: bool = False) -> None:
    props = node.properties
    namespace = tuple(props["namespace"])
    graph.add_node(Node(node.get_id, (NAMESPACE,), {"name": props.get("name"), "path": "/".join(namespace)}), highlight=highlight)
    if len(namespace) > 1:
        parent = namespace_id(namespace[:-1])
        graph.add_edge(Edge(f"__memsub:{node.get_id[8:]}", node.get_id, parent, SUBNAMESPACE_OF, {"type": SUBNAMESPACE_OF}))
