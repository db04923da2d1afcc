"""A compact static SVG picture of a (small) subgraph, for saved notebooks, nbconvert and plain HTML.

Positions come from a short vectorised force layout (numpy, deterministic) per connected component, the
components packed in rows and the whole scaled alike on both axes (never stretched); nodes are grouped by
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
#: Space between two packed components, and the most pixels one relationship length is drawn (a small graph stays
#: small in the middle of the picture rather than stretched to its corners), in relationship lengths and pixels.
GAP = 1.2
LONGEST = 110


def layout(subgraph: Subgraph, *, iterations: int | None = None, seed: int = 7, aspect: float = 2.0) -> dict[str, tuple[float, float]]:
    """Positions in relationship lengths (a relationship is about 1 long): each connected component laid out on its
    own, then the components packed side by side in rows, biggest first, into a block about ``aspect`` times as wide
    as high — so two small components sit next to each other, not in opposite corners of the picture.

    Each component's layout is Fruchterman–Reingold, vectorised: each step is O(n²) in the component's nodes;
    larger components get fewer steps (40 up to 75 nodes, 10 at 300).
    """
    ids = list(subgraph.nodes)
    if not ids:
        return {}
    rng = np.random.default_rng(seed)
    boxes = []
    for members, pairs in _components(subgraph, ids):
        x, y = _force(len(members), pairs, iterations, rng)
        boxes.append((members, x - x.min(), y - y.min()))
    positions: dict[str, tuple[float, float]] = {}
    for (members, x, y), (left, top) in zip(boxes, _pack([(float(x.max()), float(y.max())) for _, x, y in boxes], aspect), strict=True):
        positions.update((node_id, (left + float(px), top + float(py))) for node_id, px, py in zip(members, x, y, strict=True))
    return positions


def _components(subgraph: Subgraph, ids: list[str]) -> list[tuple[list[str], np.ndarray]]:
    """The connected components, biggest first (then in node order): their node ids and relationships as index pairs."""
    index = {node_id: number for number, node_id in enumerate(ids)}
    parent = list(range(len(ids)))

    def root(number: int) -> int:
        while parent[number] != number:
            parent[number] = parent[parent[number]]
            number = parent[number]
        return number

    edges = [(index[e.source], index[e.target]) for e in subgraph.edges.values() if e.source in index and e.target in index and e.source != e.target]
    for a, b in edges:
        parent[root(a)] = root(b)
    members: dict[int, list[int]] = defaultdict(list)
    for number in range(len(ids)):
        members[root(number)].append(number)
    found = []
    for group in sorted(members.values(), key=lambda group: (-len(group), group[0])):
        local = {number: position for position, number in enumerate(group)}
        pairs = np.array([(local[a], local[b]) for a, b in edges if a in local], dtype=np.intp).reshape(-1, 2)
        found.append(([ids[number] for number in group], pairs))
    return found


def _force(n: int, pairs: np.ndarray, iterations: int | None, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Fruchterman–Reingold for one component of ``n`` nodes, scaled so a relationship is about 1 long."""
    if n == 1:
        return np.zeros(1, dtype=np.float32), np.zeros(1, dtype=np.float32)
    iterations = iterations or max(10, min(40, 3000 // n))
    angle = np.arange(n) * math.pi * (3 - math.sqrt(5))
    radius = np.sqrt((np.arange(n) + 0.5) / n)
    x = (radius * np.cos(angle) + rng.normal(0, 0.01, n)).astype(np.float32)
    y = (radius * np.sin(angle) + rng.normal(0, 0.01, n)).astype(np.float32)
    k2 = np.float32(1.0 / n)
    k = math.sqrt(1.0 / n)  # the length at which a relationship's pull and the nodes' push balance
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
        fx -= x * (0.05 * n * k)  # gravity keeps the component round
        fy -= y * (0.05 * n * k)
        step = np.sqrt(fx * fx + fy * fy)
        scale = np.minimum(step, temperature) / np.maximum(step, 1e-9)
        x += fx * scale
        y += fy * scale
        temperature *= 0.95
    return x / k, y / k


def _pack(sizes: list[tuple[float, float]], aspect: float) -> list[tuple[float, float]]:
    """Top-left corners for boxes of ``sizes`` (width, height), in order, in rows (shelves) about ``aspect`` times as
    wide as the block is high; ``GAP`` between boxes."""
    area = sum((width + GAP) * (height + GAP) for width, height in sizes)
    row_width = max(math.sqrt(area * aspect), max(width for width, _ in sizes))
    corners, left, top, row_height = [], 0.0, 0.0, 0.0
    for width, height in sizes:
        if left > 0 and left + width > row_width:
            left, top, row_height = 0.0, top + row_height + GAP, 0.0
        corners.append((left, top))
        left += width + GAP
        row_height = max(row_height, height)
    return corners


def svg(subgraph: Subgraph, *, caption_property: str, width: int = 900, height: int = 480) -> str:
    pad_x, pad_top, pad_bottom = 70, 40, 24
    inner_width, inner_height = width - 2 * pad_x, height - pad_top - pad_bottom
    place = _fit(layout(subgraph, aspect=inner_width / inner_height), inner_width, inner_height, pad_x, pad_top)
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


def _fit(positions: dict[str, tuple[float, float]], width: int, height: int, left: int, top: int) -> dict[str, tuple[int, int]]:
    """Pixel places: the layout scaled alike on both axes to fit ``width`` × ``height`` (at most ``LONGEST`` pixels a
    relationship length), centred in that box from (``left``, ``top``)."""
    if not positions:
        return {}
    xs = [x for x, _ in positions.values()]
    ys = [y for _, y in positions.values()]
    span_x, span_y = max(xs) - min(xs), max(ys) - min(ys)
    scale = min(width / span_x if span_x else LONGEST, height / span_y if span_y else LONGEST, LONGEST)
    from_x = left + (width - span_x * scale) / 2 - min(xs) * scale
    from_y = top + (height - span_y * scale) / 2 - min(ys) * scale
    return {node_id: (round(from_x + x * scale), round(from_y + y * scale)) for node_id, (x, y) in positions.items()}
