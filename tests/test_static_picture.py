"""The static picture (render/static_svg.py) keeps a small graph compact: its connected components are laid out one
by one and packed side by side, the whole scaled alike on both axes, centred, a relationship at most ``LONGEST`` px.

Before, one force layout over all the nodes pushed two small components apart and each axis was stretched to the
picture's edges: two pairs sat in opposite corners of a 900 × 480 picture (a live view's saved picture showed so).
"""

from __future__ import annotations

import math
import re

from gestalt_nb.graph.subgraph import Edge, Node, Subgraph
from gestalt_nb.render import static_svg

WIDTH, HEIGHT = 900, 480


def chains(*sizes: int) -> Subgraph:
    """Components that are chains of ``sizes`` nodes."""
    graph, number = Subgraph(), 0
    for size in sizes:
        ids = [f"n{number + offset}" for offset in range(size)]
        number += size
        for node_id in ids:
            graph.nodes[node_id] = Node(node_id, ("Person",), {"name": node_id})
        for a, b in zip(ids, ids[1:]):
            graph.edges[f"{a}-{b}"] = Edge(f"{a}-{b}", a, b, "KNOWS")
    return graph


def places(graph: Subgraph) -> dict[str, tuple[int, int]]:
    """Where the picture draws each node: its circles (not the legend's) in node order, and their captions."""
    picture = static_svg.svg(graph, caption_property="name", width=WIDTH, height=HEIGHT)
    circles = [(int(x), int(y)) for x, y in re.findall(r'<circle cx="(\d+)" cy="(\d+)" r="[57]"/>', picture)]
    assert len(circles) == len(graph.nodes)
    return dict(zip(graph.nodes, circles))


def test_two_small_components_sit_side_by_side_in_the_middle():
    place = places(chains(2, 2))
    xs, ys = [x for x, _ in place.values()], [y for _, y in place.values()]
    assert max(xs) - min(xs) < WIDTH / 2 and max(ys) - min(ys) < HEIGHT / 3, place  # was ~85 % by ~90 %
    assert abs((max(xs) + min(xs)) / 2 - WIDTH / 2) < WIDTH / 10 and abs((max(ys) + min(ys)) / 2 - HEIGHT / 2) < HEIGHT / 5, place
    between = min(math.dist(place[a], place[b]) for a in ("n0", "n1") for b in ("n2", "n3"))
    assert between < 3 * static_svg.LONGEST, place


def test_relationships_are_drawn_alike_on_both_axes_and_never_longer_than_longest():
    for graph in (chains(2, 2), chains(2, 3), chains(5, 1, 1), chains(6), chains(*[3] * 8), chains(30, 2)):
        place = places(graph)
        lengths = [math.dist(place[e.source], place[e.target]) for e in graph.edges.values()]
        assert max(lengths) <= static_svg.LONGEST * 1.6, (len(graph.nodes), lengths)  # a force layout's lengths vary a little
        assert all(0 <= x <= WIDTH and 0 <= y <= HEIGHT for x, y in place.values())


def test_one_node_and_no_node():
    assert list(places(chains(1)).values()) == [(WIDTH // 2, round(40 + (HEIGHT - 64) / 2))]
    assert "<circle cx" not in static_svg.svg(Subgraph(), caption_property="name")
