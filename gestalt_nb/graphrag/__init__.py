"""GraphRAG on GestaltDB: extract a graph from documents with a chat model, answer from it, and see why.

* :func:`gestalt_nb.extract` — documents → ``ExtractedGraph`` (structured output) → checked, resolved,
  written with links to their sources (:mod:`.extraction`; what the model is asked and how its answer
  is checked: :mod:`.extracted`; the writing: :mod:`.writing`; names merged: :mod:`.resolution`).
* :func:`gestalt_nb.answer` — question → names → seeds → ``query_subgraph`` → bounded context → answer,
  with the path behind it drawn (:mod:`.answering`).
* :mod:`.prompts` — the prompts, as module constants you can read and replace.
"""

from . import prompts
from .answering import Answer, EntityNames
from .extraction import Dropped, ExtractedGraph, ExtractedNode, ExtractedRelationship, ExtractionResult
from .resolution import Merge, normalise

__all__ = ["Answer", "Dropped", "EntityNames", "ExtractedGraph", "ExtractedNode", "ExtractedRelationship",
           "ExtractionResult", "Merge", "normalise", "prompts"]
