"""``Subgraph``: the one drawable shape. Every view that draws a graph builds one of these.

Nodes and edges are kept in first-seen order and de-duplicated by id. Nodes are keyed by their id as
loaded (the integer ``2``, not the adapter's stored ``__lc_int__:2``; see :mod:`gestalt_nb.graph.ids`), and
relationships' ends likewise; what reads the database turns them back (``ids.stored``). ``highlight_*`` mark what
the producer wants emphasised (query matches, seeds, a claim's root). ``capped`` is the only place
that drops elements for drawing, and it records what it dropped in ``notes``.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from . import values
from .convert import edges_df, nodes_df, to_networkx
from .ids import PREFIX, as_loaded


@dataclass(frozen=True, slots=True)  # thousands per result: no per-instance __dict__
class Node:
    id: str | int  # as loaded: an integer id is the int
    labels: tuple[str, ...] = ()
    properties: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "labels": list(self.labels), "properties": dict(self.properties)}


@dataclass(frozen=True, slots=True)
class Edge:
    id: str
    source: str | int  # as loaded, as Node.id
    target: str | int
    type: str = ""
    properties: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        properties = dict(self.properties)
        if self.type:
            properties.setdefault("type", self.type)
        return {"id": self.id, "source": self.source, "target": self.target, "properties": properties}


@contextmanager
def building() -> Iterator[None]:
    """Python's cycle collector paused while a result is read, converted and packed (reference counting frees as usual).

    A read makes tens of thousands of engine values, nodes, relationships and payload dicts, and every few hundred
    new containers the collector runs; its older generations walk every live object again, the notebook's other
    data and the growing result included: 15-27% of a 10k-50k-node cell's kernel CPU (bench_gcypher.py
    --kernel-split). The engine's reads leave next to no cycles (10-25 objects per query, measured), so nothing
    accumulates meanwhile; the collector runs again afterwards. What the build made is then handed to the oldest
    generation as it is (``gc.freeze()`` + ``gc.unfreeze()``: two list splices, no walk): else the first young
    collection after it walks every object the build made, and the next middle one again (8-18% of the cell at
    1k-50k nodes, bench_gcypher.py --kernel-split). The objects stay collectable: a full collection still sees
    them, and reference counting frees them as ever. (``gc.freeze`` alone, collector on, was as good at 10k but
    no better than leaving the collector on at 50k: the frozen heap makes its full collections more frequent.)
    Left alone when something else paused the collector, and inside another build.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.unfreeze()
        gc.enable()


#: Fetches node maps (adapter JSON shape) for ids that edges reference but the data did not carry.
NodeFetcher = Callable[[list[str]], list[dict[str, Any]]]


@dataclass
class Subgraph:
    """Nodes and edges to draw, what to highlight, and whether anything was left out."""

    nodes: dict[str, Node] = field(default_factory=dict)
    edges: dict[str, Edge] = field(default_factory=dict)
    highlight_nodes: set[str] = field(default_factory=set)
    highlight_edges: set[str] = field(default_factory=set)
    truncated: bool = False
    notes: list[str] = field(default_factory=list)
    title: str = ""
    #: Super-nodes of an overview (node id → {"group": number, "size": members, …}): nodes that stand
    #: for a group of nodes. Ours, never a person's data; empty for every other drawing.
    groups: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Bookkeeping labels and types the query wrote out (``bookkeeping.asked_in``): its legend shows them as
    #: they are; every other bookkeeping name is listed in words (``(source)``) or left out.
    asked: frozenset[str] = frozenset()
    #: Nodes and relationships drawn faded, as ghosts (a diff's removed ones; a time slider's just gone).
    faded: set[str] = field(default_factory=set)
    #: Properties that changed, per node or relationship id: {property: (before, after)}, listed old → new in the panel.
    changed: dict[str, dict[str, tuple[Any, Any]]] = field(default_factory=dict)

    # -- building -----------------------------------------------------------
    def add_node(self, node: Node, *, highlight: bool = False) -> None:
        """Add a node; a fuller copy (labels/properties) replaces an id-only placeholder."""
        if type(node.id) is str and node.id.startswith(PREFIX) and (loaded := as_loaded(node.id)) != node.id:
            node = Node(loaded, node.labels, node.properties)  # a stored integer id: keyed as loaded
        known = self.nodes.get(node.id)
        if known is None or (not known.labels and not known.properties):
            self.nodes[node.id] = node
        if highlight:
            self.highlight_nodes.add(node.id)

    def add_edge(self, edge: Edge, *, highlight: bool = False) -> None:
        source, target = loaded_id(edge.source), loaded_id(edge.target)
        if source is not edge.source or target is not edge.target:
            edge = Edge(edge.id, source, target, edge.type, edge.properties)
        self.edges.setdefault(edge.id, edge)
        if highlight:
            self.highlight_edges.add(edge.id)

    def add_value(self, value: Any, *, highlight: bool = True) -> None:
        """Absorb every node, edge and path in an adapter JSON value, at any depth."""
        if values.is_node(value):
            self.add_node(node_from_json(value), highlight=highlight)
        elif values.is_edge(value):
            self.add_edge(edge_from_json(value), highlight=highlight)
        elif values.is_path(value):
            for item in value["nodes"] + value["edges"]:
                self.add_value(item, highlight=highlight)
        elif isinstance(value, list):
            for item in value:
                self.add_value(item, highlight=highlight)
        elif isinstance(value, dict) and not values.is_temporal(value):
            for item in value.values():
                self.add_value(item, highlight=highlight)

    def missing_endpoints(self) -> list[str]:
        """Ids that an edge references but no node carries, in first-seen order."""
        missing: dict[str, None] = {}
        for edge in self.edges.values():
            for endpoint in (edge.source, edge.target):
                if endpoint not in self.nodes:
                    missing[endpoint] = None
        return list(missing)

    def complete_endpoints(self, fetch: NodeFetcher | None = None, *, max_fetch: int = 2000) -> None:
        """Add every missing edge endpoint: fetched (not highlighted) when possible, else id-only."""
        missing = self.missing_endpoints()
        if not missing:
            return
        if fetch is not None:
            for raw in fetch(missing[:max_fetch]):
                self.add_node(node_from_json(raw))
            if len(missing) > max_fetch:
                self.notes.append(f"{len(missing) - max_fetch} relationship endpoints were not fetched; shown by id only.")
        for node_id in missing:
            if node_id not in self.nodes:
                self.nodes[node_id] = Node(node_id)

    def merge(self, other: Subgraph) -> Subgraph:
        """Add another subgraph's elements, highlights and notes into this one; returns self."""
        for node in other.nodes.values():
            self.add_node(node, highlight=node.id in other.highlight_nodes)
        for edge in other.edges.values():
            self.add_edge(edge, highlight=edge.id in other.highlight_edges)
        self.truncated = self.truncated or other.truncated
        self.groups.update(other.groups)
        self.asked |= other.asked
        self.faded |= other.faded
        self.changed.update(other.changed)
        self.notes.extend(note for note in other.notes if note not in self.notes)
        return self

    def copy(self) -> Subgraph:
        """A copy to grow: what ``Subgraph(title=self.title, truncated=self.truncated).merge(self)`` makes, in bulk."""
        nodes, edges = dict(self.nodes), dict(self.edges)
        return Subgraph(nodes, edges, self.highlight_nodes & nodes.keys(), self.highlight_edges & edges.keys(),
                        self.truncated, list(dict.fromkeys(self.notes)), self.title, dict(self.groups), self.asked,
                        set(self.faded), dict(self.changed))

    # -- bounding -----------------------------------------------------------
    def capped(self, max_nodes: int, max_edges: int, *, reason: str = "") -> Subgraph:
        """A copy with at most ``max_nodes`` nodes and ``max_edges`` edges, first-seen kept.

        Edges whose endpoints were dropped are dropped too. What was dropped is counted in a note.
        """
        if len(self.nodes) <= max_nodes and len(self.edges) <= max_edges:
            return self
        kept_nodes = dict(list(self.nodes.items())[:max_nodes])
        kept_edges: dict[str, Edge] = {}
        for edge_id, edge in self.edges.items():
            if len(kept_edges) >= max_edges:
                break
            if edge.source in kept_nodes and edge.target in kept_nodes:
                kept_edges[edge_id] = edge
        left = len(self.nodes) - len(kept_nodes)
        reason = reason or (f"drawing caps: {left:,} nodes left out; raise --max-nodes/--max-edges, "
                            f"or add --overview to draw all of them grouped" if left else "drawing caps; raise --max-edges")
        note = (
            f"Graph shows {len(kept_nodes):,} of {len(self.nodes):,} nodes and "
            f"{len(kept_edges):,} of {len(self.edges):,} relationships ({reason})."
        )
        return Subgraph(
            nodes=kept_nodes,
            edges=kept_edges,
            highlight_nodes=self.highlight_nodes & kept_nodes.keys(),
            highlight_edges=self.highlight_edges & kept_edges.keys(),
            truncated=True,
            notes=[*self.notes, note],
            title=self.title,
            groups={key: value for key, value in self.groups.items() if key in kept_nodes},
            asked=self.asked,
            faded={key for key in self.faded if key in kept_nodes or key in kept_edges},
            changed={key: value for key, value in self.changed.items() if key in kept_nodes or key in kept_edges},
        )

    # -- reading ------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.nodes)

    def __bool__(self) -> bool:
        return bool(self.nodes or self.edges)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form (adapter shapes), e.g. for export or tests."""
        return {
            "title": self.title,
            "nodes": [node.to_dict() for node in self.nodes.values()],
            "edges": [edge.to_dict() for edge in self.edges.values()],
            "highlight": {"nodes": sorted(self.highlight_nodes, key=str), "edges": sorted(self.highlight_edges)},
            "truncated": self.truncated,
            "notes": list(self.notes),
        }

    def to_networkx(self, **options: Any):
        """This subgraph as a networkx graph (a MultiDiGraph by default); see ``gestalt_nb.graph.convert``."""
        return to_networkx(self, **options)

    def nodes_df(self):
        """Nodes as a DataFrame: id (as given), labels, one column per property."""
        return nodes_df(self)

    def edges_df(self):
        """Relationships as a DataFrame: id, source, target, type, one column per property."""
        return edges_df(self)

    def summary(self) -> str:
        text = f"{len(self.nodes):,} nodes, {len(self.edges):,} relationships"
        return text + (" (truncated)" if self.truncated else "")

    def __repr__(self) -> str:
        title = f"{self.title!r}, " if self.title else ""
        return f"Subgraph({title}{self.summary()})"


# The properties dict is the record's own, not a copy: a result's records and its drawing hold one
# copy of each entity's properties between them (nothing here or in the views writes to it).
def loaded_id(value: Any) -> str | int:
    """A node id as a ``Subgraph`` keys it: as loaded (``__lc_int__:2`` → ``2``); an int stays one, anything else is text."""
    if type(value) is int:
        return value
    text = value if type(value) is str else str(value)
    return as_loaded(text) if text.startswith(PREFIX) else text


def node_from_json(raw: dict[str, Any]) -> Node:
    return Node(loaded_id(raw["id"]), tuple(raw.get("labels") or ()), raw.get("properties") or {})


def edge_from_json(raw: dict[str, Any]) -> Edge:
    properties = raw.get("properties") or {}
    kind = properties.get("type")
    return Edge(str(raw["id"]), loaded_id(raw["source"]), loaded_id(raw["target"]), kind if isinstance(kind, str) else "", properties)


def from_records(records: Iterable[dict[str, Any]], *, title: str = "", fetch: NodeFetcher | None = None) -> Subgraph:
    """Every node, relationship and path value in any column of ``records`` (lists and maps included).

    Returned entities are highlighted as the query's matches; endpoints fetched to complete
    a relationship are drawn without highlight.
    """
    subgraph = Subgraph(title=title)
    for record in records:
        for value in record.values():
            subgraph.add_value(value)
    subgraph.complete_endpoints(fetch)
    return subgraph
