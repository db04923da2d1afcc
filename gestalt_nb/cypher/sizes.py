"""Cheap sizes of where a pattern starts: a label counted up to ``LARGE + 1`` ids on its index (never in full, never
``count_nodes_by_label``, which is O(N)), and the property indexes from ``index_statistics()``. ``--explain`` words its
plan with them; a read's far-end rewrite (:mod:`.anchor`) decides with them."""

from __future__ import annotations

from itertools import islice
from typing import Any

from gestaltdb.cypher_ast import NodePattern

from .ast_text import property_equalities

#: A label with more nodes than this (by the bounded count) is "large".
LARGE = 10_000


class Sizes:
    """Bounded counts over one database, each label counted once."""

    def __init__(self, db: Any) -> None:
        self.db = db
        self.indexed = set(db.index_statistics().get("indexed_node_properties", ()))
        self.counts: dict[str | None, int | None] = {}

    def size(self, label: str | None) -> int | None:
        """Nodes with ``label`` (all nodes for None), counted up to LARGE+1; None if unknown."""
        if label not in self.counts:
            try:
                ids = self.db.iter_node_ids_by_label(label) if label is not None else self.db.get_node_keys_generator()
                self.counts[label] = sum(1 for _ in islice(ids, LARGE + 1))
            except Exception:
                self.counts[label] = None
        return self.counts[label]

    def size_text(self, label: str | None) -> str:
        count = self.size(label)
        what = f":{label} nodes" if label else "nodes"
        if count is None:
            return f"unknown number of {what}"
        return f"more than {LARGE:,} {what}" if count > LARGE else f"{count:,} {what}"

    def large_scan(self, node: NodePattern, where: Any, bound: set[str]) -> bool:
        """Whether a pattern starting at ``node`` reads more than LARGE nodes one by one (no id, no indexed equality,
        a plain label or none), as the engine would start it."""
        if node.variable is not None and node.variable in bound or node.label_expression is not None:
            return False
        equalities = [name for name, _ in [*node.properties, *property_equalities(node.variable, where)]]
        if "id" in equalities or any(name in self.indexed for name in equalities):
            return False
        count = self.size(node.labels[0] if node.labels else None)
        return count is not None and count > LARGE

    def found_by(self, node: NodePattern, where: Any, bound: set[str]) -> str | None:
        """How a node other than the first would be found if a pattern started there, when that reads few nodes."""
        if node.variable is not None and node.variable in bound:
            return None
        equalities = [name for name, _ in [*node.properties, *property_equalities(node.variable, where)]]
        if "id" in equalities:
            return "an id lookup"
        seek = next((name for name in equalities if name in self.indexed), None)
        if seek is not None:
            return f"a property-index seek on {seek}"
        label = node.labels[0] if node.labels and node.label_expression is None else None
        count = self.size(label) if equalities and label is not None else None
        return None if count is None or count > LARGE else f"testing {equalities[0]} on {self.size_text(label)}"
