"""Answer a question from the graph: names → seeds → ``query_subgraph`` → bounded context → the model's answer.

``answer`` asks the model for the entity names in the question (structured output
``EntityNames``; if that fails, the question's words that name a node, as the planner's broad
search does), resolves them as extraction does (:mod:`.resolution`, through indexes), walks
``max_depth`` hops with ``query_subgraph`` (bounded by ``max_nodes``/``max_edges``/``max_fanout``),
and builds the context the model answers from: the entities, the relationships between them and the
source passages that mention them (``MENTIONS`` from ``__LangChainSource__`` nodes), at most
``max_passages`` passages of ``max_passage_chars`` and ``max_context_chars`` in all. When a bound cuts
anything the context's last line says so. ``context`` is exactly the text sent. The drawn subgraph
highlights the seeds and the shortest paths joining them to each other and to the entities the
answer names — the path behind the answer.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from pydantic import BaseModel, Field

from ..agents.planner import broad_entities
from ..checks import positive
from ..display import Displayable
from ..errors import GestaltError
from ..graph.bookkeeping import MENTIONS, SOURCE_LABEL
from ..graph.subgraph import Subgraph, edge_from_json, node_from_json
from . import prompts
from .resolution import ALIASES, Resolver, normalise

MAX_CONTEXT_CHARS = 6000
MAX_PASSAGES = 8
MAX_PASSAGE_CHARS = 1000
MAX_NAMES = 10


class EntityNames(BaseModel):
    """The names of the entities a question is about."""

    names: list[str] = Field(description="Entity names exactly as written in the question.")


@dataclass(eq=False)
class Answer(Displayable):
    """An answer, the names and seeds it started from, the exact context sent, and the evidence drawn."""

    question: str
    answer: str
    names: list[str]
    seeds: list[str]
    context: str
    sources: list[dict[str, Any]]
    paths: list[list[str]] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    truncated: bool = False
    result: Any = field(default=None, repr=False)
    path_nodes: set[str] = field(default_factory=set, repr=False)
    path_edges: set[str] = field(default_factory=set, repr=False)
    view_options: dict[str, Any] = field(default_factory=dict, repr=False)

    @cached_property
    def subgraph(self) -> Subgraph:
        """The neighbourhood walked; seeds and the paths used are highlighted."""
        drawn = Subgraph(title=f"evidence: {self.question[:60]}", truncated=self.truncated, notes=list(self.notes))
        if self.result is None:
            return drawn
        for raw in self.result.nodes:
            drawn.add_node(node_from_json(raw), highlight=raw["id"] in self.path_nodes or raw["id"] in self.seeds)
        for raw in self.result.edges:
            drawn.add_edge(edge_from_json(raw), highlight=raw["id"] in self.path_edges)
        return drawn

    @cached_property
    def df(self):
        """One row per source passage used: document id, the entities it mentions, its text."""
        import pandas as pd

        rows = [{"document_id": s["document_id"], "mentions": ", ".join(s["mentions"]), "text": s["text"]} for s in self.sources]
        return pd.DataFrame(rows, columns=["document_id", "mentions", "text"])

    def __repr__(self) -> str:
        return f"<Answer {self.answer[:80]!r} from seeds {self.seeds}, {len(self.sources)} passages{' (cut)' if self.truncated else ''}>"


def _names(model: Any, question: str, template: str, connection: Any) -> tuple[list[str], str | None]:
    failure = None
    try:
        answer = model.with_structured_output(EntityNames, include_raw=True).invoke(template.format(question=question))
        parsed = answer.get("parsed") if isinstance(answer, dict) else answer
        if isinstance(parsed, EntityNames):
            found = list(dict.fromkeys(name.strip() for name in parsed.names if isinstance(name, str) and name.strip()))
            if found:
                cut = f"the model named {len(found)} entities; the first {MAX_NAMES} were used" if len(found) > MAX_NAMES else None
                return found[:MAX_NAMES], cut
            failure = "the model named no entities"
        else:
            failure = "the model gave no EntityNames"
    except Exception as exc:
        failure = f"the names call failed ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
    return broad_entities(connection, question)[:MAX_NAMES], f"{failure}; used the question's words that name a node"


def _label(raw: dict[str, Any]) -> str:
    props = raw.get("properties") or {}
    name = props.get("name")
    return name if isinstance(name, str) and name else str(raw["id"])


def _passages(db: Any, node_ids: list[str], *, max_fanout: int) -> tuple[list[tuple[str, list[str]]], bool]:
    """Source ids that mention the nodes, most-mentioning first, each with the nodes it mentions; and whether fanout cut."""
    mentions: dict[str, list[str]] = {}
    is_source: dict[str, bool] = {}  # a person's own node that MENTIONS another is not a passage
    cut = False
    for node_id in node_ids:
        for read, record in enumerate(db.iter_typed_adjacency(node_id, MENTIONS, "in")):
            if read >= max_fanout:
                cut = True
                break
            source = db.key_to_string(record["source_id"])
            if source not in is_source:
                node = db.get_node(record["source_id"])
                is_source[source] = node is not None and SOURCE_LABEL in node.labels
            if is_source[source]:
                mentions.setdefault(source, []).append(node_id)
    ordered = sorted(mentions.items(), key=lambda item: -len(item[1]))  # stable: first seen wins ties
    return ordered, cut


def _paths(result: Any, seeds: list[str], targets: list[str]) -> tuple[list[list[str]], set[str], set[str]]:
    """Shortest paths (ignoring direction) between seeds, and from seeds to ``targets``, over the kept edges."""
    adjacency: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for raw in result.edges:
        adjacency.setdefault(raw["source"], []).append((raw["target"], raw))
        adjacency.setdefault(raw["target"], []).append((raw["source"], raw))
    labels = {raw["id"]: _label(raw) for raw in result.nodes}
    paths, nodes, edges = [], set(), set()
    found: list[tuple[list[str], set[str], set[str]]] = []
    done: set[frozenset[str]] = set()
    for seed in seeds:
        previous: dict[str, tuple[str, dict[str, Any]] | None] = {seed: None}
        queue = deque([seed])
        while queue:
            here = queue.popleft()
            for there, raw in adjacency.get(here, []):
                if there not in previous:
                    previous[there] = (here, raw)
                    queue.append(there)
        for target in [*seeds, *targets]:
            pair = frozenset((seed, target))
            if target == seed or target not in previous or pair in done:
                continue
            done.add(pair)
            steps, at = [], target
            while previous[at] is not None:
                before, raw = previous[at]
                steps.append((before, raw, at))
                at = before
            steps.reverse()
            text = [labels.get(seed, seed)]
            for before, raw, after in steps:
                kind = (raw.get("properties") or {}).get("type", "")
                arrow = f"-[{kind}]->" if raw["source"] == before else f"<-[{kind}]-"
                text += [arrow, labels.get(after, after)]
            found.append((text, {raw["id"] for _, raw, _ in steps}, {n for before, _, after in steps for n in (before, after)}))
    # a path whose relationships all lie on another path (or on an earlier, equal one) says nothing more
    for position, (text, used, touched) in enumerate(found):
        if any(used < other or (used == other and earlier < position) for earlier, (_, other, _) in enumerate(found) if earlier != position):
            continue
        paths.append(text)
        nodes |= touched
        edges |= used
    return paths, nodes, edges


def _mentioned(result: Any, text: str, seeds: list[str]) -> list[str]:
    """Nodes (not seeds) whose name or an alias appears in ``text``."""
    folded = f" {normalise(text) or ''} "
    found = []
    for raw in result.nodes:
        if raw["id"] in seeds:
            continue
        props = raw.get("properties") or {}
        spellings = [props.get("name"), *(props.get(ALIASES) or [])]
        keys = {normalise(item) for item in spellings if isinstance(item, str)} - {None}
        if any(len(key) >= 3 and f" {key} " in folded for key in keys):
            found.append(raw["id"])
    return found


def _check_arguments(question: Any, model: Any, **numbers: int) -> None:
    if not isinstance(question, str) or not question.strip():
        raise GestaltError("Ask a question in words, e.g. gestalt_nb.answer('Does John Doe work at MongoDB?', model).")
    if not hasattr(model, "with_structured_output"):
        raise GestaltError(f"answer needs a LangChain chat model (with_structured_output); got a {type(model).__name__}.")
    for name, value in numbers.items():
        positive(value, name)


def _seeds(db: Any, asked: list[str]) -> tuple[list[str], list[str]]:
    """The nodes the asked names resolve to (as extraction resolves them), and the names that found none."""
    resolver = Resolver(db)
    seeds, unresolved = [], []
    for name in asked:
        node = resolver._existing(name, normalise(name))
        if node is None:
            unresolved.append(name)
        elif node.get_id not in seeds:
            seeds.append(node.get_id)
    return seeds, unresolved


@dataclass
class _Context:
    """The lines of the context: entities, relationships and the passages that mention them."""

    entities: list[str] = field(default_factory=list)
    relations: list[str] = field(default_factory=list)
    sources: list[dict[str, Any]] = field(default_factory=list)
    passages: int = 0
    fanout_cut: bool = False

    def read(self, db: Any, result: Any, notes: list[str], max_fanout: int, max_passages: int, max_passage_chars: int) -> None:
        labels = {raw["id"]: _label(raw) for raw in result.nodes}
        nearest = sorted(result.nodes, key=lambda item: result.hops.get(item["id"], 0))
        for raw in nearest:
            props = raw.get("properties") or {}
            aliases = [item for item in props.get(ALIASES) or [] if item != labels[raw["id"]]]
            also = f"; also written {', '.join(aliases)}" if aliases else ""
            self.entities.append(f"- {labels[raw['id']]} ({', '.join(raw.get('labels') or ()) or 'entity'}{also})")
        for raw in result.edges:
            kind = (raw.get("properties") or {}).get("type", "")
            self.relations.append(f"- {labels.get(raw['source'], raw['source'])} -[{kind}]-> {labels.get(raw['target'], raw['target'])}")
        ordered, self.fanout_cut = _passages(db, [raw["id"] for raw in nearest], max_fanout=max_fanout)
        self.passages = len(ordered)
        for source_id, mentioned in ordered[:max_passages]:
            node = db.get_node(source_id.encode("utf-8"))
            if node is None:
                continue
            text = str(node.properties.get("page_content", ""))
            cut = len(text) > max_passage_chars
            self.sources.append({"id": source_id, "document_id": node.properties.get("document_id"), "metadata": node.properties.get("metadata"),
                                 "text": text[:max_passage_chars] + (" …(passage cut)" if cut else ""), "mentions": [labels[m] for m in mentioned if m in labels]})
        if len(ordered) > max_passages:
            notes.append(f"{len(ordered) - max_passages} more passages mention these entities (max_passages={max_passages}).")
        if self.fanout_cut:
            notes.append(f"Some entities have more than {max_fanout} source passages; only the first were read (max_fanout).")

    def text(self, limit: int, result: Any, notes: list[str]) -> tuple[str, bool]:
        """The context within ``limit`` characters, and whether anything was cut."""
        sections = [("Entities:", self.entities), ("Relationships:", self.relations),
                    ("Source passages:", [f"[{n}] {s['text']}" for n, s in enumerate(self.sources, start=1)])]
        context, left = _bounded(sections, limit)
        if result is None:
            context = "(No entity named in the question was found in the graph.)"
        truncated = bool(left) or bool(result is not None and result.truncated) or self.fanout_cut or len(self.sources) < self.passages
        if left:
            note = f"[Context cut at {limit:,} characters: {left} lines left out.]"
            context += "\n" + note
            notes.append(note.strip("[]"))
        elif result is not None and result.truncated:
            context += "\n[The neighbourhood was cut by a bound (max_nodes/max_edges/max_fanout): the graph holds more.]"
        return context, truncated


def _reply(model: Any, template: str, question: str, context: str) -> str:
    try:
        reply = model.invoke(template.format(question=question, context=context))
    except Exception as exc:
        raise GestaltError(f"The model failed to answer ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}); the context is ready but no answer came back.") from exc
    return reply.content if isinstance(getattr(reply, "content", None), str) else str(getattr(reply, "content", reply))


def answer(
    connection: Any,
    question: str,
    model: Any,
    *,
    max_depth: int = 2,
    relations: list[str] | None = None,
    max_nodes: int = 100,
    max_edges: int = 300,
    max_fanout: int = 50,
    max_context_chars: int = MAX_CONTEXT_CHARS,
    max_passages: int = MAX_PASSAGES,
    max_passage_chars: int = MAX_PASSAGE_CHARS,
    prompt: str | None = None,
    names_prompt: str | None = None,
) -> Answer:
    """Answer ``question`` from the graph on ``connection`` with ``model``; see the module docstring."""
    _check_arguments(question, model, max_context_chars=max_context_chars, max_passages=max_passages, max_passage_chars=max_passage_chars)
    question = question.strip()
    notes: list[str] = []
    asked, failure = _names(model, question, names_prompt if names_prompt is not None else prompts.NAMES_PROMPT, connection)
    if failure:
        notes.append(f"Names: {failure}.")
    seeds, unresolved = _seeds(connection.db, asked)
    if unresolved:
        notes.append(f"No node is named {', '.join(unresolved)}.")
    result = None
    lines = _Context()
    if seeds:
        result = connection.subgraph(seeds, relations, 0.0, max_depth, max_nodes=max_nodes, max_edges=max_edges, max_fanout=max_fanout)
        notes.extend(result.notes)
        lines.read(connection.db, result, notes, max_fanout, max_passages, max_passage_chars)
    context, truncated = lines.text(max_context_chars, result, notes)
    text = _reply(model, prompt if prompt is not None else prompts.ANSWER_PROMPT, question, context)
    paths, path_nodes, path_edges = ([], set(), set())
    if result is not None:
        paths, path_nodes, path_edges = _paths(result, seeds, _mentioned(result, text, seeds))
    return Answer(question, text, asked, seeds, context, lines.sources, paths=paths, unresolved=unresolved, notes=notes,
                  truncated=truncated, result=result, path_nodes=path_nodes, path_edges=path_edges)


def _bounded(sections: list[tuple[str, list[str]]], limit: int) -> tuple[str, int]:
    """The sections as text within ``limit`` characters (whole lines only), and how many lines were left out."""
    out, used, left = [], 0, 0
    for title, lines in sections:
        if not lines:
            continue
        if used + len(title) + 1 > limit:
            left += len(lines)
            continue
        out.append(title)
        used += len(title) + 1
        for line in lines:
            if used + len(line) + 1 > limit:
                left += 1
                continue
            out.append(line)
            used += len(line) + 1
    return "\n".join(out), left
