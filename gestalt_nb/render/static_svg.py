"""A compact static SVG picture of a (small) subgraph, for saved notebooks, nbconvert and plain HTML.

Positions come from a short vectorised force layout (numpy, deterministic); nodes are grouped by
label so each colour is written once; all edges are one path; captions are escaped text. Every
string from the graph is escaped with ``html.escape``; the picture is embedded as an ``<img>`` data
URI by the views, so it cannot run script.
"""

from __future__ import annotations

import html
import math
from collections import defaultdict

import numpy as np

from ..subgraph import Subgraph
from . import caption, display_properties
from .palette import label_color

CAPTION_CHARS = 24


def layout(subgraph: Subgraph, *, iterations: int = 80, seed: int = 7) -> dict[str, tuple[float, float]]:
    """Fruchterman–Reingold in the unit square: O(n²) per step, fine for the static cap (≤ a few hundred)."""
    ids = list(subgraph.nodes)
    n = len(ids)
    if n == 0:
        return {}
    if n == 1:
        return {ids[0]: (0.5, 0.5)}
    index = {node_id: number for number, node_id in enumerate(ids)}
    pairs = np.array(
        [(index[e.source], index[e.target]) for e in subgraph.edges.values() if e.source in index and e.target in index and e.source != e.target],
        dtype=int,
    ).reshape(-1, 2)
    rng = np.random.default_rng(seed)
    angle = np.arange(n) * math.pi * (3 - math.sqrt(5))
    radius = np.sqrt((np.arange(n) + 0.5) / n)
    pos = np.column_stack([radius * np.cos(angle), radius * np.sin(angle)]) + rng.normal(0, 0.01, (n, 2))
    k = 1.0 / math.sqrt(n)
    temperature = 0.1
    for _ in range(iterations):
        delta = pos[:, None, :] - pos[None, :, :]
        distance = np.maximum(np.linalg.norm(delta, axis=-1), 1e-3)
        force = (delta / distance[..., None] * (k * k / distance)[..., None]).sum(axis=1)
        if len(pairs):
            d = pos[pairs[:, 0]] - pos[pairs[:, 1]]
            length = np.maximum(np.linalg.norm(d, axis=1), 1e-3)
            pull = d * (length / k)[:, None]
            np.add.at(force, pairs[:, 0], -pull)
            np.add.at(force, pairs[:, 1], pull)
        force -= pos * 0.05 * n * k  # gravity keeps components together
        step = np.linalg.norm(force, axis=1)
        pos += force / np.maximum(step, 1e-9)[:, None] * np.minimum(step, temperature)[:, None]
        temperature *= 0.95
    low, high = pos.min(axis=0), pos.max(axis=0)
    span = np.where(high - low > 1e-9, high - low, 1.0)
    pos = (pos - low) / span
    return {node_id: (float(x), float(y)) for node_id, (x, y) in zip(ids, pos)}


def svg(subgraph: Subgraph, *, caption_property: str, width: int = 900, height: int = 480) -> str:
    positions = layout(subgraph)
    pad = 30
    place = {node_id: (round(pad + x * (width - 2 * pad)), round(pad + y * (height - 2 * pad))) for node_id, (x, y) in positions.items()}
    lines = "".join(
        f"M{place[e.source][0]} {place[e.source][1]}L{place[e.target][0]} {place[e.target][1]}"
        for e in subgraph.edges.values()
        if e.source in place and e.target in place
    )
    groups: dict[str, list[str]] = defaultdict(list)
    for node in subgraph.nodes.values():
        x, y = place[node.id]
        r = 7 if node.id in subgraph.highlight_nodes else 5
        groups[label_color(node.labels[0] if node.labels else None)].append(f'<circle cx="{x}" cy="{y}" r="{r}"/>')
    texts = []
    for node in subgraph.nodes.values():
        x, y = place[node.id]
        text = caption(node.id, display_properties(node.properties), caption_property)
        text = text if len(text) <= CAPTION_CHARS else text[: CAPTION_CHARS - 1] + "…"
        texts.append(f'<text x="{x + 8}" y="{y + 4}">{html.escape(text)}</text>')
    body = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
        '<rect width="100%" height="100%" fill="#fff"/>',
        f'<path d="{lines}" stroke="#8c959f" stroke-width="1" fill="none"/>' if lines else "",
        *(f'<g fill="{colour}" stroke="#fff" stroke-width="1">{"".join(items)}</g>' for colour, items in groups.items()),
        f'<g font-family="sans-serif" font-size="10" fill="#24292f">{"".join(texts)}</g>' if len(texts) <= 150 else "",
        "</svg>",
    ]
    return "".join(body)
