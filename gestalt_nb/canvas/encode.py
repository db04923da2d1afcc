"""What the canvas shows: encodings (colour / size / caption), layouts and filters, as small deltas.

``canvas.style(color=..., size=..., caption=...)``, ``canvas.layout(name, **options)`` and
``canvas.filter(labels=..., types=..., nodes=...)`` each send one delta that names the encoding; the
page computes colours, sizes, metrics (degree, PageRank, communities) and positions over the drawn
graph from the properties it already holds, so a style change resends no node and moves none.
The current choices are kept here and go into the base payload (``"view"``) when it is rebuilt.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..checks import checked_methods
from ..errors import GestaltError
from ..graph.bookkeeping import legend_label, legend_type
from ..graph.subgraph import Node, Subgraph
from ..graph.values import display_properties
from ..options import SIZE_METRICS, Colour, Layout, Size
from ..render.captions import caption as caption_of
from ..shorten import listing, shorten
from .payload import CAPTION_CHARS, MAX_PROPERTIES, bounded_value
from .protocol import FilterOp, LayoutOp, StyleOp


def _known_properties(nodes: Iterable[Node]) -> set[str]:
    return {key for node in nodes for key in node.properties if not str(key).startswith("__")}


def _numeric(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def color_spec(color: str, nodes: list[Node], groups: dict[str, Any] | None = None) -> dict[str, Any]:
    """``PROP`` (numbers with at most 12 values: categories, else a ramp), ``PROP:ramp`` or ``PROP:categories``
    (a :class:`~gestalt_nb.options.Colour`, or its text) checked against the drawn nodes; ``"group"`` on an
    overview's drawing (``groups``): each group its own colour (``grouped/colours.py``), its opened members its colour."""
    colour = Colour(color)
    if groups and colour == "group":
        return {"by": "group"}
    if colour.by != "property":
        return {"by": colour.by}
    known = _known_properties(nodes)
    name, mode = (str(colour), "") if colour in known else (colour.name, colour.as_)
    if name not in known:
        raise GestaltError(f"No drawn node has a property {name!r}; colour by 'label', 'community' or one of: {_names(nodes)} "
                           "(add :ramp or :categories to force either).")
    return {"by": "property", "name": name, **({"as": mode} if mode else {}), **({"colours": colour.colours} if colour.colours else {})}


def size_spec(size: str, nodes: list[Node]) -> dict[str, Any]:
    """A metric, or a numeric property (a :class:`~gestalt_nb.options.Size`, or its text) checked against the drawn
    nodes; a size by area (an overview's member counts) says so in its legend."""
    size = Size(size)
    if size.by != "property":
        return {"by": size.by}
    if size.name not in _known_properties(nodes):
        raise GestaltError(f"No drawn node has a property {size.name!r}; size by {', '.join(SIZE_METRICS)} or a numeric property: {_names(nodes)}.")
    if not any(_numeric(node.properties.get(size.name)) for node in nodes):
        raise GestaltError(f"Property {size.name!r} has no numeric values on the drawn nodes, so it cannot set a size; colour by it instead.")
    return {"by": "property", "name": size.name, **({"title": f"area = {size.name}", "area": True} if size.area else {})}


def _kept_by(predicate: Callable[[Node], Any], node: Node) -> bool:
    """``predicate(node)``; the person's own error said as theirs, naming the node it failed on."""
    try:
        return bool(predicate(node))
    except Exception as exc:
        raise GestaltError(f"filter(nodes=...): your function raised {type(exc).__name__}: {exc} on node {node.id!r}; "
                           "nothing was filtered.") from exc


def _names(nodes: list[Node]) -> str:
    names = sorted(_known_properties(nodes))
    return listing(names, 20) if names else "(none)"


def cut_values(nodes: list[Node], name: str) -> dict[str, Any]:
    """Values of ``name`` the payload left out (a node with more than MAX_PROPERTIES properties)."""
    out = {}
    for node in nodes:
        shown = [key for key in node.properties if not str(key).startswith("__")]
        if name in node.properties and len(shown) > MAX_PROPERTIES and name not in shown[:MAX_PROPERTIES]:
            out[node.id] = {name: bounded_value(display_properties({name: node.properties[name]})[name])}
    return out


@checked_methods
class ViewMethods:
    """Mixed into ``GraphCanvas``: style / layout / filter, each one delta.

    What it uses of the canvas is declared here: the drawn ``subgraph``, the ``caption_property`` and
    ``_delta`` (send one delta to the page).
    """

    view_state: dict[str, Any]
    subgraph: Subgraph
    caption_property: str
    _delta: Callable[..., None]

    def _view_defaults(self, color: Colour | str | None, size: Size | str | None, layout: Layout | str | None) -> None:
        """The drawing's first colour, size and layout: values read where they were written (a plain
        ``GraphCanvas(layout="grid")`` is read here, its one place)."""
        self.view_state = {"style": {}, "layout": {"name": "force", "options": {}}, "filter": None}
        nodes = list(self.subgraph.nodes.values())
        colour, size = Colour(color or "label"), Size(size or "degree")
        if colour.by != "label" and nodes:  # an empty drawing (an empty result, grouped) has nothing to colour or size
            self.view_state["style"]["color"] = color_spec(colour, nodes, self.subgraph.groups)
        if size.by != "degree" and nodes:  # "degree" is the default scale (logarithmic); style(size="degree") is linear
            self.view_state["style"]["size"] = size_spec(size, nodes)
        if layout:
            self.view_state["layout"] = Layout(layout).spec()

    def style(self, *, color: str | None = None, size: str | None = None, caption: str | None = None) -> None:
        """Colour nodes by ``"label"``, ``"community"`` or a property; size them by a metric or a numeric property;
        caption them by a property. Only the encoding is sent: no node moves, the legend says what each means."""
        nodes = list(self.subgraph.nodes.values())
        op = StyleOp(op="style")
        if color is not None:
            op["color"] = color_spec(color, nodes, self.subgraph.groups)
            cut = cut_values(nodes, op["color"]["name"]) if op["color"].get("name") else None
            if cut:
                op["values"] = cut  # {node id: {property: value}}
        if size is not None:
            op["size"] = size_spec(size, nodes)
            cut = cut_values(nodes, op["size"]["name"]) if op["size"].get("name") else None
            for node_id, value in (cut or {}).items():
                op.setdefault("values", {}).setdefault(node_id, {}).update(value)
        if caption is not None:
            self.caption_property = str(caption)
            op["caption"] = self.caption_property
            op["captions"] = {node.id: shorten(caption_of(node.id, display_properties(node.properties), self.caption_property), CAPTION_CHARS) for node in nodes}
        if len(op) == 1:
            raise GestaltError("style() needs color=, size= or caption=.")
        self.view_state["style"].update({key: op[key] for key in ("color", "size") if key in op})
        self._delta([op])

    def layout(self, name: str = "force", **options: Any) -> None:
        """Lay the drawing out again: a layout of ``options.LAYOUTS`` by name and its options, as ``--layout`` takes
        them (``"radial", root=ID``; ``"positions", x=PROP, y=PROP``, y growing upward). Nodes move in place;
        pinned nodes stay."""
        spec = Layout(name, **options).spec()
        self.view_state["layout"] = spec
        self._delta([LayoutOp(op="layout", name=spec["name"], options=spec["options"])])

    def filter(self, labels: Iterable[str] | None = None, types: Iterable[str] | None = None, nodes: Callable[[Node], Any] | None = None) -> int:
        """Show only nodes with these labels, relationships of these types, and nodes for which ``nodes(node)`` is
        true (run here, in the kernel); ``filter()`` shows everything again. Returns how many nodes are hidden."""
        if nodes is not None and not callable(nodes):
            raise TypeError(f"filter(nodes=...) takes a function of a node, not {type(nodes).__name__}.")
        op = FilterOp(op="filter")
        if labels is not None:
            op["labels"] = [labels] if isinstance(labels, str) else [str(item) for item in labels]
        if types is not None:
            op["types"] = [types] if isinstance(types, str) else [str(item) for item in types]
        if nodes is not None:
            op["hide"] = [node.id for node in self.subgraph.nodes.values() if not _kept_by(nodes, node)]
        self.view_state["filter"] = op if len(op) > 1 else None
        self._delta([op])
        return sum(1 for item in self.filtered() if item in self.subgraph.nodes)

    def filtered(self) -> set[str]:
        """The ids of the nodes and relationships the last ``filter(...)`` from Python hides."""
        op = self.view_state.get("filter")
        if not op:
            return set()
        drawn = list(self.subgraph.nodes.values())
        hidden = set(op.get("hide", ()))
        asked, nodes = self.subgraph.asked, self.subgraph.nodes
        if "labels" in op:  # by the names the legend lists (bookkeeping ones in words: ``bookkeeping.legend_label``)
            keep = set(op["labels"])
            hidden |= {node.id for node in drawn if (legend_label(node.labels, asked) or "(no label)") not in keep}
        if "types" in op:
            kinds = set(op["types"])

            def ends(edge: Any) -> tuple[tuple[str, ...], ...]:
                return tuple(nodes[end].labels if end in nodes else () for end in (edge.source, edge.target))

            hidden |= {edge.id for edge in self.subgraph.edges.values() if legend_type(edge.type, ends(edge), asked) not in kinds}
        return hidden

