"""Checked graph documents → the graph: each batch resolved and written in one transaction through
GestaltDB's bulk calls, linked to its sources, with one change-feed event; the ``ExtractionResult``."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from gestaltdb.graphdb import Edge, Node
from langchain_core.documents import Document
from langchain_gestaltdb.graph_document import GraphDocument, GraphNode

from .. import outputs
from ..display import Displayable, kernel_shell
from ..engine.adapter import digest as _digest
from ..errors import GestaltError
from ..graph import names
from ..graph.adapter import normalize
from ..graph.bookkeeping import MENTIONS, SOURCE_LABEL
from ..graph.subgraph import Subgraph, edge_from_json, node_from_json
from .extracted import Dropped
from .resolution import Merge, Resolver


# -- the result ----------------------------------------------------------------------
@dataclass(eq=False)
class ExtractionResult(Displayable):
    """What ``extract`` (or ``ingest``) did: graph documents, what was dropped and merged, what was written."""

    graph_documents: list[GraphDocument]
    dropped: list[Dropped] = field(default_factory=list)
    merges: list[Merge] = field(default_factory=list)
    written: bool = False
    batches: int = 0
    node_ids: list[str] = field(default_factory=list)
    edge_ids: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    entities: dict[str, Any] = field(default_factory=dict, repr=False)
    edges: dict[str, Any] = field(default_factory=dict, repr=False)
    view_options: dict[str, Any] = field(default_factory=dict, repr=False)

    @cached_property
    def subgraph(self) -> Subgraph:
        """The entities and relationships extracted (merged nodes highlighted); sources are not drawn."""
        drawn = Subgraph(title=f"extracted from {len(self.graph_documents)} documents", notes=list(self.notes))
        merged = {merge.node_id for merge in self.merges}
        for entity in self.entities.values():
            drawn.add_node(node_from_json(normalize(entity.node())), highlight=entity.node_id in merged)
        for edge in self.edges.values():
            drawn.add_edge(edge_from_json(normalize(edge)))
        return drawn

    @cached_property
    def df(self):
        """One row per entity: id, labels, name, aliases, how many sources mention it."""
        import pandas as pd

        rows = [{"id": e.node_id, "labels": ", ".join(sorted(e.labels)), "name": e.name, "aliases": ", ".join(e.aliases),
                 "new": not e.existing} for e in self.entities.values()]
        return pd.DataFrame(rows, columns=["id", "labels", "name", "aliases", "new"])

    @property
    def dropped_df(self):
        import pandas as pd

        return pd.DataFrame([{"document": d.document, "kind": d.kind, "item": json.dumps(d.item, default=str), "reason": d.reason} for d in self.dropped],
                            columns=["document", "kind", "item", "reason"])

    def summary(self) -> str:
        relationships = sum(len(doc.relationships) for doc in self.graph_documents)
        nodes = sum(len(doc.nodes) for doc in self.graph_documents)
        what = f"written in {self.batches} batches" if self.written else "not written"
        return (f"{len(self.graph_documents)} documents → {nodes} nodes, {relationships} relationships extracted; "
                f"{len(self.entities)} entities after {len(self.merges)} merges; {len(self.dropped)} dropped; {what}")

    def __repr__(self) -> str:
        return f"<ExtractionResult {self.summary()}>"


# -- progress ------------------------------------------------------------------------
class Progress:
    """An ipywidgets bar in a kernel, a line on stderr elsewhere (like loading's); silent for one document."""

    def __init__(self, total: int, label: str) -> None:
        self.total, self.done, self.label, self.bar = total, 0, label, None
        self.active = total > 1
        if self.active and kernel_shell() is not None:
            import ipywidgets as w

            self.bar, self.text = w.IntProgress(value=0, max=total, description=label), w.Label()
            self.kept = outputs.Line(w.HBox([self.bar, self.text]), f"{label}: 0 / {total:,} documents")

    def update(self, done: int, note: str = "") -> None:
        self.done += done
        if not self.active:
            return
        line = f"{self.done:,} / {self.total:,} documents{note}"
        if self.bar is not None:
            self.bar.value, self.text.value = self.done, line
            if self.done >= self.total:
                self.kept.say(f"{self.label}: {line}")
        else:
            print(f"\r{self.label}: {line}", end="" if self.done < self.total else "\n", file=sys.stderr)


# -- writing -------------------------------------------------------------------------
def _source(document: Document) -> tuple[str, Node]:
    metadata = normalize(document.metadata)
    identity = ["id", document.id] if document.id is not None else ["content", document.page_content, metadata]
    source_id = f"__lc_source__:{_digest(identity)}"
    return source_id, Node(source_id, labels=[SOURCE_LABEL], properties={"page_content": document.page_content, "metadata": metadata, "document_id": document.id})


def _ensure_indexes(connection: Any) -> None:
    """The name index beside the graph (built once, O(N), the first time a graph without it is written)."""
    db = connection.db
    if not names.built(db):
        connection.index_names()
    else:
        names.catch_up(connection)


def write_batch(connection: Any, resolver: Resolver, documents: list[GraphDocument], batch: int, result: ExtractionResult) -> None:
    """Resolve and write one batch in one transaction; publish one change-feed event after it commits."""
    _ensure_indexes(connection)
    db = connection.db
    touched: dict[str, Any] = {}
    nodes: dict[str, Node] = {}
    edges: dict[str, Edge] = {}
    for document in documents:
        mentioned: set[str] = set()

        def entity(node: GraphNode, mentioned: set[str] = mentioned) -> str:
            found = resolver.resolve(str(node.id), node.type, normalize(node.properties), batch)
            touched[found.node_id] = found
            mentioned.add(found.node_id)
            return found.node_id

        for node in document.nodes:
            entity(node)
        for rel in document.relationships:
            source, target = entity(rel.source), entity(rel.target)
            properties = {**normalize(rel.properties), "type": rel.type}
            identity = ["explicit", rel.id] if rel.id is not None else ["fact", source, target, properties]
            edge = Edge(f"__lc_edge__:{_digest(identity)}", source, target, properties)
            edges[edge.get_id] = edge
            result.edges[edge.get_id] = edge
        if document.source is None:
            raise GestaltError("Every graph document needs its source Document (include_source): nothing of this batch was written.")
        source_id, source_node = _source(document.source)
        nodes[source_id] = source_node
        for target in sorted(mentioned):
            edge = Edge(f"__lc_mention__:{_digest([source_id, target])}", source_id, target, {"type": MENTIONS})
            edges[edge.get_id] = edge
    for node_id, found in touched.items():
        nodes[node_id] = found.node()
        result.entities[node_id] = found
    keys = [edge.get_id_bytes for edge in edges.values()]
    present = set(db.store.get_edges_bulk(keys)) if keys else set()
    new_edges = [edge for edge in edges.values() if edge.get_id_bytes not in present]
    try:
        with db.transaction() as tx:
            names.put_nodes(tx, list(nodes.values()))
            if new_edges:
                tx.put_edges_bulk(new_edges, check_existing=False)
            names.advance(tx)
    except Exception as exc:
        before = f" {result.batches} earlier batches stay written." if result.batches else " Nothing was written."
        raise GestaltError(f"Writing batch {batch + 1} failed and was rolled back:{before} ({type(exc).__name__}: {exc})") from exc
    result.batches += 1
    result.written = True
    result.node_ids = list(dict.fromkeys([*result.node_ids, *touched]))
    result.edge_ids.extend(edge.get_id for edge in new_edges)
    connection.feed.publish("extract", [*nodes, *(edge.get_id for edge in new_edges)], exact=True)


def refresh(connection: Any, result: ExtractionResult) -> None:
    """Once per call, after what was written: the schema cache (and tools built on it) see the new data."""
    if result.written:
        connection.graph.refresh_schema()


def resolve_only(resolver: Resolver, documents: list[GraphDocument], batch: int, result: ExtractionResult) -> None:
    """``ingest=False``: the same resolution (reads only), so merges are listed, and nothing is written."""
    for document in documents:
        for node in [*document.nodes, *(end for rel in document.relationships for end in (rel.source, rel.target))]:
            found = resolver.resolve(str(node.id), node.type, normalize(node.properties), batch)
            result.entities[found.node_id] = found
        for rel in document.relationships:
            source = resolver.resolve(str(rel.source.id), rel.source.type, {}, batch).node_id
            target = resolver.resolve(str(rel.target.id), rel.target.type, {}, batch).node_id
            properties = {**normalize(rel.properties), "type": rel.type}
            edge = Edge(f"__lc_edge__:{_digest(['fact', source, target, properties])}", source, target, properties)
            result.edges[edge.get_id] = edge
