"""A question in words → a bounded, inspectable ``QueryPlan`` → ``query_subgraph``.

``plan(question, model)`` gives a chat model the graph's schema (labels, relationship types,
property names) and asks for a ``QueryPlan`` through ``with_structured_output``. The plan is then
checked: relationship types not in the graph are dropped (matched case-insensitively, reported in
``dropped_relations``), and entities that resolve to no node are listed in ``unresolved_entities``.
Any failure — an exception, no structured answer, output that does not validate (a field out of
range such as ``max_hops`` 9 is invalid: never clamped), a timeout — gives a *broad search*
instead: the question's words and word pairs/triples that name a node (through the name index),
one hop, default bounds; or, when none does, a bounded whole-graph sample. ``is_broad_search``
and ``fallback_reason`` say so. The model may instead propose read-only Cypher (``cypher``); it
goes through the same read-only check as ``%%gcypher`` and, if refused, the structured plan is used.
``plan.execute()`` runs it. A timeout leaves the model's call running in a background thread
(Python cannot cancel it); only its answer is ignored.
"""

from __future__ import annotations

import concurrent.futures
import json
import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..cypher.prepare import prepare
from ..display import Displayable
from ..errors import GestaltError
from ..graph import name_lookup
from ..graph.neighbourhood import internal_labels, user_relationship_types
from ..graph.subgraph import Subgraph

TIMEOUT = 30.0
#: Longest n-gram (in words) tried as a name in a broad search, and how many words are read.
NGRAM = 3
MAX_WORDS = 60
SCHEMA_CHARS = 4000
#: The chat model used when none is named (``gestalt_nb.set_planner_model``).
DEFAULT_MODEL: dict[str, Any] = {}


def chosen_model(model: Any = None) -> Any:
    """``model``, else the default one; an error that says how to name one when there is neither."""
    chosen = model if model is not None else DEFAULT_MODEL.get("model")
    if chosen is None:
        raise GestaltError("Say which chat model plans: gestalt_nb.plan(question, model), %%gask --model VAR, or gestalt_nb.set_planner_model(model).")
    return chosen


class QueryPlan(BaseModel):
    """What to look up for a question: the named entities, which relationships, how far."""

    model_config = ConfigDict(extra="ignore")

    entities: list[str] = Field(description="Names (or ids) of the entities the question is about, exactly as a node's name would read.")
    relations: list[str] | None = Field(default=None, description="Relationship types to keep (from the schema), or null for all.")
    min_confidence: float = Field(default=0.0, ge=0.0, le=1.0, description="Least 'confidence' a relationship needs (0 to 1; 0 keeps all).")
    max_hops: int = Field(default=1, ge=0, le=3, description="How many hops out from the entities (0 to 3).")
    reasoning: str = Field(default="", description="One or two sentences: why these entities, relations and hops.")
    cypher: str | None = Field(default=None, description="Optional: one read-only Cypher query instead, if a neighbourhood cannot answer the question.")


@dataclass(eq=False)
class Plan(Displayable):
    """A checked plan for one question; ``execute()`` runs it (``result`` holds the last run)."""

    question: str
    connection: Any = field(repr=False)
    entities: list[str] = field(default_factory=list)
    relations: list[str] | None = None
    min_confidence: float = 0.0
    max_hops: int = 1
    reasoning: str = ""
    is_broad_search: bool = False
    fallback_reason: str | None = None
    unresolved_entities: list[str] = field(default_factory=list)
    dropped_relations: list[str] = field(default_factory=list)
    cypher: str | None = None
    cypher_refused: str | None = None
    raw: Any = field(default=None, repr=False)
    result: Any = None
    view_options: dict[str, Any] = field(default_factory=dict)

    @property
    def uses_cypher(self) -> bool:
        return self.cypher is not None and self.cypher_refused is None

    def execute(self, **options: Any):
        """Run the plan: the accepted Cypher, else ``query_subgraph``.

        ``options`` go to ``query_subgraph`` (max_nodes, max_edges, max_fanout, ...); ``drop_isolated``
        defaults to True here, so nodes left without a kept relationship (seeds excepted) are not drawn.
        """
        options.setdefault("drop_isolated", True)
        if self.uses_cypher:
            try:
                self.result = self.connection.run(self.cypher)
                return self.result
            except GestaltError as exc:
                self.cypher_refused = f"the Cypher failed when run ({str(exc).splitlines()[0]}); the structured plan was used"
        self.result = self.connection.subgraph(self.entities or None, self.relations, self.min_confidence, self.max_hops, **options)
        return self.result

    @property
    def subgraph(self) -> Subgraph:
        return self.result.subgraph if self.result is not None else Subgraph(title="plan (not run yet)")

    def rows(self) -> list[tuple[str, str]]:
        rows = [
            ("question", self.question),
            ("entities", ", ".join(self.entities) or "(none: whole-graph sample)"),
            ("relations", ", ".join(self.relations) if self.relations else "all"),
            ("max hops", str(self.max_hops)),
            ("min confidence", f"{self.min_confidence:g}"),
            ("reasoning", self.reasoning or "—"),
        ]
        if self.unresolved_entities:
            rows.append(("unresolved", ", ".join(self.unresolved_entities)))
        if self.dropped_relations:
            rows.append(("dropped relations", ", ".join(self.dropped_relations) + " (not in the graph)"))
        if self.cypher is not None:
            rows.append(("cypher", self.cypher + (f"\n(refused: {self.cypher_refused})" if self.cypher_refused else "")))
        if self.is_broad_search:
            rows.append(("fallback", f"broad search — {self.fallback_reason}"))
        return rows

    def __repr__(self) -> str:
        kind = f"broad search ({self.fallback_reason})" if self.is_broad_search else "plan"
        what = "cypher" if self.uses_cypher else f"entities={self.entities}, relations={self.relations}, hops={self.max_hops}"
        return f"<Plan {kind}: {what}>"


# -- asking ---------------------------------------------------------------------------
def schema_text(connection: Any) -> tuple[str, list[str]]:
    """The schema as the model sees it (bounded), and the exact list of non-internal relationship types."""
    types = user_relationship_types(connection.db)
    schema = connection.graph.get_structured_schema
    labels = {label: [p["property"] for p in props if not p["property"].startswith("__")]
              for label, props in schema.get("node_props", {}).items() if not internal_labels([label])}
    text = json.dumps({"node_labels": labels, "relationship_types": types}, ensure_ascii=False)
    return text[:SCHEMA_CHARS], types


PROMPT = (
    "You turn a question about a knowledge graph into a lookup plan. The graph's schema:\n{schema}\n"
    "Name the entities the question is about as their names would read in the graph, pick relationship "
    "types only from the schema (or null for all), and say how many hops (0-3) are needed. "
    "Answer with the QueryPlan structure.\nQuestion: {question}"
)


def _ask(model: Any, prompt: str, timeout: float) -> tuple[QueryPlan | None, str | None, Any]:
    """The model's plan, or (None, why it failed, raw)."""
    if not hasattr(model, "with_structured_output"):
        raise GestaltError(f"The planner needs a LangChain chat model (with_structured_output); got a {type(model).__name__}.")
    try:
        structured = model.with_structured_output(QueryPlan, include_raw=True)
    except Exception as exc:
        return None, f"the model cannot give structured output ({type(exc).__name__}: {exc})", None
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="gestalt-plan")
    try:
        answer = pool.submit(structured.invoke, prompt).result(timeout=timeout)
    except concurrent.futures.TimeoutError:
        return None, f"the model did not answer within {timeout:g} s", None
    except Exception as exc:
        return None, f"the model call failed ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})", None
    finally:
        pool.shutdown(wait=False)
    if not isinstance(answer, dict):
        answer = {"raw": answer, "parsed": answer if isinstance(answer, QueryPlan) else None, "parsing_error": None}
    raw, parsed, error = answer.get("raw"), answer.get("parsed"), answer.get("parsing_error")
    if isinstance(parsed, QueryPlan):
        return parsed, None, raw
    if error is not None:
        return None, f"the model's plan is invalid ({_validation_text(error)})", raw
    content = getattr(raw, "content", None)
    if isinstance(content, str) and content.strip().startswith("{"):
        try:
            return QueryPlan.model_validate_json(content), None, raw
        except ValidationError as exc:
            return None, f"the model's plan is invalid ({_validation_text(exc)})", raw
    return None, "the model gave no structured plan", raw


def _validation_text(error: Any) -> str:
    errors = getattr(error, "errors", None)
    if callable(errors):
        try:
            return "; ".join(f"{'.'.join(map(str, item['loc'])) or 'plan'}: {item['msg']}" for item in errors())
        except Exception:
            pass
    return str(error).splitlines()[0]


def _resolves(connection: Any, entity: str) -> bool:
    db = connection.db
    find, _ = name_lookup.finder(connection)  # never writes the index
    candidates = find(entity, 5) if find is not None else []
    candidates = candidates or [entity]
    for node_id in candidates:
        node = db.get_node(node_id.encode("utf-8"))
        if node is not None and not internal_labels(node.labels):
            return True
    return False


def broad_entities(connection: Any, question: str) -> list[str]:
    """Words and runs of up to three words in ``question`` that name a node (longest first, no overlaps)."""
    words = re.findall(r"[\w'’-]+", question)[:MAX_WORDS]
    found: list[str] = []
    used = [False] * len(words)
    for size in range(NGRAM, 0, -1):
        for start in range(0, len(words) - size + 1):
            if any(used[start : start + size]):
                continue
            phrase = " ".join(words[start : start + size])
            if size == 1 and len(phrase) < 3:
                continue
            if _resolves(connection, phrase):
                found.append(phrase)
                used[start : start + size] = [True] * size
    return found


def plan(question: str, model: Any, *, connection: Any, timeout: float = TIMEOUT, allow_cypher: bool = True) -> Plan:
    """Ask ``model`` for a plan for ``question`` on ``connection``, check it, fall back when it fails."""
    if not isinstance(question, str) or not question.strip():
        raise GestaltError("Ask a question in words, e.g. %%gask --model llm followed by 'Who works with Alice Chen?'.")
    question = question.strip()
    schema, types = schema_text(connection)
    proposed, failure, raw = _ask(model, PROMPT.format(schema=schema, question=question), timeout)
    if proposed is None:
        entities = broad_entities(connection, question)
        return Plan(question, connection, entities=entities, max_hops=1, is_broad_search=True, raw=raw,
                    fallback_reason=failure + ("" if entities else "; no word of the question names a node, so this is a whole-graph sample"))
    result = Plan(question, connection, min_confidence=proposed.min_confidence, max_hops=proposed.max_hops,
                  reasoning=proposed.reasoning, raw=raw)
    result.entities = list(dict.fromkeys(item.strip() for item in proposed.entities if item.strip()))
    if proposed.relations is not None:
        spelled = {kind.casefold(): kind for kind in types}
        kept = [spelled[item.casefold()] for item in proposed.relations if item.casefold() in spelled]
        result.dropped_relations = [item for item in proposed.relations if item.casefold() not in spelled]
        result.relations = list(dict.fromkeys(kept)) or None
    result.unresolved_entities = [entity for entity in result.entities if not _resolves(connection, entity)]
    if proposed.cypher and allow_cypher:
        result.cypher = proposed.cypher
        try:
            prepared = prepare(proposed.cypher, 1000)
            if prepared.writes:
                result.cypher_refused = f"it writes ({', '.join(prepared.writes)}) and a plan only reads; the structured plan is used"
        except GestaltError as exc:
            result.cypher_refused = f"{str(exc).splitlines()[0]}; the structured plan is used"
    if not result.entities and not result.uses_cypher:
        entities = broad_entities(connection, question)
        result.entities, result.is_broad_search = entities, True
        result.fallback_reason = "the plan named no entities" + ("" if entities else "; no word of the question names a node, so this is a whole-graph sample")
    return result
