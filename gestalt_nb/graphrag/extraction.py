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
import time
import warnings
from dataclasses import dataclass
from typing import Any

from langchain_core.documents import Document
from langchain_gestaltdb.graph_document import GraphDocument
from pydantic import ValidationError

from ..checks import positive
from ..errors import GestaltError
from ..graph.adapter import normalize
from . import prompts
from .extracted import Allowed, Dropped, ExtractedGraph, ExtractedNode, ExtractedRelationship, ask, check, schema_for
from .resolution import Resolver
from .writing import ExtractionResult, Progress, refresh, resolve_only, write_batch

__all__ = [
    "BATCH_SIZE", "Dropped", "ExtractedGraph", "ExtractedNode", "ExtractedRelationship", "ExtractionResult",
    "MAX_DOCUMENT_CHARS", "extract", "ingest", "schema_for",
]

#: Documents per batch (one transaction and one change-feed event each).
BATCH_SIZE = 10
#: Characters of each document sent to the model; longer documents are cut (and the result says so).
MAX_DOCUMENT_CHARS = 12_000
#: Characters of the examples put into the prompt.
MAX_EXAMPLE_CHARS = 4_000
#: Most documents one call takes.
MAX_DOCUMENTS = 10_000


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


def _checked_options(model: Any, validate: str, **numbers: int) -> None:
    if validate not in ("warn", "error"):
        raise GestaltError(f"validate must be 'warn' or 'error', not {validate!r}.")
    if not hasattr(model, "with_structured_output"):
        raise GestaltError(f"extract needs a LangChain chat model (with_structured_output); got a {type(model).__name__}.")
    for name, value in numbers.items():
        positive(value, name)


def _examples_text(examples: Any) -> str:
    """The examples as prompt text, cut at ``MAX_EXAMPLE_CHARS``."""
    if not examples:
        return ""
    text = examples if isinstance(examples, str) else json.dumps(normalize(examples), ensure_ascii=False)
    if len(text) > MAX_EXAMPLE_CHARS:
        text = text[:MAX_EXAMPLE_CHARS] + " …(examples cut)"
    return f"Examples of the output wanted:\n{text}\n"


@dataclass
class _Asking:
    """What every model call of one ``extract`` shares."""

    model: Any
    schema: type
    template: str
    allowed: Allowed
    examples: str
    max_document_chars: int
    max_concurrency: int

    def batch(self, docs: list[Document], offset: int, result: ExtractionResult, progress: Progress) -> list[GraphDocument]:
        """One model call per document of the batch; what conforms is returned, the rest goes to ``result.dropped``."""
        texts = []
        for index, document in enumerate(docs, start=offset):
            text = document.page_content
            if len(text) > self.max_document_chars:
                result.notes.append(f"Document {index}: only the first {self.max_document_chars:,} of {len(text):,} characters were sent to the model.")
                text = text[: self.max_document_chars]
            texts.append(self.template.format(types=self.allowed.text(), examples=self.examples, text=text))
        extracted = []
        for (index, document), (graph, failure) in zip(enumerate(docs, start=offset), ask(self.model, self.schema, texts, self.max_concurrency)):
            progress.update(1)
            if graph is None:
                result.dropped.append(Dropped(index, "document", document.id or document.page_content[:60], failure))
                continue
            checked, dropped = check(index, graph, self.allowed, document)
            result.graph_documents.append(checked)
            result.dropped.extend(dropped)
            extracted.append(checked)
        return extracted


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
    _checked_options(model, validate, batch_size=batch_size, max_document_chars=max_document_chars, max_concurrency=max_concurrency)
    docs = _documents(documents)
    allowed = Allowed.of(allowed_node_types, allowed_relationship_types)
    schema = schema_for(sorted(allowed.nodes.values()) if allowed.nodes else None, sorted(allowed.types.values()) if allowed.types else None)
    asking = _Asking(model, schema, prompt if prompt is not None else prompts.EXTRACTION_PROMPT, allowed,
                     _examples_text(examples), max_document_chars, max_concurrency)
    started = time.perf_counter()
    result = ExtractionResult(graph_documents=[])
    resolver = Resolver(connection.db, fuzzy=fuzzy)
    pending: list[tuple[int, list[GraphDocument]]] = []
    progress = Progress(len(docs), "extracting")
    for batch, offset in enumerate(range(0, len(docs), batch_size)):
        extracted = asking.batch(docs[offset : offset + batch_size], offset, result, progress)
        if validate == "warn" and ingest:
            try:
                write_batch(connection, resolver, extracted, batch, result)  # the graph grows batch by batch
            except GestaltError:
                refresh(connection, result)
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
                resolve_only(resolver, extracted, batch, result)
    finally:
        refresh(connection, result)
    result.merges = list(resolver.merges)
    result.seconds = time.perf_counter() - started
    return result


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
        refresh(connection, result)
    result.merges = list(resolver.merges)
    result.seconds = time.perf_counter() - started
    return result
