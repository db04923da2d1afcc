"""The names gestalt-nb and the adapter write for their own bookkeeping, declared in one place.

The memory store (``gestalt_nb.memory``) writes its items and namespaces under these names and the
adapter links entities to their sources by ``MENTIONS``; walks and drawings read them from here to
keep that bookkeeping out of a person's view.
"""

from __future__ import annotations

import re

#: The memory store's node labels and relationship types.
MEMORY_ITEM = "__MemoryItem"
MEMORY_NAMESPACE = "__MemoryNamespace"
IN_NAMESPACE = "IN_NAMESPACE"
SUBNAMESPACE_OF = "SUBNAMESPACE_OF"
ABOUT = "ABOUT"
MEMORY_LABELS = frozenset({MEMORY_ITEM, MEMORY_NAMESPACE})
MEMORY_TYPES = frozenset({IN_NAMESPACE, SUBNAMESPACE_OF, ABOUT})

#: The adapter's source documents, and their link to what they mention.
SOURCE_LABEL = "__LangChainSource__"
MENTIONS = "MENTIONS"

#: Every relationship type above: bookkeeping when one of its ends is a bookkeeping node.
TYPES = frozenset({MENTIONS}) | MEMORY_TYPES

#: What a legend says for a node whose every label is bookkeeping: the person's words, not ours.
WORDS = {SOURCE_LABEL: "(source)", MEMORY_ITEM: "(memory item)", MEMORY_NAMESPACE: "(memory namespace)"}

_NAME = re.compile(r"\w+")


def is_bookkeeping(label: str) -> bool:
    """A ``__``-prefixed label or type: gestalt-nb's or the adapter's, never a person's."""
    return label.startswith("__")


def asked_in(text: str) -> frozenset[str]:
    """The bookkeeping names ``text`` (a query) writes out: those a drawing of its result shows as they are."""
    return frozenset(name for name in _NAME.findall(text or "") if is_bookkeeping(name) or name in TYPES)


def legend_label(labels: tuple[str, ...] | list[str], asked: frozenset[str] = frozenset()) -> str:
    """The label a node is coloured, counted and filtered by: its first own label (or one the query asked for by
    name); for a node with bookkeeping labels only, what it is in words (``(source)``); ``""`` for no label."""
    for label in labels:
        if not is_bookkeeping(label) or label in asked:
            return label
    return WORDS.get(labels[0], "(internal)") if labels else ""


def legend_type(kind: str, ends: tuple[tuple[str, ...], ...], asked: frozenset[str] = frozenset()) -> str:
    """The name a relationship type is listed and filtered by: as stored, unless it is bookkeeping (``__``-prefixed,
    or one of ``TYPES`` with a bookkeeping node at an end, ``ends``: the two ends' labels) and not asked for; then
    in words (``MENTIONS`` → ``(mentions)``)."""
    if not kind or kind in asked:
        return kind
    if is_bookkeeping(kind) or (kind in TYPES and any(is_bookkeeping(label) for labels in ends for label in labels)):
        return f"({kind.strip('_').lower().replace('_', ' ')})"
    return kind
