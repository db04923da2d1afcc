"""A few paragraphs shipped with the package, and a scripted model that extracts them offline.

``documents()`` reads ``gestalt_nb/data/graphrag/*.txt`` as LangChain Documents (id = file name).
``scripted_extractor()`` is a ``ScriptedChatModel`` answering each paragraph, in order, with the
``ExtractedGraph`` a chat model would give (``extractions.json``); ``scripted_answerer(names, text)``
answers a question with prepared names and an answer. They stand in for a real model in the demo
and tests; nothing here calls a network.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from langchain_core.documents import Document
from langchain_core.messages import AIMessage


def _folder() -> Any:
    return resources.files("gestalt_nb") / "data" / "graphrag"


def documents() -> list[Document]:
    files = sorted(item for item in _folder().iterdir() if item.name.endswith(".txt"))
    return [Document(id=item.name, page_content=item.read_text(encoding="utf-8").strip(), metadata={"file": item.name}) for item in files]


def extractions() -> dict[str, Any]:
    return json.loads((_folder() / "extractions.json").read_text(encoding="utf-8"))


def _call(name: str, args: dict[str, Any], number: int) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call-{number}", "type": "tool_call"}])


def scripted_extractor() -> Any:
    """A chat model that answers the sample paragraphs (in file order) with their prepared ExtractedGraph."""
    from ..agents.agent import ScriptedChatModel  # deferred: needs LangGraph (the agents extra)

    prepared = extractions()
    return ScriptedChatModel(responses=[_call("ExtractedGraph", prepared[doc.id], n) for n, doc in enumerate(documents())])


def scripted_answerer(names: list[str], answer: str) -> Any:
    """A chat model that names ``names`` in the question, then answers ``answer``."""
    from ..agents.agent import ScriptedChatModel  # deferred: needs LangGraph (the agents extra)

    return ScriptedChatModel(responses=[_call("EntityNames", {"names": list(names)}, 0), AIMessage(content=answer)])
