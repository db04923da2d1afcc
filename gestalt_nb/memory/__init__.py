"""Agent memory in the graph: ``GestaltStore``, LangGraph's ``BaseStore`` on graph nodes (``store``;
needs the ``agents`` extra), and ``%gmemory``'s result (``result``).

May import: ``errors``, ``options``, ``engine/``, ``display``, ``graph/``, ``cypher/``.
"""

from .store import (
    ABOUT,
    IN_NAMESPACE,
    INTERNAL_LABELS,
    INTERNAL_PROPERTIES,
    INTERNAL_TYPES,
    ITEM,
    NAMESPACE,
    SUBNAMESPACE_OF,
    GestaltStore,
    encode_namespace,
    item_id,
    namespace_id,
)

__all__ = [
    "ABOUT", "IN_NAMESPACE", "INTERNAL_LABELS", "INTERNAL_PROPERTIES", "INTERNAL_TYPES", "ITEM",
    "NAMESPACE", "SUBNAMESPACE_OF", "GestaltStore", "encode_namespace", "item_id", "namespace_id",
]
