"""Draw what a ``GestaltDBRetriever`` traversed: seeds, path edges and every entity once.

The retriever is the adapter's own; this module only runs it and reads ``Document.metadata``
(``paths``, ``is_seed``, the truncation flags). When nothing comes back it says why, including
the silent case: indexed seeding without the property index finds nothing and raises nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from langchain_core.documents import Document
from langchain_gestaltdb import GestaltDBRetriever, RetrievalHop

from ..display import Displayable
from ..errors import GestaltError
from . import catalog
from .convert import AsGraph
from .ids import as_loaded
from .subgraph import Edge, Node, Subgraph, edge_from_json

if TYPE_CHECKING:  # only for annotations: capabilities never import the session at run time
    from ..session import Connection

FLAGS = ("result_truncated", "content_truncated", "sources_truncated")
#: The adapter's per-hop sample cap (RetrievalHop.sample_size <= 100).
MAX_FANOUT = 100


@dataclass(eq=False)
class Retrieval(Displayable, AsGraph):
    query: str
    documents: list[Document]
    connection: Connection
    retriever: GestaltDBRetriever
    reasons: list[str] = field(default_factory=list)

    @cached_property
    def subgraph(self) -> Subgraph:
        """Entities from the documents (seeds highlighted) and every path edge (highlighted)."""
        subgraph = Subgraph(title=f"retrieval: {self.query}")
        steps: dict[str, dict[str, Any]] = {}
        for document in self.documents:
            meta = document.metadata
            subgraph.add_node(Node(meta["id"], tuple(meta.get("labels", ())), dict(meta.get("properties", {}))), highlight=meta.get("is_seed", False))
            for path in meta.get("paths", []):
                for step in path["steps"]:
                    steps.setdefault(step["edge_id"], step)
        fetched = {raw["id"]: edge_from_json(raw) for raw in self.connection.edges(list(steps))}
        for edge_id, step in steps.items():
            edge = fetched.get(edge_id) or Edge(edge_id, step["source_id"], step["target_id"], step["edge_type"], {"type": step["edge_type"]})
            subgraph.add_edge(edge, highlight=True)
        # Entities cut by max_entities can still sit on a drawn path: draw them, unhighlighted.
        subgraph.complete_endpoints(self.connection.nodes)
        subgraph.notes.extend(self.notes())
        return subgraph

    def notes(self) -> list[str]:
        flagged = {flag: sum(bool(doc.metadata.get(flag)) for doc in self.documents) for flag in FLAGS}
        notes = [f"{count} of {len(self.documents)} documents report {flag.replace('_', ' ')}." for flag, count in flagged.items() if count]
        sampled = [
            f"Hop {hop['hop']} ({hop['type']}:{hop['direction']}): drew {hop['drawn']:,} of {hop['total']:,} relationships "
            f"from {hop['from']:,} node(s) (per-hop sample {hop['sample_size']}). Draw them all with retrieval.expand_all() "
            f"or --hop {hop['type']}:{hop['direction']}:{min(hop['most'], MAX_FANOUT)}."
            for hop in self.sampling
            if hop["drawn"] < hop["total"]
        ]
        return [*self.reasons, *notes, *sampled, *self.hints()]

    def hints(self) -> list[str]:
        """When the hops reached nothing: the relationship types the seeds do have (their own adjacency, not the schema sample)."""
        if not self.retriever.hops or any(path.get("steps") for doc in self.documents for path in doc.metadata.get("paths", [])):
            return []
        db, hints = self.connection.db, []
        for document in self.documents[:5]:
            if not document.metadata.get("is_seed"):
                continue
            own = catalog.node_types(db, document.metadata["id"], self.connection.graph)
            asked = ", ".join(f"{hop.edge_type}:{hop.direction}" for hop in self.retriever.hops)
            if own:
                have = ", ".join(f"{kind} ({counts['out']} out, {counts['in']} in)" for kind, counts in own.items())
                first = next(iter(own))
                hints.append(f"Seed {as_loaded(document.metadata['id'])!r} has no path over {asked}; its relationships: {have}. Try --hop {first}:any.")
            else:
                hints.append(f"Seed {as_loaded(document.metadata['id'])!r} has no relationships at all.")
        return hints

    @cached_property
    def sampling(self) -> list[dict[str, Any]]:
        """Per hop: how many relationships the walk drew (``drawn``) of how many the frontier has (``total``;
        ``most`` for its busiest node).

        The frontier of hop 1 is the seeds; of hop k the nodes reached at hop k-1. Counts come from
        GestaltDB's typed adjacency counts (one per frontier node), so they are exact for what was reached.
        """
        hops = list(self.retriever.hops)
        if not hops or not self.documents:
            return []
        frontiers: list[set[str]] = [set() for _ in range(len(hops) + 1)]
        drawn: list[set[str]] = [set() for _ in hops]
        for document in self.documents:
            meta = document.metadata
            if meta.get("is_seed"):
                frontiers[0].add(meta["id"])
            for path in meta.get("paths", []):
                frontiers[0].add(path["seed"])
                for depth, step in enumerate(path["steps"][: len(hops)]):
                    drawn[depth].add(step["edge_id"])
                    frontiers[depth + 1].add(step["neighbor_id"])
        db = self.connection.db
        report = []
        for depth, hop in enumerate(hops):
            counts = [db.count_typed_adjacency(node, hop.edge_type, hop.direction) for node in frontiers[depth]]
            report.append(
                {"hop": depth + 1, "type": hop.edge_type, "direction": hop.direction, "sample_size": hop.sample_size,
                 "from": len(frontiers[depth]), "drawn": len(drawn[depth]), "total": sum(counts), "most": max(counts, default=0)}
            )
        return report

    @property
    def truncated(self) -> bool:
        """True when a cap cut the documents or a per-hop sample left relationships out."""
        return any(doc.metadata.get("truncated") for doc in self.documents) or any(hop["drawn"] < hop["total"] for hop in self.sampling)

    def expand_all(self, *, max_entities: int | None = None) -> Retrieval:
        """Run again with every hop's sample raised to what its frontier needs (at most 100, the
        adapter's per-hop cap) and ``max_paths``/``max_entities`` raised to match (at most ``max_entities``,
        default 200 nodes). What still does not fit is said in the notes."""
        r = self.retriever
        budget = min(1000, max_entities or max(r.max_entities, 200))
        needed = {hop["hop"]: min(MAX_FANOUT, max(hop["sample_size"], hop["most"])) for hop in self.sampling}  # the largest frontier degree
        hops = tuple(hop.model_copy(update={"sample_size": needed.get(i + 1, hop.sample_size)}) for i, hop in enumerate(r.hops))
        wider = r.model_copy(update={"hops": hops, "max_paths": min(1000, max(r.max_paths, budget)), "max_entities": budget})
        return retrieve(self.connection, wider, self.query)

    @cached_property
    def df(self):
        import pandas as pd

        rows = []
        for document in self.documents:
            meta = document.metadata
            rows.append(
                {
                    "id": as_loaded(meta["id"]),
                    "labels": ", ".join(meta.get("labels", [])),
                    "seed": meta.get("is_seed", False),
                    "hops": meta.get("hops", 0),
                    "relationship types": ", ".join(meta.get("relationship_types", [])),
                    "sources": len(meta.get("sources", [])),
                    **{flag: meta.get(flag, False) for flag in FLAGS},
                }
            )
        columns = ["id", "labels", "seed", "hops", "relationship types", "sources", *FLAGS]
        return pd.DataFrame(rows, columns=columns)

    def settings_rows(self) -> list[tuple[str, str]]:
        r = self.retriever
        if r.seed_ids:
            seeding = f"seed ids: {', '.join(str(as_loaded(seed)) for seed in r.seed_ids)}"
        elif r.seed_label is not None:
            seeding = f"index lookup: (:{r.seed_label} {{{r.seed_property}: query}})"
        else:
            seeding = "seed resolver (caller supplied)"
        hops = " → ".join(f"{hop.edge_type}:{hop.direction}:{hop.sample_size}" for hop in r.hops) or "none (seeds only)"
        return [
            ("query", self.query),
            ("seeding", seeding),
            ("hops", hops),
            ("caps", f"max_seeds={r.max_seeds}, max_paths={r.max_paths}, max_entities={r.max_entities}, max_content_chars={r.max_content_chars}"),
            ("documents", str(len(self.documents))),
        ]

    def __repr__(self) -> str:
        return f"<Retrieval {self.query!r}: {len(self.documents)} documents; {self.subgraph.summary()}>"


def why_empty(retriever: GestaltDBRetriever, query: str) -> list[str]:
    """Plain reasons a retrieval returned no documents."""
    db = retriever.graph.graph
    if retriever.seed_ids:
        missing = [seed for seed in retriever.seed_ids if db.get_node(db.node_key_to_bytes(seed)) is None]
        return [f"None of the seed ids exist in the graph: {', '.join(str(as_loaded(seed)) for seed in missing)}."]
    if retriever.seed_label is not None:
        prop = retriever.seed_property
        if prop not in db.indexed_node_properties:
            return [
                f"The retriever seeds through a property index on '{prop}', and there is none, so indexed seeding "
                f"silently finds nothing. Create it with connection.db.create_node_property_index('{prop}'), or seed by ids."
            ]
        return [f"No :{retriever.seed_label} node has {prop} = {query!r} (exact match on the index)."]
    return [f"The seed resolver returned no existing node for {query!r}."]


def retrieve(connection: Connection, retriever: GestaltDBRetriever, query: str) -> Retrieval:
    """Run ``retriever`` for ``query`` and keep what it returned, with reasons when it is empty."""
    try:
        documents = retriever.invoke(query)
    except Exception as exc:
        raise GestaltError(f"Retrieval failed: {exc}") from exc
    reasons = [] if documents else why_empty(retriever, query)
    return Retrieval(query, documents, connection, retriever, reasons)


def parse_hop(text: str) -> RetrievalHop:
    """``TYPE[:out|in|any[:N]]`` → RetrievalHop, e.g. ``KNOWS``, ``WORKS_FOR:in``, ``KNOWS:any:5``."""
    parts = text.split(":")
    if not parts[0] or len(parts) > 3:
        raise GestaltError(f"Cannot read hop {text!r}; write TYPE[:out|in|any[:N]], e.g. KNOWS:out:5.")
    try:
        return RetrievalHop(
            edge_type=parts[0],
            direction=parts[1] if len(parts) > 1 else "out",
            sample_size=int(parts[2]) if len(parts) > 2 else 10,
        )
    except (ValueError, TypeError) as exc:
        raise GestaltError(f"Cannot read hop {text!r}: direction is out, in or any; N is 1–100.") from exc
