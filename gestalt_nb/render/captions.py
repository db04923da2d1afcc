"""A node's caption: the caption property, else the id as the person gave it; the adapter's source passages
by their document id or text. One function for every drawing (canvas, static pictures, pyvis)."""

from __future__ import annotations

from typing import Any

from ..graph.ids import as_loaded
from ..graph.values import number_text
from ..shorten import shorten


def caption(node_id: str | int, properties: dict[str, Any], caption_property: str) -> str:
    """The caption property, else ``name`` (an overview's drilled members, under its super-nodes' ``caption``), else
    the id as the person gave it (an integer id stored as ``__lc_int__:N`` reads N)."""
    value = properties.get(caption_property)
    if value is None and caption_property != "name":
        value = properties.get("name")
    if value is None and type(node_id) is str and node_id.startswith(SOURCE_PREFIX):  # ids as loaded: 2 is an int
        value = _source_caption(properties)
    if value is None:
        return str(as_loaded(node_id))
    return number_text(value) or str(value)


#: The adapter's source passages are keyed by a hash; they are captioned by their document id or text.
SOURCE_PREFIX = "__lc_source__:"
SOURCE_CAPTION_CHARS = 40


def _source_caption(properties: dict[str, Any]) -> str | None:
    document = properties.get("document_id")
    if isinstance(document, str) and document.strip():
        return document[:SOURCE_CAPTION_CHARS]
    text = properties.get("page_content")
    if isinstance(text, str) and text.strip():
        text = " ".join(text.split())
        return shorten(text, SOURCE_CAPTION_CHARS)
    return None
