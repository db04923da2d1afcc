"""Documents → ``ExtractedGraph`` (the model's structured output) → checked graph documents → the graph.

Each document is one model call through ``with_structured_output(ExtractedGraph)``, so any
tool-calling chat model can answer. Allowed types go into the prompt and into the schema (as
enums); output that breaks the enums is still read with the plain schema, so each part that does
not conform can be dropped with its reason instead of losing the whole document. ``validate="warn"``
writes what conforms and reports the rest (``dropped``, and one Python warning per call);
``"error"`` extracts and checks the whole call first and raises before anything is written.

Writing: documents go in batches of ``batch_size``; each batch is resolved
(:mod:`.resolution`) and written in one transaction through GestaltDB's bulk calls, with a
``__LangChainSource__`` node per document and a ``MENTIONS`` relationship to every entity it
produced (the adapter's ``include_source=True`` ids, so LangChain graph documents land on the
same nodes), and one change-feed event per batch. A batch that fails is rolled back; batches
before it stay written (the error says how many). Names are kept as written.
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from gestaltdb.graphdb import Edge, Node
from langchain_core.documents import Document
from langchain_gestaltdb._ingestion import _digest
from langchain_gestaltdb._serialization import normalize
from langchain_gestaltdb.graph_document import GraphDocument, GraphNode, GraphRelationship
from pydantic import BaseModel, Field, ValidationError, create_model

from ..graph import names
from ..display import Shown
from ..errors import GestaltError
from ..graph.subgraph import Subgraph, edge_from_json, node_from_json
from . import prompts
from .resolution import NORM_KEY, Merge, Resolver, normalise

#: Documents per batch (one transaction and one change-feed event each).
BATCH_SIZE = 10
#: Characters of each document sent to the model; longer documents are cut (and the result says so).
MAX_DOCUMENT_CHARS = 12_000
#: Characters of the examples put into the prompt.
MAX_EXAMPLE_CHARS = 4_000
#: Most documents one call takes.
MAX_DOCUMENTS = 10_000
SOURCE_LABEL = "__LangChainSource__"
MENTIONS = "MENTIONS"


class ExtractedNode(BaseModel):
    id: str = Field(description="The entity's name exactly as written in the text.")
    type: str = Field(description="The kind of entity, e.g. Person, Organization.")
    properties: dict[str, Any] = Field(default_factory=dict, description="Other facts about the entity stated in the text.")


class ExtractedRelationship(BaseModel):
    source_id: str = Field(description="id of the source node.")
    target_id: str = Field(description="id of the target node.")
    type: str = Field(description="Relationship type in UPPER_SNAKE_CASE, e.g. WORKS_AT.")
    properties: dict[str, Any] = Field(default_factory=dict)


class ExtractedGraph(BaseModel):
    """The entities and relationships stated in a text."""

    nodes: list[ExtractedNode] = Field(default_factory=list)
    relationships: list[ExtractedRelationship] = Field(default_factory=list)


def schema_for(node_types: list[str] | None, relationship_types: list[str] | None) -> type[BaseModel]:
    """``ExtractedGraph`` with the allowed types as enums (the plain schema when nothing is restricted)."""
    if not node_types and not relationship_types:
        return ExtractedGraph
    node_type = Literal[tuple(node_types)] if node_types else str  # type: ignore[valid-type]
    rel_type = Literal[tuple(relationship_types)] if relationship_types else str  # type: ignore[valid-type]
    node = create_model("ExtractedNode", __base__=ExtractedNode, type=(node_type, Field(description="The kind of entity.")))
    rel = create_model("ExtractedRelationship", __base__=ExtractedRelationship, type=(rel_type, Field(description="Relationship type.")))
    return create_model(
        "ExtractedGraph", __doc__=ExtractedGraph.__doc__,
        nodes=(list[node], Field(default_factory=list)), relationships=(list[rel], Field(default_factory=list)),
    )


@dataclass
class Dropped:
    """A part of the model's output (or a whole document) that was not written, and why."""

    document: int
    kind: str  # "node" | "relationship" | "document"
    item: Any
    reason: str

    def __str__(self) -> str:
        return f"document {self.document}, {self.kind} {self.item!r}: {self.reason}"


@dataclass
class Allowed:
    nodes: dict[str, str] | None  # casefolded → spelling
    types: dict[str, str] | None
    triples: set[tuple[str, str, str]] | None
    spelled: list[tuple[str, str, str]] = field(default_factory=list)

    @classmethod
    def of(cls, node_types: Any, relationship_types: Any) -> Allowed:
        nodes = None
        if node_types is not None:
            if isinstance(node_types, str) or not all(isinstance(item, str) and item for item in node_types):
                raise GestaltError("allowed_node_types must be a list of type names, e.g. ['Person', 'Organization'].")
            nodes = {item.casefold(): item for item in node_types}
        types = triples = None
        spelled: list[tuple[str, str, str]] = []
        if relationship_types is not None:
            items = list(relationship_types) if not isinstance(relationship_types, str) else None
            if not items or not (all(isinstance(i, str) and i for i in items) or all(isinstance(i, (tuple, list)) and len(i) == 3 and all(isinstance(p, str) for p in i) for i in items)):
                raise GestaltError("allowed_relationship_types must be a list of type names or of (source_type, type, target_type) triples.")
            if isinstance(items[0], str):
                types = {item.casefold(): item for item in items}
            else:
                triples = {(s.casefold(), t.casefold(), o.casefold()) for s, t, o in items}
                spelled = sorted({tuple(item) for item in items})
                types = {t.casefold(): t for _, t, _ in items}
                if nodes is None:
                    nodes = {p.casefold(): p for s, _, o in items for p in (s, o)}
        return cls(nodes, types, triples, spelled if triples else [])

    def text(self) -> str:
        parts = []
        if self.nodes:
            parts.append("Allowed node types: " + ", ".join(sorted(self.nodes.values())) + ".")
        if self.triples:
            parts.append("Allowed relationships (source type, type, target type): " + "; ".join(f"({s}, {t}, {o})" for s, t, o in self.spelled) + ". Use the type names exactly as listed.")
        elif self.types:
            parts.append("Allowed relationship types: " + ", ".join(sorted(self.types.values())) + ".")
        return (" ".join(parts) + " Leave out anything else.\n") if parts else ""


# -- asking the model ----------------------------------------------------------------
def _asked(model: Any, schema: type[BaseModel], texts: list[str], concurrency: int) -> list[tuple[ExtractedGraph | None, str | None]]:
    """Each prompt's graph, or (None, why): one call per prompt, ``concurrency`` at a time."""
    try:
        structured = model.with_structured_output(schema, include_raw=True)
    except Exception as exc:  # noqa: BLE001
        raise GestaltError(f"The model cannot give structured output ({type(exc).__name__}: {exc}); extract needs a tool-calling chat model.") from None
    if concurrency > 1 and len(texts) > 1:
        answers = structured.batch(texts, config={"max_concurrency": concurrency}, return_exceptions=True)
    else:
        answers = []
        for text in texts:
            try:
                answers.append(structured.invoke(text))
            except Exception as exc:  # noqa: BLE001 - one failed document is reported, not fatal
                answers.append(exc)
    return [_parsed(answer) for answer in answers]


def _parsed(answer: Any) -> tuple[ExtractedGraph | None, str | None]:
    """The model's graph (read with the plain schema when the strict one refused it), or (None, why)."""
    if isinstance(answer, Exception):
        return None, f"the model call failed ({type(answer).__name__}: {str(answer).splitlines()[0] if str(answer) else ''})"
    if not isinstance(answer, dict):
        answer = {"parsed": answer, "raw": None}
    parsed = answer.get("parsed")
    if isinstance(parsed, BaseModel):
        return ExtractedGraph.model_validate(parsed.model_dump()), None
    raw = answer.get("raw")
    candidates = [call.get("args") for call in getattr(raw, "tool_calls", None) or []]
    content = getattr(raw, "content", None)
    if isinstance(content, str) and content.strip().startswith("{"):
        try:
            candidates.append(json.loads(content))
        except ValueError:
            pass
    error = None
    for candidate in candidates:
        try:
            return ExtractedGraph.model_validate(candidate), None
        except ValidationError as exc:
            error = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:3])
    return None, f"the model's output is not an ExtractedGraph ({error})" if error else "the model gave no ExtractedGraph"


def _checked(index: int, graph: ExtractedGraph, allowed: Allowed, source: Document) -> tuple[GraphDocument, list[Dropped]]:
    """The parts of ``graph`` that conform, as a graph document, and each dropped part with its reason."""
    dropped: list[Dropped] = []
    kept: dict[str, GraphNode] = {}
    by_key: dict[str, str] = {}
    for node in graph.nodes:
        name, kind = node.id.strip(), node.type.strip()
        if not name or not kind:
            dropped.append(Dropped(index, "node", node.model_dump(), "empty id or type"))
            continue
        if allowed.nodes is not None:
            if kind.casefold() not in allowed.nodes:
                dropped.append(Dropped(index, "node", node.model_dump(), f"type {kind!r} is not allowed (allowed: {', '.join(sorted(allowed.nodes.values()))})"))
                continue
            kind = allowed.nodes[kind.casefold()]
        if name in kept:  # the same node twice in one answer: one node, properties merged
            kept[name] = GraphNode(id=name, type=kept[name].type, properties={**kept[name].properties, **normalize(node.properties)})
            continue
        kept[name] = GraphNode(id=name, type=kind, properties=normalize(node.properties))
        key = normalise(name)
        if key is not None:
            by_key.setdefault(key, name)
    dropped_names = {d.item["id"].strip() for d in dropped if d.kind == "node" and isinstance(d.item.get("id"), str)}

    def endpoint(value: str) -> GraphNode | None:
        value = value.strip()
        if value in kept:
            return kept[value]
        key = normalise(value)
        return kept.get(by_key.get(key, "")) if key is not None else None

    relationships = []
    for rel in graph.relationships:
        item = rel.model_dump()
        ends = []
        for role, value in (("source", rel.source_id), ("target", rel.target_id)):
            node = endpoint(value)
            if node is None:
                why = "was dropped" if value.strip() in dropped_names else "is not one of the extracted nodes"
                dropped.append(Dropped(index, "relationship", item, f"its {role} {value!r} {why}"))
                break
            ends.append(node)
        if len(ends) < 2:
            continue
        kind = rel.type.strip()
        if not kind:
            dropped.append(Dropped(index, "relationship", item, "empty type"))
            continue
        if allowed.types is not None:
            if kind.casefold() not in allowed.types:
                dropped.append(Dropped(index, "relationship", item, f"type {kind!r} is not allowed (allowed: {', '.join(sorted(allowed.types.values()))})"))
                continue
            kind = allowed.types[kind.casefold()]
            if allowed.triples is not None and (ends[0].type.casefold(), kind.casefold(), ends[1].type.casefold()) not in allowed.triples:
                dropped.append(Dropped(index, "relationship", item, f"({ends[0].type}, {kind}, {ends[1].type}) is not an allowed triple"))
                continue
        properties = normalize(rel.properties)
        properties.pop("type", None)
        relationships.append(GraphRelationship(source=ends[0], target=ends[1], type=kind, properties=properties))
    return GraphDocument(nodes=list(kept.values()), relationships=relationships, source=source), dropped


# -- the result ----------------------------------------------------------------------
@dataclass(eq=False)
class ExtractionResult(Shown):
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
class _Progress:
    """An ipywidgets bar in a kernel, a line on stderr elsewhere (like loading's); silent for one document."""

    def __init__(self, total: int, label: str) -> None:
        from ..data.loading import _kernel_shell

        self.total, self.done, self.label, self.bar = total, 0, label, None
        self.active = total > 1
        if self.active and _kernel_shell() is not None:
            import ipywidgets as w
            from IPython.display import display

            self.bar, self.text = w.IntProgress(value=0, max=total, description=label), w.Label()
            display(w.HBox([self.bar, self.text]))

    def update(self, done: int, note: str = "") -> None:
        self.done += done
        if not self.active:
            return
        line = f"{self.done:,} / {self.total:,} documents{note}"
        if self.bar is not None:
            self.bar.value, self.text.value = self.done, line
        else:
            print(f"\r{self.label}: {line}", end="" if self.done < self.total else "\n", file=sys.stderr)


# -- writing -------------------------------------------------------------------------
def _source(document: Document) -> tuple[str, Node]:
    metadata = normalize(document.metadata)
    identity = ["id", document.id] if document.id is not None else ["content", document.page_content, metadata]
    source_id = f"__lc_source__:{_digest(identity)}"
    return source_id, Node(source_id, labels=[SOURCE_LABEL], properties={"page_content": document.page_content, "metadata": metadata, "document_id": document.id})


def _ensure_indexes(connection: Any) -> None:
    db = connection.db
    if not names.has_index(db):
        if next(iter(db.get_node_keys_generator()), None) is None:
            db.create_node_property_index(names.NAME_KEY)  # an empty graph: nothing to backfill
            db.indexed_node_properties.add(names.NAME_KEY)
        else:
            connection.index_names()  # one O(N) backfill, the first time a graph without it is written
    if NORM_KEY not in db.indexed_node_properties:
        db.create_node_property_index(NORM_KEY)


def write_batch(connection: Any, resolver: Resolver, documents: list[GraphDocument], batch: int, result: ExtractionResult) -> None:
    """Resolve and write one batch in one transaction; publish one change-feed event after it commits."""
    _ensure_indexes(connection)
    db = connection.db
    touched: dict[str, Any] = {}
    nodes: dict[str, Node] = {}
    edges: dict[str, Edge] = {}
    for document in documents:
        mentioned: set[str] = set()

        def entity(node: GraphNode) -> str:
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
            tx.put_nodes(names.keyed(tx, list(nodes.values())))
            if new_edges:
                tx.put_edges_bulk(new_edges, check_existing=False)
    except Exception as exc:
        before = f" {result.batches} earlier batches stay written." if result.batches else " Nothing was written."
        raise GestaltError(f"Writing batch {batch + 1} failed and was rolled back:{before} ({type(exc).__name__}: {exc})") from exc
    result.batches += 1
    result.written = True
    result.node_ids = list(dict.fromkeys([*result.node_ids, *touched]))
    result.edge_ids.extend(edge.get_id for edge in new_edges)
    connection.feed.publish("extract", [*nodes, *(edge.get_id for edge in new_edges)], exact=True)


def _refresh(connection: Any, result: ExtractionResult) -> None:
    """Once per call, after what was written: the schema cache (and tools built on it) see the new data."""
    if result.written:
        connection.graph.refresh_schema()


def _documents(documents: Any) -> list[Document]:
    if isinstance(documents, (str, Document)):
        documents = [documents]
    try:
        items = list(documents)
    except TypeError:
        raise GestaltError("extract needs a list of LangChain Documents (or strings).") from None
    if len(items) > MAX_DOCUMENTS:
        raise GestaltError(f"{len(items):,} documents is more than one call takes ({MAX_DOCUMENTS:,}); split them.")
    out = []
    for position, item in enumerate(items):
        if isinstance(item, str):
            item = Document(page_content=item)
        if not isinstance(item, Document) or not item.page_content.strip():
            raise GestaltError(f"Document {position} is not a non-empty LangChain Document or string.")
        out.append(item)
    return out


def _report(result: ExtractionResult, validate: str) -> None:
    if not result.dropped:
        return
    shown = "; ".join(str(item) for item in result.dropped[:5])
    more = f" (and {len(result.dropped) - 5} more: see .dropped)" if len(result.dropped) > 5 else ""
    if validate == "error":
        raise GestaltError(f"validate='error': {len(result.dropped)} extracted parts do not conform — {shown}{more}. Nothing was written.")
    warnings.warn(f"extract dropped {len(result.dropped)} parts that do not conform: {shown}{more}", UserWarning, stacklevel=4)


def extract(
    connection: Any,
    documents: Any,
    model: Any,
    *,
    allowed_node_types: list[str] | None = None,
    allowed_relationship_types: list[Any] | None = None,
    validate: str = "warn",
    examples: Any = None,
    prompt: str | None = None,
    ingest: bool = True,
    batch_size: int = BATCH_SIZE,
    max_document_chars: int = MAX_DOCUMENT_CHARS,
    max_concurrency: int = 1,
    fuzzy: float | None = None,
) -> ExtractionResult:
    """Extract a graph from ``documents`` with ``model`` and (unless ``ingest=False``) write it to ``connection``."""
    if validate not in ("warn", "error"):
        raise GestaltError(f"validate must be 'warn' or 'error', not {validate!r}.")
    if not hasattr(model, "with_structured_output"):
        raise GestaltError(f"extract needs a LangChain chat model (with_structured_output); got a {type(model).__name__}.")
    for name, value in (("batch_size", batch_size), ("max_document_chars", max_document_chars), ("max_concurrency", max_concurrency)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise GestaltError(f"{name} must be a positive whole number, not {value!r}.")
    docs = _documents(documents)
    allowed = Allowed.of(allowed_node_types, allowed_relationship_types)
    schema = schema_for(sorted(allowed.nodes.values()) if allowed.nodes else None, sorted(allowed.types.values()) if allowed.types else None)
    template = prompt if prompt is not None else prompts.EXTRACTION_PROMPT
    example_text = ""
    if examples:
        example_text = examples if isinstance(examples, str) else json.dumps(normalize(examples), ensure_ascii=False)
        if len(example_text) > MAX_EXAMPLE_CHARS:
            example_text = example_text[:MAX_EXAMPLE_CHARS] + " …(examples cut)"
        example_text = f"Examples of the output wanted:\n{example_text}\n"
    started = time.perf_counter()
    result = ExtractionResult(graph_documents=[])
    resolver = Resolver(connection.db, fuzzy=fuzzy)
    pending: list[tuple[int, list[GraphDocument]]] = []
    progress = _Progress(len(docs), "extracting")
    for batch, offset in enumerate(range(0, len(docs), batch_size)):
        extracted = []
        texts = []
        for index, document in enumerate(docs[offset : offset + batch_size], start=offset):
            text = document.page_content
            if len(text) > max_document_chars:
                result.notes.append(f"Document {index}: only the first {max_document_chars:,} of {len(text):,} characters were sent to the model.")
                text = text[:max_document_chars]
            texts.append(template.format(types=allowed.text(), examples=example_text, text=text))
        answers = _asked(model, schema, texts, max_concurrency)
        for (index, document), (graph, failure) in zip(enumerate(docs[offset : offset + batch_size], start=offset), answers):
            if graph is None:
                result.dropped.append(Dropped(index, "document", document.id or document.page_content[:60], failure))
                progress.update(1)
                continue
            checked, dropped = _checked(index, graph, allowed, document)
            result.graph_documents.append(checked)
            result.dropped.extend(dropped)
            extracted.append(checked)
            progress.update(1)
        if validate == "warn" and ingest:
            try:
                write_batch(connection, resolver, extracted, batch, result)  # the graph grows batch by batch
            except GestaltError:
                _refresh(connection, result)
                raise
        else:
            pending.append((batch, extracted))
    result.seconds = time.perf_counter() - started
    _report(result, validate)  # raises under "error": nothing has been written yet
    try:
        for batch, extracted in pending:
            if ingest:
                write_batch(connection, resolver, extracted, batch, result)
            else:
                _resolve_only(resolver, extracted, batch, result)
    finally:
        _refresh(connection, result)
    result.merges = list(resolver.merges)
    result.seconds = time.perf_counter() - started
    return result


def _resolve_only(resolver: Resolver, documents: list[GraphDocument], batch: int, result: ExtractionResult) -> None:
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


def ingest(connection: Any, graph_documents: Any, *, batch_size: int = BATCH_SIZE, fuzzy: float | None = None) -> ExtractionResult:
    """Write graph documents made elsewhere (e.g. LangChain's ``LLMGraphTransformer``) the way ``extract`` does.

    Anything with the fields of a graph document is accepted (``GraphDocument.from_external``:
    nodes with ``id``/``type``/``properties``, relationships with ``source``/``target``/``type``,
    and a ``source`` Document, which every document needs). Resolution, source links, batches and
    feed events are those of ``extract``; nothing is dropped.
    """
    try:
        documents = [GraphDocument.from_external(item) for item in graph_documents]
    except (ValidationError, TypeError, ValueError) as exc:
        raise GestaltError(f"Not graph documents (nodes, relationships, source): {str(exc).splitlines()[0]}. Nothing was written.") from None
    missing = [position for position, doc in enumerate(documents) if doc.source is None]
    if missing:
        raise GestaltError(f"Graph document {missing[0]} has no source Document; every one needs it so its entities link to their text. Nothing was written.")
    started = time.perf_counter()
    result = ExtractionResult(graph_documents=documents)
    resolver = Resolver(connection.db, fuzzy=fuzzy)
    try:
        for batch, offset in enumerate(range(0, len(documents), batch_size)):
            write_batch(connection, resolver, documents[offset : offset + batch_size], batch, result)
    finally:
        _refresh(connection, result)
    result.merges = list(resolver.merges)
    result.seconds = time.perf_counter() - started
    return result
