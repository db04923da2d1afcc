"""``query_subgraph``: the neighbourhood of named entities, over typed adjacency, bounded, exact about cuts.

Seeds are nodes whose ``name`` equals an entity case-insensitively, found through the name
index kept beside the graph (:mod:`gestalt_nb.graph.names`), or when it is absent or stale a map of names
read into memory (:mod:`gestalt_nb.graph.name_lookup`: a read never writes the index); failing that, nodes whose
``name`` equals it exactly through a ``name`` index if
there is one; else the node with that exact id. From the
seeds a breadth-first walk follows relationships of every non-internal type in both directions
for up to ``max_hops`` hops, reading GestaltDB's typed adjacency (``iter_typed_adjacency``), never
an untyped ``-[r]-`` pattern. Bounds: ``max_nodes`` collected nodes, ``max_edges`` kept
relationships and ``max_fanout`` adjacency records read per node. The relationships kept are those
the walk followed between collected nodes, then filtered by type (``relations``) and by the edge
property ``confidence`` (an edge without one fails ``min_confidence > 0``).

``truncated`` is True exactly when a bound stopped the walk from reading or keeping something: a
node left out at ``max_nodes``, an adjacency list read only up to ``max_fanout``, a relationship
left out at ``max_edges``, or (whole-graph sample) nodes beyond ``max_nodes``. Otherwise the
result is the complete answer. Work is bounded by ``max_nodes × max_fanout`` adjacency records,
not by the size of the graph.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..checks import positive
from ..display import Displayable
from ..errors import GestaltError
from . import bookkeeping, catalog, name_lookup, names
from .adapter import normalize
from .ids import as_loaded
from .subgraph import Subgraph, edge_from_json, node_from_json

#: Relationship types the adapter and the memory store write for their bookkeeping. A relationship of
#: one of these types is bookkeeping only when one of its ends carries a bookkeeping label
#: (``__LangChainSource__ -MENTIONS-> x``, ``__MemoryItem -ABOUT-> x``); between a person's own nodes
#: it is their data and is walked, listed and drawn like any other type.
INTERNAL_TYPES = frozenset({bookkeeping.MENTIONS}) | bookkeeping.MEMORY_TYPES
#: Node labels kept internal besides any ``__``-prefixed one (``__LangChainSource__``, ``__Memory*``).
INTERNAL_LABELS = bookkeeping.MEMORY_LABELS
#: Node properties gestalt-nb kept for itself in earlier versions (migrated away on open); hidden unless ``include_internal``.
INTERNAL_PROPERTIES = frozenset({names.NAME_KEY})
MAX_HOPS = 6


def internal_type(kind: str) -> bool:
    """A type reserved whatever its ends are: ``__``-prefixed. (Bookkeeping names are told by their ends.)"""
    return kind.startswith("__")


def internal_labels(labels: Iterable[str]) -> bool:
    return any(label.startswith("__") or label in INTERNAL_LABELS for label in labels)


def walk_order(types: Iterable[str]) -> list[str]:
    """``types`` with the bookkeeping-named ones last, so their records are read after the rest."""
    return sorted(types, key=lambda kind: (kind in INTERNAL_TYPES, kind))


def user_relationship_types(db: Any) -> list[str]:
    """The relationship types that join two of a person's own nodes (sorted).

    Every type not ``__``-prefixed, except a bookkeeping-named one (``MENTIONS``, ``ABOUT``, ...) whose
    every relationship touches a bookkeeping node. Checking such a type reads its relationships
    through the type index until the first user one: O(bookkeeping relationships of that type) at worst.
    """
    internal: dict[str, bool] = {}

    def bookkeeping_end(key: str) -> bool:
        if key not in internal:
            node = db.get_node(key.encode("utf-8"))
            internal[key] = node is None or internal_labels(node.labels)
        return internal[key]

    def end(node: Any) -> str:
        return node if isinstance(node, str) else node.get_id

    def has_user_edge(kind: str) -> bool:
        for edge_id in db.iter_edge_ids_by_type(kind):
            edge = db.get_edge(edge_id)
            if edge is not None and not bookkeeping_end(end(edge.source)) and not bookkeeping_end(end(edge.target)):
                return True
        return False

    return [kind for kind in relationship_types(db) if not internal_type(kind) and (kind not in INTERNAL_TYPES or has_user_edge(kind))]


def relationship_types(db: Any) -> list[str]:
    """Every relationship type in the graph, exactly, by skipping through GestaltDB's type index (:mod:`.catalog`).

    One cursor seek per distinct type, not one per relationship. LMDB only (the type index is read
    through the backend's cursor); other backends raise GestaltError.
    """
    if not catalog.complete(db):
        raise GestaltError(
            f"query_subgraph lists relationship types through the LMDB type index; the {type(db.store).__name__} backend is not supported."
        )
    return catalog.relationship_types(db)


@dataclass(eq=False)
class SubgraphResult(Displayable):
    """What ``query_subgraph`` found; nodes and edges in the adapter's JSON shape, in walk order."""

    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    seed_node_ids: list[str]
    hops_traversed: int
    query_params: dict[str, Any]
    truncated: bool
    unresolved_entities: list[str]
    #: Hop distance of each node from the nearest seed.
    hops: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    alias: str = ""
    view_options: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def subgraph(self) -> Subgraph:
        title = ", ".join(self.query_params.get("entities") or []) or "graph sample"
        drawn = Subgraph(title=f"subgraph: {title}", truncated=self.truncated, notes=list(self.notes))
        seeds = set(self.seed_node_ids)
        for raw in self.nodes:
            drawn.add_node(node_from_json(raw), highlight=raw["id"] in seeds)
        for raw in self.edges:
            drawn.add_edge(edge_from_json(raw))
        return drawn

    @cached_property
    def df(self):
        """One row per node: id, labels, name, hop distance, whether it is a seed."""
        import pandas as pd

        seeds = set(self.seed_node_ids)
        rows = [
            {"id": as_loaded(raw["id"]), "labels": ", ".join(raw.get("labels") or ()), "name": (raw.get("properties") or {}).get("name"),
             "hop": self.hops.get(raw["id"]), "seed": raw["id"] in seeds}
            for raw in self.nodes
        ]
        return pd.DataFrame(rows, columns=["id", "labels", "name", "hop", "seed"])

    @cached_property
    def edge_df(self):
        """One row per relationship: id, source, type, target, confidence."""
        import pandas as pd

        rows = [
            {"id": raw["id"], "source": raw["source"], "type": (raw.get("properties") or {}).get("type"),
             "target": raw["target"], "confidence": (raw.get("properties") or {}).get("confidence")}
            for raw in self.edges
        ]
        return pd.DataFrame(rows, columns=["id", "source", "type", "target", "confidence"])

    def summary(self) -> str:
        more = " (truncated by a bound)" if self.truncated else ""
        missing = f"; unresolved: {', '.join(self.unresolved_entities)}" if self.unresolved_entities else ""
        return (
            f"{len(self.nodes):,} nodes, {len(self.edges):,} relationships from {len(self.seed_node_ids)} seeds, "
            f"{self.hops_traversed} hops{more}{missing}"
        )

    def __repr__(self) -> str:
        return f"<SubgraphResult {self.summary()}>"


def _names(name: str, value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(item, str) and item.strip() for item in value):
        raise GestaltError(f"{name} must be a list of non-empty strings (or None), not {value!r}.")
    return list(dict.fromkeys(item.strip() for item in value))


def _confidence(edge: dict[str, Any]) -> float | None:
    value = (edge.get("properties") or {}).get("confidence")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def query_subgraph(
    connection: Any,
    entities: list[str] | str | None = None,
    relations: list[str] | str | None = None,
    min_confidence: float = 0.0,
    max_hops: int = 1,
    *,
    max_nodes: int = 500,
    max_edges: int = 2000,
    max_fanout: int = 100,
    include_internal: bool = False,
    filter_during_traversal: bool = False,
    drop_isolated: bool = False,
) -> SubgraphResult:
    """The work of :meth:`Connection.subgraph <gestalt_nb.capabilities.Capabilities.subgraph>`, ``connection`` first (documented there, once)."""
    params = _checked(
        entities=entities, relations=relations, min_confidence=min_confidence, max_hops=max_hops, max_nodes=max_nodes,
        max_edges=max_edges, max_fanout=max_fanout, include_internal=include_internal,
        filter_during_traversal=filter_during_traversal, drop_isolated=drop_isolated,
    )
    entities, relations, min_confidence = params["entities"], params["relations"], params["min_confidence"]
    max_nodes, max_edges, max_fanout = params["max_nodes"], params["max_edges"], params["max_fanout"]
    db = connection.db
    walk = _Walk(db, max_nodes=max_nodes, max_fanout=max_fanout, include_internal=include_internal)
    notes: list[str] = []
    walk_types = _walk_types(db, relations, include_internal, filter_during_traversal, notes)

    def passes(kind: str) -> bool:
        return relations is None or kind in relations

    seeds, unresolved = _seeds(walk, entities, connection, notes)
    def confident(raw: dict[str, Any]) -> bool:
        confidence = _confidence(raw)
        return confidence is not None and confidence >= min_confidence

    walk.run(walk_types, max_hops, confident if filter_during_traversal and min_confidence > 0 else None)
    kept = _kept(walk, lambda raw: passes(raw["properties"].get("type", "")) and (min_confidence <= 0 or confident(raw)), max_edges)
    node_ids = list(walk.order)
    if drop_isolated:
        touched = {raw["source"] for raw in kept} | {raw["target"] for raw in kept} | set(seeds)
        node_ids = [node_id for node_id in node_ids if node_id in touched]
    nodes = [walk.node_json(node_id) for node_id in node_ids]
    return SubgraphResult(
        nodes=nodes,
        edges=kept,
        seed_node_ids=seeds,
        hops_traversed=max_hops,
        query_params=params,
        truncated=walk.truncated,
        unresolved_entities=unresolved,
        hops={node_id: walk.hop[node_id] for node_id in node_ids},
        notes=[*notes, *walk.notes],
        alias=getattr(connection, "alias", ""),
    )


def _walk_types(db: Any, relations: list[str] | None, include_internal: bool, filtered: bool, notes: list[str]) -> list[str]:
    """The types the walk follows: every (non-internal) type in the graph, or only ``relations`` when filtering while walking."""
    all_types = walk_order(kind for kind in relationship_types(db) if include_internal or not internal_type(kind))
    if relations is not None:
        unknown = [kind for kind in relations if kind not in all_types]
        if unknown:
            notes.append(f"No relationships of type {', '.join(unknown)} in the graph.")
    return [kind for kind in all_types if kind in relations] if filtered and relations is not None else all_types


def _checked(**params: Any) -> dict[str, Any]:
    """query_subgraph's arguments, checked (a short error for a bad one), as its ``query_params``."""
    params["entities"] = _names("entities", params["entities"])
    params["relations"] = _names("relations", params["relations"])
    min_confidence, max_hops = params["min_confidence"], params["max_hops"]
    if isinstance(min_confidence, bool) or not isinstance(min_confidence, (int, float)) or not 0.0 <= min_confidence <= 1.0:
        raise GestaltError(f"min_confidence must be a number from 0 to 1, not {min_confidence!r}.")
    if not isinstance(max_hops, int) or isinstance(max_hops, bool) or not 0 <= max_hops <= MAX_HOPS:
        raise GestaltError(f"max_hops must be a whole number from 0 to {MAX_HOPS}, not {max_hops!r}.")
    params["min_confidence"] = float(min_confidence)
    for name in ("max_nodes", "max_edges", "max_fanout"):
        params[name] = positive(params[name], name)
    return params


def _seeds(walk: _Walk, entities: list[str] | None, connection: Any, notes: list[str]) -> tuple[list[str], list[str]]:
    """The seed node ids (collected at hop 0) and the entities that resolved to none (found without writing: ``name_lookup``)."""
    if entities is None:
        walk.sample_seeds()
        return list(walk.order), []
    find, note = name_lookup.finder(connection)  # never writes: the index, else names read into memory
    if note is not None:
        notes.append(note)
    seeds: list[str] = []
    unresolved: list[str] = []
    for entity in entities:
        found = walk.resolve(entity, find)
        if not found:
            unresolved.append(entity)
        seeds.extend(found)
    return list(dict.fromkeys(seeds)), unresolved


def _kept(walk: _Walk, keep: Any, max_edges: int) -> list[dict[str, Any]]:
    """The followed relationships that pass ``keep``, at most ``max_edges`` (a cut is noted on the walk)."""
    kept: list[dict[str, Any]] = []
    for raw in walk.edges():
        if not keep(raw):
            continue
        if len(kept) >= max_edges:
            walk.cut(f"max_edges ({max_edges:,}) reached: some relationships were left out.")
            break
        kept.append(raw)
    return kept


class _Walk:
    """The breadth-first walk: collected nodes in order, followed edges, and whether a bound cut it."""

    def __init__(self, db: Any, *, max_nodes: int, max_fanout: int, include_internal: bool) -> None:
        self.db, self.max_nodes, self.max_fanout, self.include_internal = db, max_nodes, max_fanout, include_internal
        self.order: list[str] = []
        self.hop: dict[str, int] = {}
        self.raw: dict[str, Any] = {}
        self.refused: set[str] = set()  # internal or absent: never collected, not a cut
        self.followed: dict[bytes, tuple[str, str, str]] = {}  # edge id → (source, type, target)
        self.edge_cache: dict[bytes, dict[str, Any] | None] = {}
        self.truncated = False
        self.notes: list[str] = []

    def cut(self, note: str) -> None:
        self.truncated = True
        if note not in self.notes:
            self.notes.append(note)

    def _node(self, node_id: str) -> Any:
        if node_id in self.raw or node_id in self.refused:
            return self.raw.get(node_id)
        node = self.db.get_node(node_id.encode("utf-8"))
        if node is None or (not self.include_internal and internal_labels(node.labels)):
            self.refused.add(node_id)
            return None
        self.raw[node_id] = node
        return node

    def collect(self, node_id: str, hop: int) -> bool:
        """Add a node if it is allowed and there is room; False if not collected."""
        if node_id in self.hop:
            return True
        if self._node(node_id) is None:
            return False
        if len(self.order) >= self.max_nodes:
            self.cut(f"max_nodes ({self.max_nodes:,}) reached: some neighbours were left out.")
            return False
        self.hop[node_id] = hop
        self.order.append(node_id)
        return True

    def resolve(self, entity: str, find: name_lookup.Finder | None) -> list[str]:
        found = find(entity, self.max_nodes + 1) if find is not None else []
        if not found and names.NAME_PROPERTY in self.db.indexed_node_properties:
            # a node the index does not know yet (written outside gestalt-nb): its exact name, through the name index
            found = [self.db.key_to_string(key) for _, key in zip(range(self.max_nodes + 1), self.db.iter_node_ids_by_property(names.NAME_PROPERTY, entity))]
        found = [node_id for node_id in found if self._node(node_id) is not None]
        if not found and self._node(entity) is not None:
            found = [entity]
        return [node_id for node_id in found if self.collect(node_id, 0)]

    def sample_seeds(self) -> None:
        for key in self.db.get_node_keys_generator():
            node_id = self.db.key_to_string(key)
            if self._node(node_id) is None:
                continue
            if len(self.order) >= self.max_nodes:
                self.cut(f"Whole-graph sample: the first {self.max_nodes:,} nodes (key order) are shown; the graph has more.")
                return
            self.collect(node_id, 0)

    def run(self, types: list[str], max_hops: int, edge_filter: Any) -> None:
        frontier = list(self.order)
        for hop in range(1, max_hops + 1):
            following: list[str] = []
            for node_id in frontier:
                read = 0
                for kind in types:
                    for record in self.db.iter_typed_adjacency(node_id, kind, "any"):
                        neighbour = self.db.key_to_string(record["neighbor_id"])
                        known = neighbour in self.hop
                        if not known and self._node(neighbour) is None:
                            continue  # a bookkeeping node (a source, a memory): not the person's adjacency, not counted
                        if read >= self.max_fanout:
                            self.cut(f"max_fanout ({self.max_fanout:,}) reached at some nodes: part of their adjacency was not read.")
                            break
                        read += 1
                        edge_id = record["edge_id"]
                        if edge_id in self.followed:
                            continue
                        if edge_filter is not None:
                            raw = self.edge(edge_id)
                            if raw is None or not edge_filter(raw):
                                continue
                        if not self.collect(neighbour, hop):
                            continue
                        if not known:
                            following.append(neighbour)
                        self.followed[edge_id] = (self.db.key_to_string(record["source_id"]), kind, self.db.key_to_string(record["target_id"]))
                    else:
                        continue
                    break
            frontier = following
            if not frontier:
                break

    def edge(self, edge_id: bytes) -> dict[str, Any] | None:
        if edge_id not in self.edge_cache:
            edge = self.db.get_edge(edge_id)
            self.edge_cache[edge_id] = normalize(edge) if edge is not None else None
        return self.edge_cache[edge_id]

    def edges(self) -> Iterable[dict[str, Any]]:
        for edge_id in self.followed:
            raw = self.edge(edge_id)
            if raw is not None:
                yield raw

    def node_json(self, node_id: str) -> dict[str, Any]:
        raw = normalize(self.raw[node_id])
        if not self.include_internal:
            props = raw.get("properties") or {}
            raw["properties"] = {name: value for name, value in props.items() if name not in INTERNAL_PROPERTIES}
        return raw

