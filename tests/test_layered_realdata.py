"""Layered layouts of two real DAGs (issue 31): bnlearn's diabetes (413 nodes) and munin (1,041 nodes).

Drawn by the real bundle in js/test/harness.html (see test_canvas_show.py). At full view every relationship
points down the layers, the drawing fills at least half the canvas both ways and few nodes overlap.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

from gestalt_nb.canvas import GraphCanvas
from gestalt_nb.graph.subgraph import Edge, Node, Subgraph

from .test_canvas_show import Harness, browser  # noqa: F401  (the module-scoped browser fixture)

DATA = Path(__file__).resolve().parent / "data"


def bnlearn(name: str) -> Subgraph:
    with open(DATA / f"bnlearn_{name}_edges.csv", newline="") as f:
        arcs = [(row["source"], row["target"]) for row in csv.DictReader(f)]
    sg = Subgraph()
    for key in dict.fromkeys(k for arc in arcs for k in arc):
        sg.add_node(Node(key, ("Var",), {"name": key}))
    for k, (s, t) in enumerate(arcs):
        sg.add_edge(Edge(f"e{k}", s, t, "CAUSES"))
    return sg


def measure(page, sg: Subgraph) -> dict:
    pos = page.settled(30)
    size = {k: page.hook("h.nodeStyle(a).size", k) for k in pos}
    box = page.page.evaluate("(i) => { const b = views[i].el.querySelector('.gc-sigma'); return [0, b.clientWidth, b.clientHeight]; }", page.i)
    xs, ys = [p["x"] for p in pos.values()], [p["y"] for p in pos.values()]
    # layers run down, or left to right when that leaves nodes more room: every relationship one way
    down = max(sum(pos[e.target]["y"] > pos[e.source]["y"] for e in sg.edges.values()), sum(pos[e.target]["x"] > pos[e.source]["x"] for e in sg.edges.values()))
    # nodes overlapping another (grid buckets: only near pairs compared)
    cell = 2 * max(size.values())
    grid: dict[tuple[int, int], list[str]] = {}
    for k, p in pos.items():
        grid.setdefault((int(p["x"] // cell), int(p["y"] // cell)), []).append(k)
    hit = set()
    for (gx, gy), keys in grid.items():
        near = [m for dx in (-1, 0, 1) for dy in (-1, 0, 1) for m in grid.get((gx + dx, gy + dy), [])]
        for a in keys:
            for b in near:
                if a != b and math.dist((pos[a]["x"], pos[a]["y"]), (pos[b]["x"], pos[b]["y"])) < size[a] + size[b]:
                    hit.add(a)
    return {
        "n": len(pos), "down": down / len(sg.edges), "overlap": len(hit) / len(pos),
        "fill_x": (max(xs) - min(xs)) / box[1], "fill_y": (max(ys) - min(ys)) / box[2], "box": box[1:], "size": max(size.values()),
    }


@pytest.mark.parametrize("name, most", [("diabetes", 0.20), ("munin", 0.40)])
def test_layered_real_dag_reads(browser, name, most):  # noqa: F811 - `browser` is the fixture imported above, taken as a parameter
    sg = bnlearn(name)
    page = Harness(browser)
    page.mount(GraphCanvas(sg, layout="layered", max_nodes=2000, max_edges=5000))
    m = measure(page, sg)
    page.shot(f"layered-{name}")
    print(name, m)
    assert m["n"] == len(sg.nodes)
    assert m["down"] == 1.0, m
    assert m["fill_x"] >= 0.5 and m["fill_y"] >= 0.5, m
    assert m["overlap"] <= most, m
    page.clean()
    page.page.close()


@pytest.mark.parametrize("with_xy", [0, 5])
def test_positions_without_coordinates_draws(browser, with_xy):  # noqa: F811 - `browser` is the fixture imported above, taken as a parameter
    """`--layout positions` on nodes lacking x / y: the first frame comes and every node is in view."""
    sg = Subgraph()
    for i in range(40):
        sg.add_node(Node(f"n{i}", ("Bus",), {"name": f"bus {i}", **({"x": i % 3, "y": i} if i < with_xy else {})}))
    for i in range(1, 40, 2):
        sg.add_edge(Edge(f"e{i}", f"n{i - 1}", f"n{i}", "LINE"))  # pairs: mostly disconnected, like buses without lines
    page = Harness(browser)
    page.mount(GraphCanvas(sg, layout="positions"), timeout=20)  # waits for `ready`
    pos = page.settled(20)
    w, h = page.page.evaluate("(i) => { const b = views[i].el.querySelector('.gc-sigma'); return [b.clientWidth, b.clientHeight]; }", page.i)
    assert len(pos) == 40 and all(0 <= p["x"] <= w and 0 <= p["y"] <= h for p in pos.values()), pos
    assert len({(round(p["x"]), round(p["y"])) for p in pos.values()}) == 40  # apart, not piled on one spot
    notes = page.page.evaluate("(i) => views[i].el.textContent", page.i)
    assert ("no node has a numeric x / y; drawn with force" in notes) if not with_xy else ("35 nodes have no numeric x / y" in notes)
    page.shot(f"positions-missing-{with_xy}")
    page.clean()
    page.page.close()
