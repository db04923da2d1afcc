"""A query's rows in one compact form: the engine's values read once, JSON made per row when read.

``Rows.from_engine`` takes the engine's records after the adapter's read-only check (see
``cypher/reading.py``) and keeps each row as a tuple of compact values: nodes and relationships become
the ``Subgraph``'s own ``Node`` / ``Edge`` objects (one per engine object, and in a read one per id and
content, their properties in the adapter's JSON form), paths a ``Path`` of them, plain values as they are. Anything else (temporal values,
dates, bytes, maps with odd keys …) goes through the adapter's ``normalize`` here, so its errors
(non-finite floats, unsupported types) are raised while the query runs, as before.

A row's JSON (``rows[i]``, ``head(n)``, ``records()``) is the adapter's JSON exactly: nodes
``{id, properties, labels}``, relationships ``{id, source, target, properties}``, paths ``{nodes, edges}``,
keys in the engine's order. A node's properties dict is shared by its drawing and its records, and by
the rows that hold that node (nothing in gestalt-nb writes to it). ``records()`` is made once, when first read; views convert only the rows
they show. ``subgraph()`` finds the same nodes, relationships and paths ``subgraph.from_records``
finds in the JSON, without making it: for a read whose values are all nodes, relationships, paths, lists
and plain values, the first call takes the reader's own id → entity dicts (filled in the order the rows
hold them, which is the order walking the rows finds them); anything else (a map, the adapter's JSON, a
write's rows) is walked.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import Any

from gestaltdb.graphdb import Edge as EngineEdge
from gestaltdb.graphdb import Node as EngineNode
from gestaltdb.query_engine.cypher.ast import PathValue

from ..engine.store import raw_id
from .adapter import normalize
from .ids import PREFIX, as_loaded, stored
from .subgraph import Edge, Node, NodeFetcher, Subgraph, building, from_records
from .values import EDGE_KEYS, NODE_KEYS, PATH_KEYS

_intern = sys.intern
_isfinite = math.isfinite
_SHAPES = (NODE_KEYS, EDGE_KEYS, PATH_KEYS)


class Path:
    """A path in compact form: its nodes and relationships, in order."""

    __slots__ = ("nodes", "edges")

    def __init__(self, nodes: tuple[Any, ...], edges: tuple[Any, ...]) -> None:
        self.nodes, self.edges = nodes, edges


def to_json(value: Any) -> Any:
    """The adapter's JSON of one compact value (fresh containers; properties dicts shared)."""
    kind = type(value)
    if kind is Node:  # ids as the adapter stores them (a Subgraph keys them as loaded: 2, not __lc_int__:2)
        node_id = value.id
        return {"id": node_id if type(node_id) is str else stored(node_id), "properties": value.properties, "labels": list(value.labels)}
    if kind is Edge:
        source, target = value.source, value.target
        return {"id": value.id, "source": source if type(source) is str else stored(source),
                "target": target if type(target) is str else stored(target), "properties": value.properties}
    if kind is list:
        return [to_json(item) for item in value]
    if kind is dict:
        return {key: to_json(item) for key, item in value.items()}
    if kind is Path:
        return {"nodes": [to_json(item) for item in value.nodes], "edges": [to_json(item) for item in value.edges]}
    return value


_SCALARS = frozenset({str, int, bool, type(None)})  # JSON as they are (finite floats too)
_new = object.__new__
_SET_NODE_ID, _SET_LABELS, _SET_NODE_PROPERTIES = (Node.__dict__[name].__set__ for name in ("id", "labels", "properties"))
_SET_EDGE_ID, _SET_SOURCE, _SET_TARGET, _SET_TYPE, _SET_EDGE_PROPERTIES = (
    Edge.__dict__[name].__set__ for name in ("id", "source", "target", "type", "properties"))


def _node(node_id: str, labels: tuple[str, ...], properties: Any) -> Node:
    """``Node(node_id, labels, properties)`` without the frozen dataclass's per-field ``__setattr__`` (thousands per result)."""
    node = _new(Node)
    _SET_NODE_ID(node, node_id)
    _SET_LABELS(node, labels)
    _SET_NODE_PROPERTIES(node, properties)
    return node


def _edge(edge_id: str, source: str, target: str, kind: str, properties: Any) -> Edge:
    edge = _new(Edge)
    _SET_EDGE_ID(edge, edge_id)
    _SET_SOURCE(edge, source)
    _SET_TARGET(edge, target)
    _SET_TYPE(edge, kind)
    _SET_EDGE_PROPERTIES(edge, properties)
    return edge


class _Reader:
    """Turns one result's engine values into compact values; an engine object read twice is converted once,
    and, within one snapshot (``same_state``: a read), another engine object with the same id shares it when equal."""

    def __init__(self, same_state: bool) -> None:
        self.same_state = same_state
        self.seen: dict[int, Any] = {}  # id(engine object) -> its compact value (the objects outlive the read)
        self.ids: dict[str, str | int] = {}  # stored node id -> one object of it as loaded (edges' endpoints share it)
        self.labels: dict[tuple[str, ...], tuple[str, ...]] = {}  # one tuple per label set
        self.nodes: dict[str | int, Node] = {}  # by id as loaded; in a read: every node and relationship, in the order the rows hold them
        self.edges: dict[str, Edge] = {}
        #: False once a value was met that ``_absorb`` reads otherwise than this reader (a map, the adapter's
        #: JSON, two unequal objects with one id): then ``nodes`` / ``edges`` are not the rows' subgraph.
        self.exact = same_state

    def value(self, value: Any, depth: int) -> Any:
        kind = type(value)
        if kind in _SCALARS or (kind is float and _isfinite(value)):
            return value
        if kind is EngineNode or kind is EngineEdge or isinstance(value, (EngineNode, EngineEdge, PathValue)):
            known = self.seen.get(id(value))
            if known is None:
                known = self.seen[id(value)] = (self.node(value, depth) if kind is EngineNode else
                                                self.edge(value, depth) if kind is EngineEdge else self.entity(value, depth))
            return known
        if depth < 64 and (kind is list or kind is tuple):
            return [self.value(item, depth + 1) for item in value]
        self.exact = False
        if depth < 64 and kind is dict and all(type(key) is str for key in value):
            return {key: self.value(item, depth + 1) for key, item in value.items()}
        return normalize(value, _depth=depth)  # the adapter's conversion, or its error

    def fresh(self, value: Any) -> Any:
        """``value(value, 1)`` for a row's value not met before: a relationship or a node goes straight to ``edge`` /
        ``node`` (most values of a pattern read), anything else to ``value``."""
        kind = type(value)
        if kind is EngineEdge or kind is EngineNode:
            made = self.seen[id(value)] = self.edge(value, 1) if kind is EngineEdge else self.node(value, 1)
            return made
        return self.value(value, 1)

    def entity(self, value: Any, depth: int) -> Any:
        if isinstance(value, EngineNode):
            return self.node(value, depth)
        if isinstance(value, EngineEdge):
            return self.edge(value, depth)
        if depth >= 63:
            self.exact = False
            return normalize(value, _depth=depth)
        return Path(tuple(self.value(item, depth + 2) for item in value.nodes), tuple(self.value(item, depth + 2) for item in value.edges))

    def node(self, value: EngineNode, depth: int) -> Any:
        node_id, given = raw_id(value), value.labels
        labels = self.labels.get(given) if type(given) is tuple else None  # the engine's labels: a tuple of str
        if labels is None:
            if type(node_id) is not str or type(given) is not tuple or not all(type(label) is str for label in given):
                self.exact = False
                return normalize(value, _depth=depth)  # not the engine's usual shapes: the adapter's JSON
            labels = self.labels[given] = tuple(map(_intern, given))
        if type(node_id) is not str or depth >= 62:
            self.exact = False
            return normalize(value, _depth=depth)
        node_id = self.loaded(node_id)
        known = self.nodes.get(node_id) if self.same_state else None
        if known is not None and known.labels == labels and known.properties == value.properties:
            return known
        properties = self.properties(value.properties, depth + 1)
        node = _node(node_id, labels, properties)
        if known is None and self.same_state:
            self.nodes[node_id] = node
        elif known is not None:
            self.exact = False
        return node

    def edge(self, value: EngineEdge, depth: int) -> Any:
        edge_id, source, target = raw_id(value), value.source, value.target  # an end: an id, or a Node (its id), as ``Edge.to_dict`` reads them
        if not isinstance(source, str):
            source = source.get_id
        if not isinstance(target, str):
            target = target.get_id
        known = self.edges.get(edge_id) if self.same_state else None
        if (known is not None and known.properties == value.properties and type(source) is str and type(target) is str
                and (known.source, known.target) == (self.loaded(source), self.loaded(target))):
            return known
        if not (type(edge_id) is str and type(source) is str and type(target) is str) or depth >= 62:
            self.exact = False
            return normalize(value, _depth=depth)
        given = value.properties
        if type(given) is dict and len(given) == 1 and type(kind := given.get("type")) is str:  # only its type: the common case
            kind = _intern(kind)
            properties: Any = {"type": kind}
        else:
            properties = self.properties(given, depth + 1)
            kind = properties.get("type") if isinstance(properties, dict) else None
            kind = _intern(kind) if type(kind) is str else (kind if isinstance(kind, str) else "")
        edge = _edge(edge_id, self.loaded(source), self.loaded(target), kind, properties)
        if known is None and self.same_state:
            self.edges[edge_id] = edge
        elif known is not None:
            self.exact = False
        return edge

    def loaded(self, node_id: str) -> str | int:
        """One object per node id, as loaded (``__lc_int__:2`` → ``2``: a ``Subgraph``'s key; edges' ends share it)."""
        found = self.ids.get(node_id)
        if found is None:
            found = self.ids[node_id] = as_loaded(node_id) if node_id.startswith(PREFIX) else node_id
        return found

    @staticmethod
    def properties(properties: Any, depth: int) -> Any:
        """A plain properties map rebuilt with shared key strings; any other through ``normalize``."""
        if type(properties) is dict:
            out = {}
            for key, value in properties.items():
                kind = type(value)
                if type(key) is not str or not (kind in _SCALARS or (kind is float and _isfinite(value))):
                    break
                out[_intern(key)] = value
            else:
                return out
        return normalize(properties, _depth=depth)


class Rows(Sequence):
    """A query's rows: compact values, or JSON records given as they are. ``rows[i]`` is row i's JSON."""

    def __init__(self, keys: tuple[str, ...], items: list[Any], records: list[dict[str, Any]] | None = None) -> None:
        self.keys = keys
        self._items = items  # a tuple per row (values in ``keys`` order), or a dict for a row with other keys
        self._records = records
        #: The reader's nodes and relationships when they are exactly what ``subgraph()`` finds (a read's rows),
        #: used once by the first ``subgraph()`` instead of walking the rows again.
        self._found: tuple[dict[str, Node], dict[str, Edge]] | None = None

    @classmethod
    def from_engine(cls, records: list[dict[str, Any]], *, same_state: bool = True) -> Rows:
        """The engine's records, read once (see the module docstring). ``same_state``: the rows come from one
        snapshot (a read), so two engine objects with one id hold the same entity; not so for a write's rows."""
        reader = _Reader(same_state)
        keys = tuple(records[0]) if records else ()
        items: list[Any] = []
        with building():
            cls._read(reader, keys, records, items)
        rows = cls(keys, items)
        if reader.exact:
            rows._found = (reader.nodes, reader.edges)
        return rows

    @staticmethod
    def _read(reader: _Reader, keys: tuple[str, ...], records: list[Any], items: list[Any]) -> None:
        value, known, fresh = reader.value, reader.seen.get, reader.fresh  # a plain value as it is, an engine object met before: with no call
        width, scalars = len(keys), _SCALARS
        plain = all(type(key) is str for key in keys)
        for record in records:
            if type(record) is dict and len(record) == width and plain and tuple(record) == keys:
                items.append(tuple([item if type(item) in scalars else known(id(item)) or fresh(item) for item in record.values()]))
            elif type(record) is not dict or not all(type(key) is str for key in record):
                items.append(normalize(record))  # not a plain row: the adapter's JSON, as before
                reader.exact = False
            else:
                items.append({key: value(item, 1) for key, item in record.items()})

    @classmethod
    def from_json(cls, records: list[dict[str, Any]]) -> Rows:
        """Records already in the adapter's JSON form (kept as given, the same list)."""
        return cls(tuple(records[0]) if records else (), records, records)

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[number] for number in range(*index.indices(len(self)))]
        if self._records is not None:
            return self._records[index]
        item = self._items[index]
        if type(item) is tuple:
            return dict(zip(self.keys, [to_json(value) for value in item]))
        return to_json(item)

    def __iter__(self):
        if self._records is not None:
            return iter(self._records)
        return (self[number] for number in range(len(self._items)))

    def head(self, count: int | None = None) -> list[dict[str, Any]]:
        """The JSON of the first ``count`` rows (all by default); not kept unless ``records()`` was made."""
        return self[: len(self) if count is None else count]

    def records(self) -> list[dict[str, Any]]:
        """Every row's JSON, made once and kept."""
        if self._records is None:
            self._records = self.head()
        return self._records

    def subgraph(self, *, title: str = "", fetch: NodeFetcher | None = None) -> Subgraph:
        """What ``subgraph.from_records(self.records())`` returns, made from the compact rows."""
        if self._records is not None and self._items is self._records:
            return from_records(self._records, title=title, fetch=fetch)
        found, self._found = self._found, None
        if found is not None:  # the reader met them in this order: what the walk below would find
            subgraph = Subgraph(found[0], found[1], title=title)
        else:
            subgraph = Subgraph(title=title)
            with building():
                for item in self._items:
                    for value in item if type(item) is tuple else item.values():
                        _absorb(subgraph, value)
        # Everything found in the rows is highlighted (as ``from_records`` does); endpoints fetched next are not.
        subgraph.highlight_nodes, subgraph.highlight_edges = set(subgraph.nodes), set(subgraph.edges)
        subgraph.complete_endpoints(fetch)
        return subgraph


def _absorb(subgraph: Subgraph, value: Any) -> None:
    """``Subgraph.add_value`` on ``to_json(value)`` (no highlight), without making the JSON of nodes and relationships."""
    kind = type(value)
    if kind is Node:
        subgraph.add_node(value)
    elif kind is Edge:
        subgraph.add_edge(value)
    elif kind is Path:
        for item in value.nodes + value.edges:
            _absorb(subgraph, item)
    elif kind is list:
        for item in value:
            _absorb(subgraph, item)
    elif kind is dict:
        if "$type" in value or value.keys() in _SHAPES:
            subgraph.add_value(to_json(value), highlight=False)  # a map shaped like an entity, a path or a temporal value
        else:
            for item in value.values():
                _absorb(subgraph, item)
