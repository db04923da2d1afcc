"""An SVG picture of what a page showed: the canvas's own positions, sizes and colours.

``canvas.snapshot("svg")`` and the saved notebook's static picture (once a page has reported) use
it, so the picture is the one the person looked at, not a new layout. One ``<circle>`` per visible
node at its on-screen position (its ``data-id`` is the node id), relationships as lines between
visible nodes, captions for up to ``CAPTIONS`` nodes. Every string from the graph is escaped with
``xml.xml_text`` (text and attribute values), so data never becomes markup and the file always parses.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from ..graph.bookkeeping import legend_label
from ..graph.subgraph import Subgraph
from ..graph.values import display_properties
from ..shorten import shorten_caption
from .captions import caption
from .xml import xml_text

CAPTIONS = 150
CAPTION_CHARS = 32
EDGE = "#8c959f"
EDGE_HIGHLIGHT = "#24292f"
#: an opened group's room (an overview's drill): its fill's and rim's opacity, as the page draws it (js/src/rooms.js)
ROOM_FILL, ROOM_EDGE = 0.1, 0.6


def _legend(subgraph: Subgraph, nodes: dict[str, Any], top: int) -> str:
    """Swatches (rects, so circles stay one per node) in a band below the drawing from ``top``, when
    each label has one colour of its own."""
    colours: dict[str, Counter] = defaultdict(Counter)
    for node_id, (_, _, _, colour) in nodes.items():
        node = subgraph.nodes.get(node_id)
        colours[(legend_label(node.labels, subgraph.asked) if node and node.labels else "") or "(no label)"][colour] += 1
    if not colours or any(len(seen) != 1 for seen in colours.values()):
        return ""  # colour means something else than the label (an encoding): the page's legend says what
    picked = [(label, next(iter(seen))) for label, seen in colours.items()]
    if len({colour for _, colour in picked}) != len(picked):
        return ""
    items = "".join(
        f'<rect x="{8 + 120 * number}" y="{top + 6}" width="10" height="10" rx="5" fill="{colour}"/>'
        f'<text x="{22 + 120 * number}" y="{top + 15}">{xml_text(label[:16])}</text>'
        for number, (label, colour) in enumerate(picked[:8])
    )
    return f'<g fill="#24292f">{items}</g>'


def svg(subgraph: Subgraph, shown: Any, *, caption_property: str) -> str:
    """The picture of ``shown`` (a :class:`gestalt_nb.canvas.snapshot.Shown`) over the nodes of ``subgraph``."""
    width, height = round(shown.width), round(shown.height)
    nodes = shown.nodes
    legend = _legend(subgraph, nodes, height)
    total = height + (22 if legend else 0)

    def point(node_id: str) -> str:
        x, y, _, _ = nodes[node_id]
        return f"{x:g} {y:g}"

    plain, strong = [], []
    for edge in subgraph.edges.values():
        if edge.source in nodes and edge.target in nodes and edge.source != edge.target:
            (strong if edge.id in subgraph.highlight_edges else plain).append(f"M{point(edge.source)}L{point(edge.target)}")
    circles, texts = [], []
    for node_id, (x, y, radius, colour) in nodes.items():
        ring = ' stroke="#24292f" stroke-width="2"' if node_id in subgraph.highlight_nodes else ""
        circles.append(f'<circle cx="{x:g}" cy="{y:g}" r="{max(radius, 0.5):g}" fill="{colour}" data-id="{xml_text(node_id)}"{ring}/>')
        node = subgraph.nodes.get(node_id)
        if node is not None and len(nodes) <= CAPTIONS:
            text = caption(node_id, display_properties(node.properties), caption_property)
            text = shorten_caption(text, CAPTION_CHARS)
            texts.append(f'<text x="{x:g}" y="{y + radius + 11:g}">{xml_text(text)}</text>')  # below: edges run sideways
    body = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{total}" viewBox="0 0 {width} {total}" font-family="sans-serif" font-size="11">',
        '<rect width="100%" height="100%" fill="#fff"/>',
        "".join(f'<circle cx="{x:g}" cy="{y:g}" r="{radius:g}" fill="{colour}" fill-opacity="{ROOM_FILL}" stroke="{colour}" '
                f'stroke-opacity="{ROOM_EDGE}" stroke-width="1.5"/>' for x, y, radius, colour in shown.rooms),
        f'<path d="{"".join(plain)}" stroke="{EDGE}" stroke-width="1" fill="none"/>' if plain else "",
        f'<path d="{"".join(strong)}" stroke="{EDGE_HIGHLIGHT}" stroke-width="2.2" fill="none"/>' if strong else "",
        f'<g stroke="#fff" stroke-width="0.8">{"".join(circles)}</g>',
        f'<g fill="#24292f" text-anchor="middle">{"".join(texts)}</g>',
        legend,
        "</svg>",
    ]
    return "".join(body)
