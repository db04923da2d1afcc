"""What is in the graph: every label and relationship type, their properties sampled, drawn as a meta-graph.

The lists of labels and relationship types are complete: read from GestaltDB's label and type
indexes (:mod:`gestalt_nb.graph.catalog`, one seek per name). Properties and the label pairs a
type joins are discovered from a sample: the adapter's own (``GestaltDBGraph.get_structured_schema``,
the same object its ``GestaltDBSchemaTool`` gives an agent: at most N nodes and M edges in key
order unless asked to be exhaustive), plus up to ``PER_NAME`` nodes of each label and
relationships of each type that sample did not reach. Counts beside it are totals per label and per relationship type, read from
GestaltDB's label and type indexes, bounded: counting stops after ``COUNT_BOUND`` entries ("> N")
unless exhaustive, because GestaltDB keeps no cheap totals. They are not per label pair.
"""

from __future__ import annotations

import copy
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from itertools import islice
from typing import TYPE_CHECKING, Any

from langchain_gestaltdb import GestaltDBGraph

from ..checks import positive
from ..display import Displayable
from ..engine.adapter import type_name as _type_name  # the adapter's own names for property types
from . import catalog
from .bookkeeping import is_bookkeeping, legend_label, legend_type
from .subgraph import Edge, Node, Subgraph

if TYPE_CHECKING:  # only for annotations: capabilities never import the session at run time
    from ..session import Connection

#: The adapter's default sample sizes (GestaltDBGraph's schema_node_limit / schema_edge_limit).
DEFAULT_NODES = 100
DEFAULT_EDGES = 100
#: Label and type counts read at most this many index entries unless exhaustive.
COUNT_BOUND = 10_000
#: For each label or type the adapter's sample missed: nodes / relationships read for its properties.
PER_NAME = 20


@dataclass(eq=False)
class SchemaResult(Displayable):
    schema: dict[str, Any]
    alias: str
    label_counts: dict[str, int] = field(default_factory=dict)
    type_counts: dict[str, int] = field(default_factory=dict)
    #: Counts stop above this many (None: exact, from --exhaustive); names in ``at_bound`` have more.
    count_bound: int | None = None
    at_bound: set[str] = field(default_factory=set)
    #: Labels and types are listed from the indexes (else from the sample: a backend without that listing).
    complete_lists: bool = False
    #: Labels and types the adapter's sample missed, added from the indexes (their properties from ``PER_NAME`` of each).
    from_indexes: list[str] = field(default_factory=list)

    def count_text(self, name: str, counts: dict[str, int]) -> Any:
        """A count for display: the number, or "> N" when counting stopped at the bound."""
        count = counts.get(name)
        return f"> {self.count_bound:,}" if count is not None and name in self.at_bound else count

    @property
    def metadata(self) -> dict[str, Any]:
        return self.schema.get("metadata", {})

    @property
    def labels(self) -> list[str]:
        return sorted(self.schema.get("node_props", {}))

    @property
    def relationship_types(self) -> list[str]:
        return sorted({rel["type"] for rel in self.schema.get("relationships", [])} | set(self.schema.get("rel_props", {})))

    @property
    def indexes(self) -> dict[str, list[str]]:
        stats = self.metadata.get("indexes") or {}
        return {
            "node properties": list(stats.get("indexed_node_properties", ())),
            "relationship properties": list(stats.get("indexed_edge_properties", ())),
        }

    def note(self) -> str:
        meta = self.metadata
        limits = meta.get("node_scan_limit"), meta.get("edge_scan_limit")
        inspected = f"{meta.get('inspected_nodes', 0):,} nodes and {meta.get('inspected_edges', 0):,} relationships"
        if limits == (None, None):
            return f"Exhaustive schema: every node and relationship was inspected ({inspected})."
        added, complete = self.from_indexes, self.complete_lists
        text = (
            "Labels and relationship types are complete (read from the label and type indexes); "
            if complete else "Labels and relationship types come from the sample (this backend has no index listing); "
        )
        text += f"properties and the labels each type joins are sampled from {inspected} (limits: {limits[0]} nodes, {limits[1]} relationships, in key order)"
        if added:
            text += f", plus up to {PER_NAME} of each label or type outside that sample ({', '.join(added[:8])}{', …' if len(added) > 8 else ''})"
        text += "."
        if self.at_bound:
            text += (
                f" Counts stop at {self.count_bound:,} per label and type so the schema stays cheap on big graphs "
                "(shown as > N); --exhaustive counts exactly (a full index scan)."
            )
        if meta.get("truncated"):
            text += " The graph is larger than the sample: properties seen on no sampled node or relationship are not shown. Use --nodes/--edges or --exhaustive to inspect more."
        else:
            text += " The whole graph fit in the sample."
        return text

    @cached_property
    def subgraph(self) -> Subgraph:
        """The meta-graph: one node per label, one edge per (start label, type, end label).

        A bookkeeping label's node is captioned as the legend lists it, in words (``(source)``); its ``label``
        property keeps the stored name, which a query matches."""
        meta = Subgraph(title=f"schema of '{self.alias}'")
        props = self.schema.get("node_props", {})
        for label in sorted(set(props) | {r[k] for r in self.schema.get("relationships", []) for k in ("start", "end")}):
            meta.add_node(
                Node(
                    label,
                    (label,),  # drawn in that label's colour, as its nodes are everywhere else
                    {
                        "name": legend_label((label,)),
                        "label": label,
                        "nodes_with_label": self.count_text(label, self.label_counts),
                        "properties": ", ".join(f"{p['property']}: {p['type']}" for p in props.get(label, [])),
                    },
                )
            )
        for rel in self.schema.get("relationships", []):
            kind = rel["type"]
            meta.add_edge(
                Edge(
                    f"{rel['start']}-[{kind}]->{rel['end']}",
                    rel["start"],
                    rel["end"],
                    kind,
                    {"type": kind, "relationships_of_type": self.count_text(kind, self.type_counts)},
                )
            )
        meta.notes.append(self.note())
        return meta

    @cached_property
    def labels_df(self):
        import pandas as pd

        props = self.schema.get("node_props", {})
        rows = [
            {
                "label": label,
                "bookkeeping": legend_label((label,)) if is_bookkeeping(label) else "",  # as legends say it: (source)
                "nodes": self.count_text(label, self.label_counts),
                "properties": ", ".join(f"{p['property']}: {p['type']}" for p in props.get(label, [])),
            }
            for label in self.labels
        ]
        return pd.DataFrame(rows, columns=["label", "bookkeeping", "nodes", "properties"])

    @cached_property
    def relationships_df(self):
        import pandas as pd

        rel_props = self.schema.get("rel_props", {})
        rows = [
            {
                "type": rel["type"],
                "bookkeeping": _bookkeeping_type(rel),  # as legends say it: (mentions)
                "start": rel["start"],
                "end": rel["end"],
                "relationships of type": self.count_text(rel["type"], self.type_counts),
                "properties": ", ".join(f"{p['property']}: {p['type']}" for p in rel_props.get(rel["type"], [])),
            }
            for rel in self.schema.get("relationships", [])
        ]
        return pd.DataFrame(rows, columns=["type", "bookkeeping", "start", "end", "relationships of type", "properties"])

    def __repr__(self) -> str:
        return f"<SchemaResult '{self.alias}': {len(self.labels)} labels, {len(self.relationship_types)} relationship types>"


def _bookkeeping_type(rel: dict[str, Any]) -> str:
    """How legends list a relationship type joining ``rel``'s labels when it is bookkeeping (``(mentions)``), else ""."""
    words = legend_type(rel["type"], ((rel["start"],), (rel["end"],)))
    return words if words != rel["type"] else ""


def schema(
    connection: Connection,
    *,
    refresh: bool = False,
    nodes: int | None = None,
    edges: int | None = None,
    exhaustive: bool = False,
) -> SchemaResult:
    """The work of :meth:`Connection.schema <gestalt_nb.capabilities.Capabilities.schema>`, ``connection`` first (documented there, once)."""
    db = connection.db
    for name, value in (("--nodes", nodes), ("--edges", edges)):
        if value is not None:
            positive(value, name)
    if exhaustive or nodes is not None or edges is not None:
        graph = GestaltDBGraph(
            db,
            owns_graph=False,
            schema_node_limit=None if exhaustive else (nodes or DEFAULT_NODES),
            schema_edge_limit=None if exhaustive else (edges or DEFAULT_EDGES),
        )
    else:
        graph = connection.graph
        if refresh:
            graph.refresh_schema()
    sampled = graph.get_structured_schema
    structured, added = (sampled, []) if exhaustive else _completed(sampled, db) if graph is connection.graph else _complete(sampled, db)
    labels = set(structured.get("node_props", {})) - {"__unlabeled__"}
    types = {rel["type"] for rel in structured.get("relationships", [])} - {"__untyped__"}
    bound = None if exhaustive else COUNT_BOUND
    label_counts = {label: _count(db.iter_node_ids_by_label(label), bound) for label in sorted(labels)}
    type_counts = {kind: _count(db.iter_edge_ids_by_type(kind), bound) for kind in sorted(types)}
    at_bound = {name for name, count in (*label_counts.items(), *type_counts.items()) if bound is not None and count > bound}
    return SchemaResult(
        structured, connection.alias, label_counts, type_counts, count_bound=bound, at_bound=at_bound,
        complete_lists=exhaustive or catalog.complete(db), from_indexes=added,
    )


def _count(keys: Any, bound: int | None) -> int:
    """How many keys an index iterator yields, reading at most ``bound + 1`` (None: all); above the bound, ``bound + 1``."""
    return sum(1 for _ in (keys if bound is None else islice(keys, bound + 1)))



#: The completed schema per database and adapter sample: listed once, until the sample is refreshed.
_COMPLETED: dict[int, tuple[Any, dict[str, Any], dict[str, Any], list[str]]] = {}


def _completed(sampled: dict[str, Any], db: Any) -> tuple[dict[str, Any], list[str]]:
    """``_complete`` once per adapter sample, so %gschema shows one consistent picture until --refresh."""
    cached = _COMPLETED.get(id(db))
    if cached is None or cached[0] is not db or cached[1] != sampled:
        if len(_COMPLETED) > 16:
            _COMPLETED.clear()
        cached = _COMPLETED[id(db)] = (db, sampled, *_complete(sampled, db))
    return cached[2], cached[3]


def _complete(sampled: dict[str, Any], db: Any) -> tuple[dict[str, Any], list[str]]:
    """The adapter's sample with every label and type it missed (their properties sampled from their
    indexes), and the names added; the sample itself, unchanged, when it missed none."""
    if not catalog.complete(db):
        return sampled, []
    labels = [label for label in catalog.labels(db) if label not in sampled.get("node_props", {})]
    known = {rel["type"] for rel in sampled.get("relationships", [])} | set(sampled.get("rel_props", {}))
    kinds = [kind for kind in catalog.relationship_types(db) if kind not in known]
    if not labels and not kinds:
        return sampled, []
    out = copy.deepcopy(sampled)
    node_props, rel_props, relationships = out.setdefault("node_props", {}), out.setdefault("rel_props", {}), out.setdefault("relationships", [])
    for label in labels:
        nodes = (db.get_node(key) for key in islice(db.iter_node_ids_by_label(label), PER_NAME))
        node_props[label] = _properties(node.properties for node in nodes if node is not None)
    for kind in kinds:
        edges = [edge for edge in (db.get_edge(key) for key in islice(db.iter_edge_ids_by_type(kind), PER_NAME)) if edge is not None]
        rel_props[kind] = _properties({k: v for k, v in edge.properties.items() if k != "type"} for edge in edges)
        pairs = {(start, end) for edge in edges for start in _labels(db, edge.source) for end in _labels(db, edge.target)}
        relationships.extend({"start": start, "type": kind, "end": end} for start, end in sorted(pairs))
    return out, [*labels, *kinds]


def _properties(items: Any) -> list[dict[str, str]]:
    """Property names and type names (as the adapter writes them) over some nodes' or relationships' properties."""
    found: dict[str, set[str]] = defaultdict(set)
    for properties in items:
        for name, value in properties.items():
            found[name].add(_type_name(value))
    return [{"property": name, "type": " | ".join(sorted(kinds))} for name, kinds in sorted(found.items())]


def _labels(db: Any, node_id: Any) -> tuple[str, ...]:
    node = db.get_node(node_id.encode("utf-8") if isinstance(node_id, str) else node_id)
    return tuple(node.labels) if node is not None and node.labels else ("__unlabeled__",)
