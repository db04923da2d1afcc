"""What the model is asked for (``ExtractedGraph``, as a schema restricted to the allowed types) and how each
part of its answer is checked: a part that does not conform is dropped with its reason."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.documents import Document
from langchain_gestaltdb.graph_document import GraphDocument, GraphNode, GraphRelationship
from pydantic import BaseModel, Field, ValidationError, create_model

from ..errors import GestaltError
from ..graph.adapter import normalize
from .resolution import normalise


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
    node_type = Literal[tuple(node_types)] if node_types else str  # type: ignore[valid-type]  # a Literal of the types given at run time, as pydantic reads it
    rel_type = Literal[tuple(relationship_types)] if relationship_types else str  # type: ignore[valid-type]  # a Literal of the types given at run time, as pydantic reads it
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
def ask(model: Any, schema: type[BaseModel], texts: list[str], concurrency: int) -> list[tuple[ExtractedGraph | None, str | None]]:
    """Each prompt's graph, or (None, why): one call per prompt, ``concurrency`` at a time."""
    try:
        structured = model.with_structured_output(schema, include_raw=True)
    except Exception as exc:
        raise GestaltError(f"The model cannot give structured output ({type(exc).__name__}: {exc}); extract needs a tool-calling chat model.") from None
    if concurrency > 1 and len(texts) > 1:
        answers = structured.batch(texts, config={"max_concurrency": concurrency}, return_exceptions=True)
    else:
        answers = []
        for text in texts:
            try:
                answers.append(structured.invoke(text))
            except Exception as exc:
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


def check(index: int, graph: ExtractedGraph, allowed: Allowed, source: Document) -> tuple[GraphDocument, list[Dropped]]:
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
