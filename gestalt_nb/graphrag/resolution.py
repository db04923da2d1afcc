"""Entity resolution: one node per entity, however its name was written.

Names are compared by :func:`normalise`: Unicode NFKC, case folded, dots and apostrophes removed,
other punctuation read as a space, whitespace collapsed — "ACME Corp." and "acme  corp" are one
entity, "Jean-Luc" and "Jean Luc" too. The key of every node's ``name`` is kept in the name index
beside the graph (:mod:`gestalt_nb.graph.names`, never in the node's properties), so matching an
extracted entity against the graph is one index lookup, never a scan; then the case-insensitive
key, then the exact id. No fuzzy
matching by default: names that differ by more than case, spacing and punctuation stay separate
entities. ``fuzzy=90`` (a 0–100 similarity, needs ``rapidfuzz``: ``pip install 'gestalt-nb[graphrag]'``)
also merges a new name into an entity *of the same call* with a shared label whose key is that
similar ("Acme Robotics" / "Acme Robotic"); it never compares against the whole graph (that would
be a scan), and each such merge says its score.

A merge keeps one node (the first spelling seen, or the node already in the graph), unions the
labels, keeps every spelling in the ``aliases`` property, and links the node to every source.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..engine.adapter import entity_id
from ..errors import GestaltError
from ..graph import names

#: Where earlier versions stored the key in the node (stripped when such a node is merged into).
NORM_KEY = names.NORM_KEY
ALIASES = "aliases"


def normalise(name: Any) -> str | None:
    """The resolution key of a name, or None when it has none (empty, or too long to index)."""
    key = names.norm_key(name)
    if not key or len(key.encode("utf-8")) > names.MAX_KEY_BYTES:
        return None
    return key


@dataclass
class Merge:
    """An extracted name that became part of another node."""

    name: str
    into: str
    node_id: str
    reason: str

    def __repr__(self) -> str:
        return f"<Merge {self.name!r} → {self.into!r} ({self.reason})>"


@dataclass
class Entity:
    """One resolved entity: the node it will be written as, and everything seen for it in this call."""

    node_id: str
    name: str
    labels: set[str]
    properties: dict[str, Any]
    aliases: list[str]
    existing: bool
    batches: set[int] = field(default_factory=set)

    def node(self) -> Any:
        from gestaltdb.graphdb import Node

        properties = {**self.properties, "name": self.name, ALIASES: list(self.aliases)}
        return Node(self.node_id, labels=sorted(self.labels), properties=properties)


class Resolver:
    """Entities of one call, by key; matched against the graph through its indexes on first sight."""

    def __init__(self, db: Any, *, fuzzy: float | None = None) -> None:
        self.db = db
        self.fuzzy = fuzzy
        if fuzzy is not None:
            if isinstance(fuzzy, bool) or not isinstance(fuzzy, (int, float)) or not 0 < fuzzy <= 100:
                raise GestaltError(f"fuzzy must be a similarity from 1 to 100 (e.g. 90), or None; not {fuzzy!r}.")
            try:
                import rapidfuzz  # noqa: F401 - only whether it is installed
            except ImportError:
                raise GestaltError("fuzzy= needs rapidfuzz: pip install 'gestalt-nb[graphrag]' (or pip install rapidfuzz).") from None
        self.by_key: dict[str, Entity] = {}
        self.by_id: dict[str, Entity] = {}
        self.merges: list[Merge] = []

    def _existing(self, name: str, key: str | None) -> Any:
        db = self.db
        candidates: list[str] = []
        if key is not None and names.has_index(db):
            candidates = names.lookup(db, name, limit=5, loose=True)
        if not candidates and names.has_index(db):
            candidates = names.lookup(db, name, limit=5)
        if not candidates:
            candidates = [entity_id(name)]
        for node_id in sorted(candidates):
            node = db.get_node(node_id.encode("utf-8"))
            if node is not None and not any(label.startswith("__") for label in node.labels):
                return node
        return None

    def resolve(self, name: str, label: str, properties: dict[str, Any], batch: int) -> Entity:
        """The entity ``name`` belongs to (created, or merged into one seen before), updated with this sighting."""
        key = normalise(name)
        entity = self.by_key.get(key) if key is not None else self.by_id.get(entity_id(name))
        score = None
        if entity is None:
            node = self._existing(name, key)
            if node is None and self.fuzzy is not None and key is not None:
                entity, score = self._similar(key, label)
                if entity is not None:
                    self.by_key[key] = entity
        if entity is None:
            if node is not None:
                node_id = node.get_id
                entity = self.by_id.get(node_id)
                if entity is None:
                    old = dict(node.properties)
                    seen = old.pop(ALIASES, None)
                    old.pop(NORM_KEY, None)
                    old.pop(names.NAME_KEY, None)
                    current = old.pop("name", None) if isinstance(old.get("name"), str) else None
                    aliases = [item for item in (seen if isinstance(seen, list) else []) if isinstance(item, str)]
                    entity = Entity(node_id, current or name, set(node.labels), old, aliases or [current or name], existing=True)
                    self.by_id[node_id] = entity
            else:
                entity = Entity(entity_id(name), name, set(), {}, [], existing=False)
                self.by_id[entity.node_id] = entity
            if key is not None:
                self.by_key[key] = entity
        if name != entity.name and name not in entity.aliases:
            if score is not None:
                reason = f"similar name in this call (score {score:.0f} ≥ fuzzy={self.fuzzy:g})"
            else:
                reason = "same name ignoring case, spacing and punctuation" + (" as a node already in the graph" if entity.existing else "")
            self.merges.append(Merge(name, entity.name, entity.node_id, reason))
        if name not in entity.aliases:
            entity.aliases.append(name)
        entity.labels.add(label)
        entity.properties.update({k: v for k, v in properties.items() if k not in {"name", ALIASES, NORM_KEY, names.NAME_KEY}})
        entity.batches.add(batch)
        return entity

    def _similar(self, key: str, label: str) -> tuple[Entity | None, float | None]:
        """The most similar entity of this call sharing ``label``, if its key scores at least ``fuzzy``."""
        from rapidfuzz import fuzz, process

        choices = {other: entity for other, entity in self.by_key.items() if label in entity.labels}
        found = process.extractOne(key, list(choices), scorer=fuzz.ratio, score_cutoff=self.fuzzy) if choices else None
        return (choices[found[0]], found[1]) if found else (None, None)
