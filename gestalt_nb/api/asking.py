"""Asking in words: the planner (a question → a checked plan), GraphRAG extraction and answers, each with a chat model."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..agents import planner
from ..graphrag import answering, extraction
from ..session import REGISTRY
from .opening import kept

if TYPE_CHECKING:
    from ..agents.planner import Plan
    from ..graphrag.answering import Answer
    from ..graphrag.writing import ExtractionResult


def plan(question: str, model: Any = None, *, timeout: float = 30.0, allow_cypher: bool = True,
        alias: str | None = None) -> Plan:
    """A checked plan for a question in words (``%%gask``); ``.execute()`` runs it through ``query_subgraph``.

    The model sees the graph's schema and proposes entities, relationship types and hops; unknown types are
    dropped and unknown names listed. Any failure (an error, output that does not validate, the timeout) gives
    a broad search on the question's words instead, and the plan says so.

    Parameters
    ----------
    question : str
        The question, in words.
    model : LangChain chat model, optional
        Any chat model with ``with_structured_output``; the one given to ``set_planner_model`` by default.
    timeout : float, default 30.0
        Seconds to wait for the model's answer; past it the broad search is used (the call is not cancelled).
    allow_cypher : bool, default True
        Let the model propose read-only Cypher instead (checked as ``%%gcypher`` checks it); False keeps to plans.
    alias : str, optional
        The connection whose schema is read and which the plan runs on; the current one by default.

    Returns
    -------
    Plan
        The entities, relations, hops and reasoning, what was dropped or unresolved, and ``execute()``.

    Examples
    --------
    >>> p = gestalt_nb.plan("Who does Alice Chen work with?", model)
    >>> p.execute()
    """
    return kept(planner.plan(question, planner.chosen_model(model), connection=REGISTRY.get(alias), timeout=timeout, allow_cypher=allow_cypher))


def set_planner_model(model: Any) -> None:
    """Set the chat model ``plan`` and ``%%gask`` use when none is named (for this kernel).

    Parameters
    ----------
    model : LangChain chat model
        Any chat model with ``with_structured_output`` (e.g. ``ChatOpenAI(model="gpt-4o-mini")``); None forgets it.

    Examples
    --------
    >>> gestalt_nb.set_planner_model(model)
    >>> gestalt_nb.plan("Who does Alice Chen know?")
    """
    planner.DEFAULT_MODEL["model"] = model


def extract(documents: Any, model: Any, *, allowed_node_types: list[str] | None = None,
        allowed_relationship_types: list[Any] | None = None, validate: str = "warn", examples: Any = None,
        prompt: str | None = None, ingest: bool = True, batch_size: int = 10, max_document_chars: int = 12000,
        max_concurrency: int = 1, fuzzy: float | None = None, alias: str | None = None) -> ExtractionResult:
    """Extract a graph from documents with a chat model and write it, linked to its sources (GraphRAG).

    Parameters
    ----------
    documents : list of Document or str
        LangChain Documents, or plain strings (each one document); one model call per document.
    model : LangChain chat model
        Any chat model with ``with_structured_output``.
    allowed_node_types : list of str, optional
        The only node types allowed (``["Person", "Company"]``); any type by default.
    allowed_relationship_types : list of str or of (str, str, str), optional
        The only relationship types allowed, or ``(source_type, type, target_type)`` triples; any by default.
    validate : {"warn", "error"}, default "warn"
        ``"warn"`` writes what conforms and reports the rest in ``dropped``; ``"error"`` raises before anything is written.
    examples : str or list, optional
        Worked examples put in the prompt (text, or data shown as JSON; cut at 4,000 characters).
    prompt : str, optional
        Another prompt template with ``{types}``, ``{examples}`` and ``{text}``; ``graphrag.prompts.EXTRACTION_PROMPT`` by default.
    ingest : bool, default True
        Write the graph; False only extracts, to preview.
    batch_size : int, default 10
        Documents written per transaction (1 or more); a failed batch is rolled back, earlier ones stay.
    max_document_chars : int, default 12000
        Characters of each document sent to the model (1 or more); a note says which were cut.
    max_concurrency : int, default 1
        Model calls in flight at once (1 or more).
    fuzzy : float, optional
        Also merge names of one call this similar (1 to 100, e.g. 90; needs rapidfuzz); exact-after-normalising by default.
    alias : str, optional
        The connection to write to; the current one by default.

    Returns
    -------
    ExtractionResult
        The graph documents, what was dropped and why, the merges made, and what was written.

    Examples
    --------
    >>> gestalt_nb.extract(["Alice Chen works for Globex in Lisbon."], model, allowed_node_types=["Person", "Company", "Place"])
    """
    return kept(extraction.extract(
        REGISTRY.get(alias), documents, model, allowed_node_types=allowed_node_types, allowed_relationship_types=allowed_relationship_types,
        validate=validate, examples=examples, prompt=prompt, ingest=ingest, batch_size=batch_size, max_document_chars=max_document_chars,
        max_concurrency=max_concurrency, fuzzy=fuzzy,
    ))


def ingest_graph_documents(graph_documents: Any, *, batch_size: int = 10, fuzzy: float | None = None,
        alias: str | None = None) -> ExtractionResult:
    """Write graph documents made elsewhere (e.g. LangChain's ``LLMGraphTransformer``) the way ``extract`` does.

    Names are resolved to existing nodes, sources linked, batches written in transactions; nothing is dropped.

    Parameters
    ----------
    graph_documents : list of GraphDocument
        Anything with a graph document's fields: nodes, relationships and a ``source`` Document each.
    batch_size : int, default 10
        Documents written per transaction (1 or more); a failed batch is rolled back, earlier ones stay.
    fuzzy : float, optional
        A similarity score from 1 to 100 (90, say; rapidfuzz needed) at which a name joins an entity of the same
        call; off by default, when names match only once case, spacing and punctuation are set aside.
    alias : str, optional
        Where to write: the connection of that name, else the current one.

    Returns
    -------
    ExtractionResult
        The graph documents, the merges made and what was written.

    Examples
    --------
    >>> gestalt_nb.ingest_graph_documents(LLMGraphTransformer(llm=model).convert_to_graph_documents(documents))
    """
    return kept(extraction.ingest(REGISTRY.get(alias), graph_documents, batch_size=batch_size, fuzzy=fuzzy))


def answer(question: str, model: Any, *, max_depth: int = 2, relations: list[str] | None = None,
        max_nodes: int = 100, max_edges: int = 300, max_fanout: int = 50, max_context_chars: int = 6000,
        max_passages: int = 8, max_passage_chars: int = 1000, prompt: str | None = None,
        names_prompt: str | None = None, alias: str | None = None) -> Answer:
    """Answer a question from the graph (GraphRAG): names → seeds → ``query_subgraph`` → bounded context → model.

    Parameters
    ----------
    question : str
        The question, in words.
    model : LangChain chat model
        Any chat model with ``with_structured_output``; asked for the names, then for the answer.
    max_depth : int, default 2
        Hops walked from the named nodes (0 to 6).
    relations : list of str, optional
        Walk only relationships of these types; every type by default.
    max_nodes, max_edges : int, default 100, 300
        Nodes and relationships gathered at most; the context says when they cut anything.
    max_fanout : int, default 50
        Adjacency records and source passages read per node at most.
    max_context_chars : int, default 6000
        Characters of context sent to the model (1 or more), whole lines only.
    max_passages, max_passage_chars : int, default 8, 1000
        Source passages quoted at most, and characters of each.
    prompt, names_prompt : str, optional
        Other templates for the answer (``{question}``, ``{context}``) and for the names (``{question}``).
    alias : str, optional
        The connection to read; the current one by default.

    Returns
    -------
    Answer
        ``answer``, ``names``, ``seeds``, the exact ``context`` sent, ``sources``, and the drawn path behind it.

    Examples
    --------
    >>> gestalt_nb.answer("Where does Alice Chen work?", model).answer
    """
    return kept(answering.answer(
        REGISTRY.get(alias), question, model, max_depth=max_depth, relations=relations, max_nodes=max_nodes, max_edges=max_edges,
        max_fanout=max_fanout, max_context_chars=max_context_chars, max_passages=max_passages, max_passage_chars=max_passage_chars, prompt=prompt,
        names_prompt=names_prompt,
    ))
