"""A compact static SVG picture of a (small) subgraph, for saved notebooks, nbconvert and plain HTML.

Positions come from a short vectorised force layout (numpy, deterministic); nodes are grouped by
label so each colour is written once; all edges are one path; captions are escaped text. Every
string from the graph is escaped with ``xml.xml_text`` (markup escaped, characters XML forbids replaced); the picture is embedded as an ``<img>`` data
URI by the views, so it cannot run script.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from ..graph.bookkeeping import legend_label
from ..graph.subgraph import Subgraph
from ..graph.values import display_properties
from ..shorten import shorten_caption
from .captions import caption
from .palette import label_color
from .xml import xml_text

CAPTION_CHARS = 24


def layout(subgraph: Subgraph, *, iterations: int | None = None, seed: int = 7) -> dict[str, tuple[float, float]]:
    """Fruchterman–Reingold in the unit square, vectorised: fine for the static cap (a few hundred nodes).

    Each step is O(n²); larger pictures get fewer steps (40 up to 75 nodes, 10 at 300).
    """
    ids = list(subgraph.nodes)
    n = len(ids)
    iterations = iterations or max(10, min(40, 3000 // max(n, 1)))
    if n == 0:
        return {}
    if n == 1:
        return {ids[0]: (0.5, 0.5)}
    index = {node_id: number for number, node_id in enumerate(ids)}
    pairs = np.array(
        [(index[e.source], index[e.target]) for e in subgraph.edges.values() if e.source in index and e.target in index and e.source != e.target],
        dtype=np.intp,
    ).reshape(-1, 2)
    rng = np.random.default_rng(seed)
    angle = np.arange(n) * math.pi * (3 - math.sqrt(5))
    radius = np.sqrt((np.arange(n) + 0.5) / n)
    x = (radius * np.cos(angle) + rng.normal(0, 0.01, n)).astype(np.float32)
    y = (radius * np.sin(angle) + rng.normal(0, 0.01, n)).astype(np.float32)
    k2 = np.float32(1.0 / n)
    k = math.sqrt(1.0 / n)
    temperature = 0.1
    for _ in range(iterations):
        dx = x[:, None] - x[None, :]
        dy = y[:, None] - y[None, :]
        d2 = dx * dx + dy * dy
        np.maximum(d2, 1e-6, out=d2)
        repulse = k2 / d2
        fx = (dx * repulse).sum(axis=1)
        fy = (dy * repulse).sum(axis=1)
        if len(pairs):
            ex = x[pairs[:, 0]] - x[pairs[:, 1]]
            ey = y[pairs[:, 0]] - y[pairs[:, 1]]
            pull = np.sqrt(ex * ex + ey * ey) / k
            np.add.at(fx, pairs[:, 0], -ex * pull)
            np.add.at(fy, pairs[:, 0], -ey * pull)
            np.add.at(fx, pairs[:, 1], ex * pull)
            np.add.at(fy, pairs[:, 1], ey * pull)
        fx -= x * (0.05 * n * k)  # gravity keeps components together
        fy -= y * (0.05 * n * k)
        step = np.sqrt(fx * fx + fy * fy)
        scale = np.minimum(step, temperature) / np.maximum(step, 1e-9)
        x += fx * scale
        y += fy * scale
        temperature *= 0.95
    points = []
    for axis in (x, y):
        low, high = float(axis.min()), float(axis.max())
        points.append((axis - low) / (high - low if high - low > 1e-9 else 1.0))
    return {node_id: (float(px), float(py)) for node_id, px, py in zip(ids, points[0], points[1])}


def svg(subgraph: Subgraph, *, caption_property: str, width: int = 900, height: int = 480) -> str:
    positions = layout(subgraph)
    pad_x, pad_top, pad_bottom = 70, 40, 24
    place = {
        node_id: (round(pad_x + x * (width - 2 * pad_x)), round(pad_top + y * (height - pad_top - pad_bottom)))
        for node_id, (x, y) in positions.items()
    }
    drawn = [e for e in subgraph.edges.values() if e.source in place and e.target in place]
    lines, ghost_lines = (
        "".join(f"M{place[e.source][0]} {place[e.source][1]}L{place[e.target][0]} {place[e.target][1]}" for e in drawn if (e.id in subgraph.faded) is ghosts)
        for ghosts in (False, True)
    )
    groups: dict[str, list[str]] = defaultdict(list)
    labels: dict[str, str] = {}
    for node in subgraph.nodes.values():
        x, y = place[node.id]
        r = 7 if node.id in subgraph.highlight_nodes else 5
        label = legend_label(node.labels, subgraph.asked)  # a bookkeeping label in words: (source)
        labels.setdefault(label, label_color(label or None))
        ghost = ' fill-opacity="0.25" stroke-opacity="0.25"' if node.id in subgraph.faded else ""  # a ghost: faded
        groups[labels[label]].append(f'<circle cx="{x}" cy="{y}" r="{r}"{ghost}/>')
    texts = []
    if len(subgraph.nodes) <= 150:
        for node in subgraph.nodes.values():
            x, y = place[node.id]
            text = caption(node.id, display_properties(node.properties), caption_property)
            text = shorten_caption(text, CAPTION_CHARS)
            texts.append(f'<text x="{x}" y="{y + 16}">{xml_text(text)}</text>')
    legend = "".join(
        f'<circle cx="{12 + 110 * number}" cy="14" r="5" fill="{colour}"/><text x="{21 + 110 * number}" y="18">{xml_text((label or "(no label)")[:16])}</text>'
        for number, (label, colour) in enumerate(list(labels.items())[:8])
    )
    body = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="10">',
        '<rect width="100%" height="100%" fill="#fff"/>',
        f'<path d="{lines}" stroke="#8c959f" stroke-width="1" fill="none"/>' if lines else "",
        f'<path d="{ghost_lines}" stroke="#8c959f" stroke-opacity="0.3" stroke-width="1" stroke-dasharray="3 3" fill="none"/>' if ghost_lines else "",
        *(f'<g fill="{colour}" stroke="#fff" stroke-width="1">{"".join(items)}</g>' for colour, items in groups.items()),
        f'<g fill="#24292f" text-anchor="middle">{"".join(texts)}</g>',
        f'<g fill="#24292f">{legend}</g>',
        "</svg>",
    ]
    return "".join(body)
