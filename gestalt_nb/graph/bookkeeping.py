"""The names gestalt-nb and the adapter write for their own bookkeeping, declared in one place.

The memory store (``gestalt_nb.memory``) writes its items and namespaces under these names and the
adapter links entities to their sources by ``MENTIONS``; walks and drawings read them from here to
keep that bookkeeping out of a person's view.
"""

from __future__ import annotations

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
