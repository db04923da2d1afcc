"""``Subgraph`` → the canvas payload: compact JSON with display-ready, length-bounded text.

Nodes and edges refer to labels and relationship types by index (the legend lists them once).
Nodes are keyed on the page by their id as loaded (``0``, not the stored ``__lc_int__:0``), so the
side panel, the selection and callbacks show what the person gave; two nodes that would read
alike (the integer 5 and the text "5") get distinct keys. Property values are shortened (``VALUE_CHARS``) and at most ``MAX_PROPERTIES`` are sent per
element, so one huge property cannot blow up a saved notebook; the cut is marked with "…".
Plain properties (short text, numbers, booleans, None: the common case) go out as the element's own dict, or
a copy without bookkeeping keys, with no per-key work; anything else takes the full path (``_properties``).
"""

from __future__ import annotations

import json
from typing import Any

from ..graph.bookkeeping import TYPES as BOOKKEEPING_TYPES
from ..graph.bookkeeping import legend_label, legend_type
from ..graph.ids import as_loaded, stored
from ..graph.subgraph import Edge, Node, Subgraph, building
from ..graph.values import SAFE_INTEGER, display_properties, number_text
from ..render.captions import caption
from ..render.palette import label_color
from ..shorten import shorten, shorten_caption
from .protocol import EdgeColumns

VALUE_CHARS = 300
CAPTION_CHARS = 60
MAX_PROPERTIES = 30


def compact_json(value: Any) -> bytes:
    """``value`` as compact UTF-8 JSON, values JSON has no form for as text (``default=str``). orjson writes the
    same bytes as ``json.dumps(separators=(",", ":"), ensure_ascii=False)`` about five times faster (a 10k-node
    payload: 11 ms instead of 52), and ``null`` for a NaN where json writes ``NaN``, which no page can parse;
    json takes what orjson refuses (a key that is not text, an integer past 64 bits, a lone surrogate: as ASCII,
    escaped, so that too reaches the page)."""
    import orjson  # deferred: start-up time

    try:
        return orjson.dumps(value, default=str)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json.dumps(value, separators=(",", ":"), default=str).encode("ascii")


def bounded_value(value: Any) -> Any:
    """A property value as the page gets it: text cut to VALUE_CHARS, numbers as numbers, anything else as short JSON."""
    if isinstance(value, str):
        return shorten(value, VALUE_CHARS)
    if isinstance(value, (bool, int, float)) or value is None:
        text = number_text(value)  # NaN, inf, an integer past 2**53: as text, which the page shows whole
        return value if text is None else text
    return shorten(json.dumps(value, ensure_ascii=False, default=str), VALUE_CHARS)


def _properties(shown: dict[str, Any]) -> dict[str, Any]:
    """Display-ready properties (see ``display_properties``), bounded in count and length.

    Keys starting with ``__`` are gestalt-nb's and the adapter's own bookkeeping (``__name_lc`` of old databases,
    memory paths and vectors): the panel leaves them out; tables and ``.subgraph`` keep them.
    """
    out: dict[str, Any] = {}
    more = 0
    for key, value in shown.items():  # one pass: this runs for every element of every drawing
        key = str(key)
        if key.startswith("__"):
            continue
        if len(out) >= MAX_PROPERTIES:
            more += 1
            continue
        plain = (type(value) is str and len(value) <= VALUE_CHARS) or type(value) is bool or (type(value) is int and -SAFE_INTEGER <= value <= SAFE_INTEGER)
        out[shorten(key, 100)] = value if plain else bounded_value(value)
    if more:
        out["…"] = f"{more} more properties (see the Table tab or .subgraph)"
    return out


def _plain(properties: dict[str, Any]) -> dict[str, Any] | None:
    """``_properties(display_properties(properties))`` for the common case, without per-key copies: plain values
    (short text, numbers, booleans, None) under plain keys; None for anything else (then the full path runs).

    The node's own dict is sent when none of its keys is bookkeeping (``__…``); else a copy without those.
    """
    hidden = 0
    for key, value in properties.items():
        kind = type(value)
        if type(key) is not str or len(key) > 100:
            return None
        if key.startswith("__"):
            hidden += 1
        elif kind is str:
            if len(value) > VALUE_CHARS:
                return None
        elif kind is float:
            if value != value or value in _INFINITE:
                return None
        elif kind is int:
            if not -SAFE_INTEGER <= value <= SAFE_INTEGER:
                return None
        elif kind is not bool and value is not None:
            return None
    if len(properties) - hidden > MAX_PROPERTIES:
        return None
    return {key: value for key, value in properties.items() if not key.startswith("__")} if hidden else properties


_INFINITE = (float("inf"), float("-inf"))


class Vocabulary:
    """Label and type names in first-seen order; indexes stay valid as the canvas grows."""

    def __init__(self) -> None:
        self.labels: list[str] = []
        self.types: list[str] = []
        self.keys: dict[str, str] = {}  # stored node id -> its key on the page
        self.ids: dict[str, str] = {}  # key on the page -> stored node id
        self._numbers: dict[tuple[int, str], int] = {}  # (its list, label or type name) -> its index in that list
        #: Bookkeeping names the drawing's query wrote out (``Subgraph.asked``): listed as they are; other
        #: bookkeeping labels and types are listed in words (``bookkeeping.legend_label``), the panel keeps them.
        self.asked: frozenset[str] = frozenset()
        self.ends: dict[str, tuple[str, ...]] = {}  # node id -> labels, for ``type_name``

    def key(self, node_id: str | int) -> str:
        """The node's key on the page: its id as loaded, unless another node already reads the same."""
        known = self.keys.get(node_id)
        if known is not None:
            return known
        candidate = str(as_loaded(node_id))  # then the stored id, then its JSON text (made only when needed)
        if candidate in self.ids:
            text = stored(node_id)
            candidate = text if text not in self.ids else json.dumps(text)
        self.keys[node_id], self.ids[candidate] = candidate, node_id
        return candidate

    def node_id(self, key: str) -> str:
        """The stored id of the node drawn under ``key`` (unknown keys unchanged)."""
        return self.ids.get(key, key)

    def _index(self, names: list[str], name: str) -> int:
        if not name:
            return -1
        number = self._numbers.get((id(names), name))
        if number is None or number >= len(names) or names[number] != name:
            try:
                number = names.index(name)
            except ValueError:
                names.append(name)
                number = len(names) - 1
            self._numbers[(id(names), name)] = number
        return number

    def type_name(self, edge: Edge) -> str:
        """The name a relationship's type is listed by (``bookkeeping.legend_type``: words for a bookkeeping one)."""
        kind = edge.type
        if kind in BOOKKEEPING_TYPES or kind.startswith("__"):
            return legend_type(kind, (self.ends.get(edge.source, ()), self.ends.get(edge.target, ())), self.asked)
        return kind

    def legend(self) -> list[dict[str, str]]:
        return [{"name": name, "color": label_color(name)} for name in self.labels]

    def node(self, node: Node, caption_property: str, highlighted: bool, group: dict[str, Any] | bool | None = None) -> dict[str, Any]:
        properties = node.properties
        panel = _plain(properties)  # plain values: display_properties would hand them back unchanged
        shown = properties if panel is not None else display_properties(properties)
        value = shown.get(caption_property)
        text = value if type(value) is str else caption(node.id, shown, caption_property)
        labels = node.labels
        first = labels[0] if labels else ""
        if first.startswith("__") or (len(labels) > 1 and any(label.startswith("__") for label in labels)):
            self.ends[node.id] = labels  # a bookkeeping end: its MENTIONS, IN_NAMESPACE, ... are bookkeeping too
            first = legend_label(labels, self.asked)  # the legend gets the person's own label, or words
        item: dict[str, Any] = {
            "id": self.keys.get(node.id) or self.key(node.id),
            "c": shorten_caption(text, CAPTION_CHARS),
            "l": self._index(self.labels, first) if labels else -1,
        }
        if len(labels) > 1 or (labels and first != labels[0]):  # the panel shows every label the node has
            item["L"] = [label for label in labels if label != first]
        if highlighted:
            item["h"] = 1
        if group:  # an overview's super-node (its entry in ``Subgraph.groups``): its caption is always drawn
            item["g"] = 1
            if isinstance(group, dict) and "colour" in group:  # its colour when the canvas colours by group
                item["k"] = int(group["colour"])
        if shown:
            item["p"] = panel if panel is not None else _properties(shown)
        return item

    def edge(self, edge: Edge, highlighted: bool, groups: dict[str, Any] | None = None) -> dict[str, Any]:
        keys = self.keys
        item: dict[str, Any] = {
            "id": edge.id,
            "s": keys.get(edge.source) or self.key(edge.source),
            "t": keys.get(edge.target) or self.key(edge.target),
            "y": self._index(self.types, name := self.type_name(edge)),
        }
        if highlighted:
            item["h"] = 1
        width = _width(edge, groups)
        if width:
            item["w"] = width
        panel = _edge_panel(edge)
        if name != edge.type:  # listed in words: the panel names the stored type
            panel = {**(panel or {}), "type": edge.type}
        if panel is not None:
            item["p"] = panel
        return item

    def edge_columns(self, edges: list[Edge], marked: set[str], groups: dict[str, Any], index: dict[str, int]) -> tuple[EdgeColumns, list[dict[str, Any]]]:
        """The relationships whose two ends are in the node list (``index``: node id -> position) as columns
        (``ec``: ``protocol.EdgeColumns``), a list per field, row i of each being relationship i: ``id``, ``s`` / ``t``
        (its ends, as positions in ``nodes``), ``y`` (its type, as in ``edge``), and when any: ``h`` (1: every one is
        highlighted, else the rows that are), ``p`` and ``w`` (``[row, properties]`` / ``[row, count]`` pairs). A third
        less JSON than a dict per relationship at 10k, and the page adds them without parsing one each. The few whose
        ends are not in ``nodes`` are returned apart, as ``edge`` makes them (the page leaves those out)."""
        ids: list[str] = []
        sources: list[int] = []
        targets: list[int] = []
        kinds: list[int] = []
        lit: list[int] = []
        panels: list[list[Any]] = []
        widths: list[list[int]] = []
        apart: list[dict[str, Any]] = []
        number, types, get = self._index, self.types, index.get
        kinds_seen: dict[str, int] = {}  # type -> its index, for this call (the list only grows meanwhile)
        for edge in edges:
            source, target = get(edge.source), get(edge.target)
            if source is None or target is None:
                apart.append(self.edge(edge, edge.id in marked, groups))
                continue
            at = len(ids)
            ids.append(edge.id)
            sources.append(source)
            targets.append(target)
            kind = kinds_seen.get(edge.type)
            if kind is None:
                kind = number(types, self.type_name(edge))
                if edge.type not in BOOKKEEPING_TYPES and not edge.type.startswith("__"):  # else named by its ends, each time
                    kinds_seen[edge.type] = kind
            kinds.append(kind)
            if edge.id in marked:
                lit.append(at)
            if groups and (width := _width(edge, groups)):
                widths.append([at, width])
            properties = edge.properties  # only its type (the common case) skips the call: one per relationship here
            panel = None if len(properties) == 1 and properties.get("type", edge) == edge.type else _edge_panel(edge)
            if kind >= 0 and types[kind] != edge.type:  # listed in words: the panel names the stored type
                panel = {**(panel or {}), "type": edge.type}
            if panel is not None:
                panels.append([at, panel])
        columns = EdgeColumns(id=ids, s=sources, t=targets, y=kinds)
        if lit:
            columns["h"] = 1 if len(lit) == len(ids) else lit
        if panels:
            columns["p"] = panels
        if widths:
            columns["w"] = widths
        return columns, apart

    def nodes(self, subgraph: Subgraph, caption_property: str) -> list[dict[str, Any]]:
        node, marked, groups = self.node, subgraph.highlight_nodes, subgraph.groups
        return [node(item, caption_property, item.id in marked, groups.get(item.id)) for item in subgraph.nodes.values()]

    def elements(self, subgraph: Subgraph, caption_property: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        edge, marked, groups = self.edge, subgraph.highlight_edges, subgraph.groups
        return self.nodes(subgraph, caption_property), [edge(item, item.id in marked, groups) for item in subgraph.edges.values()]


def _width(edge: Edge, groups: dict[str, Any] | None) -> int:
    """An overview's super-edge is drawn as wide as its count of relationships; 0 for any other."""
    if groups and (edge.source in groups or edge.target in groups):
        count = edge.properties.get("relationships")
        if type(count) is int and count >= 1:
            return count
    return 0


def _edge_panel(edge: Edge) -> dict[str, Any] | None:
    """A relationship's properties for the panel, less its type (None when only its type is there: the common case)."""
    properties = edge.properties
    if len(properties) == 1 and properties.get("type", edge) == edge.type:
        return None
    properties = {key: value for key, value in properties.items() if key != "type" or value != edge.type}
    if not properties:
        return None
    panel = _plain(properties)
    return panel if panel is not None else _properties(display_properties(properties))


def payload(subgraph: Subgraph, vocabulary: Vocabulary, caption_property: str, *, counts: dict[str, int] | None = None,
            columns: bool = True) -> dict[str, Any]:
    """The base ``graph`` trait of a canvas (relationships in columns, ``ec``; ``columns=False``: a dict each, ``edges``)."""
    vocabulary.asked = subgraph.asked
    marked = subgraph.faded | subgraph.changed.keys() if subgraph.faded or subgraph.changed else set()
    with building():
        if columns:
            nodes = vocabulary.nodes(subgraph, caption_property)
            index = {node_id: number for number, node_id in enumerate(subgraph.nodes)}
            plain = [edge for edge in subgraph.edges.values() if edge.id not in marked] if marked else list(subgraph.edges.values())
            packed, edges = vocabulary.edge_columns(plain, subgraph.highlight_edges, subgraph.groups, index)
            if marked:  # a ghost's or a change's marks go with a dict each (the columns carry none)
                edges += [vocabulary.edge(edge, edge.id in subgraph.highlight_edges, subgraph.groups)
                          for edge in subgraph.edges.values() if edge.id in marked]
        else:
            nodes, edges = vocabulary.elements(subgraph, caption_property)
    if marked:
        for node_id, item in zip(subgraph.nodes, nodes):
            mark(item, node_id, subgraph)
        for item in edges:
            mark(item, item["id"], subgraph)
    graph = {
        "nodes": nodes,
        "edges": edges,
        "labels": vocabulary.legend(),
        "types": list(vocabulary.types),
        "title": subgraph.title,
        "notes": list(subgraph.notes),
        "counts": counts or {"nodes": len(subgraph.nodes), "edges": len(subgraph.edges)},
    }
    if columns:
        graph["ec"] = packed
    return graph


def mark(item: dict[str, Any], key: Any, subgraph: Subgraph) -> dict[str, Any]:
    """``item`` (a node or relationship as the page gets it) marked ``o`` (drawn faded, a ghost) and ``d`` (its changed
    properties, ``{property: [before, after]}``, bounded as the panel's values are) from ``subgraph.faded`` / ``.changed``."""
    if key in subgraph.faded:
        item["o"] = 1
    changes = subgraph.changed.get(key)
    if changes:
        item["d"] = {shorten(str(name), 100): [bounded_value(before), bounded_value(after)]
                     for name, (before, after) in list(changes.items())[:MAX_PROPERTIES]}
    return item


def as_rows(graph: dict[str, Any]) -> dict[str, Any]:
    """A base payload with its relationship columns (``ec``) turned back into a dict each in ``edges`` (as
    ``columns=False`` makes them: the columns' relationships first, in order); other payloads unchanged."""
    packed = graph.get("ec")
    if not isinstance(packed, dict):
        return graph
    keys = [node["id"] for node in graph["nodes"]]
    lit = packed.get("h")
    marked = set(range(len(packed["id"]))) if lit == 1 else set(lit or ())
    panels, widths = dict(packed.get("p", ())), dict(packed.get("w", ()))
    edges = []
    for number, (edge_id, source, target, kind) in enumerate(zip(packed["id"], packed["s"], packed["t"], packed["y"])):
        item: dict[str, Any] = {"id": edge_id, "s": keys[source], "t": keys[target], "y": kind}
        if number in marked:
            item["h"] = 1
        if number in widths:
            item["w"] = widths[number]
        if number in panels:
            item["p"] = panels[number]
        edges.append(item)
    rows = {key: value for key, value in graph.items() if key != "ec"}
    rows["edges"] = edges + list(graph["edges"])
    return rows
