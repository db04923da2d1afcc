"""Layered layouts of two real DAGs (issue 31): bnlearn's diabetes (413 nodes) and munin (1,041 nodes).

Drawn by the real bundle in js/test/harness.html (see test_canvas_show.py). At full view every relationship
points down the layers, the drawing fills at least half the canvas both ways, few nodes overlap and the nodes are
as big as the distance between slots allows. Zoomed in with the mouse wheel (issue 43), nodes grow and captions
come: once nodes in view stand a few caption heights apart, at least half of them carry a caption, and no caption
covers another or another node.
"""

from __future__ import annotations

import csv
import math
import statistics
import time
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
        "slot": slot_distance(pos, sg),
    }


def slot_distance(pos: dict, sg: Subgraph) -> float:
    """The smallest on-screen distance between neighbouring slots: between rows (or columns, when the layers run
    left to right), and between neighbours in a row."""
    across = sum(pos[e.target]["x"] > pos[e.source]["x"] for e in sg.edges.values()) == len(sg.edges)
    along, side = ("x", "y") if across else ("y", "x")
    rows: dict[float, list[float]] = {}
    for p in pos.values():
        rows.setdefault(round(p[along], 1), []).append(p[side])
    levels = sorted(rows)
    between = min(b - a for a, b in zip(levels, levels[1:]))
    within = min(b - a for row in rows.values() for a, b in zip(sorted(row), sorted(row)[1:]) if b - a > 0.5)
    return min(between, within)


@pytest.mark.parametrize("name, most", [("diabetes", 0.20), ("munin", 0.40)])
def test_layered_real_dag_reads(browser, name, most):  # noqa: F811 - `browser` is the fixture imported above, taken as a parameter
    sg = bnlearn(name)
    page = Harness(browser)
    page.mount(GraphCanvas(sg, layout="layered", max_nodes=2000, max_edges=5000))
    m = measure(page, sg)
    page.shot(f"layered-{name}")
    print("\n", name, m)
    assert m["n"] == len(sg.nodes)
    assert m["down"] == 1.0, m
    assert m["fill_x"] >= 0.5 and m["fill_y"] >= 0.5, m
    assert m["overlap"] <= most, m
    assert m["size"] >= 0.38 * m["slot"], m  # as big as the room between slots allows (a gap kept)
    page.clean()
    page.page.close()


def camera_still(page, timeout=10.0):
    last, end = None, time.monotonic() + timeout
    while time.monotonic() < end:
        now = page.hook("h.cameraState()")
        if now == last:
            return now
        last = now
        time.sleep(0.1)
    raise AssertionError("the camera kept moving")


def in_view(page) -> dict:
    """What the canvas shows now: nodes in view, their radius, how far apart they stand, and their captions."""
    pos = page.hook("h.positions()")
    w, h = page.page.evaluate("(i) => { const b = views[i].el.querySelector('.gc-sigma'); return [b.clientWidth, b.clientHeight]; }", page.i)
    keys = [k for k, p in pos.items() if p and 0 <= p["x"] <= w and 0 <= p["y"] <= h]
    spots = page.hook("h.labelSpots()")
    shown = {k: spots[k] for k in keys if spots.get(k)}
    pts = [(pos[k]["x"], pos[k]["y"]) for k in keys]
    nearest = [min((math.dist(a, b) for b in pts if b is not a), default=0.0) for a in pts]
    boxes = {k: (s["x"], s["y"], s["x"] + s["w"], s["y"] + 14) for k, s in shown.items()}  # labelSize 12 + 2
    clash = [(a, b) for a in boxes for b in boxes if a < b and boxes[a][0] < boxes[b][2] and boxes[b][0] < boxes[a][2] and boxes[a][1] < boxes[b][3] and boxes[b][1] < boxes[a][3]]
    covered = [(a, k) for a, bx in boxes.items() for k in keys if k != a and bx[0] < pos[k]["x"] < bx[2] and bx[1] < pos[k]["y"] < bx[3]]
    return {
        "ratio": round(page.hook("h.cameraState()")["ratio"], 4), "nodes": len(keys), "captions": len(shown),
        "whole": sum(not s["label"].endswith("…") for s in shown.values()), "share": round(len(shown) / max(1, len(keys)), 2),
        "radius": round(statistics.median(page.hook("h.nodeStyle(a).size", k) for k in keys[:40]), 2) if keys else 0,
        "apart": round(statistics.median(nearest), 1) if nearest else 0, "clash": clash[:3], "covered": covered[:3],
    }


@pytest.mark.parametrize("name", ["diabetes", "munin"])
def test_layered_real_dag_zooms_into_captions(browser, name):  # noqa: F811 - `browser` is the fixture imported above, taken as a parameter
    """Wheel in on the drawing's densest spot: nodes grow, and once the nodes in view stand 40 px apart (median
    distance to the nearest one, about three caption heights) at least half of them carry a caption."""
    sg = bnlearn(name)
    page = Harness(browser)
    page.mount(GraphCanvas(sg, layout="layered", max_nodes=2000, max_edges=5000))
    pos = page.settled(30)
    full = in_view(page)
    page.shot(f"layered-{name}-full")
    box = page.page.evaluate("(i) => { const b = views[i].el.querySelector('.gc-sigma').getBoundingClientRect(); return [b.x, b.y]; }", page.i)
    dense = max(pos, key=lambda k: sum(math.dist((pos[k]["x"], pos[k]["y"]), (p["x"], p["y"])) < 40 for p in pos.values()))
    steps, roomy = [full], None
    for _ in range(6):
        page.page.mouse.move(box[0] + pos[dense]["x"], box[1] + pos[dense]["y"])
        page.page.mouse.wheel(0, -120)  # one wheel notch: sigma zooms 1.7x about the pointer
        page.page.mouse.move(1, 1)  # away from the nodes: no hover caption
        time.sleep(0.1)
        camera_still(page)
        steps.append(in_view(page))
        if roomy is None and steps[-1]["apart"] >= 40:
            roomy = steps[-1]
            page.shot(f"layered-{name}-zoomed")
    for st in steps:
        print("\n", name, st)
    assert full["captions"] == 0 or not full["clash"], full
    assert roomy is not None, steps
    assert roomy["share"] >= 0.5 and roomy["radius"] >= 4, roomy
    assert all(not st["clash"] and not st["covered"] for st in steps), steps
    # nodes grow as the zoom gives them room: each notch draws them bigger, up to where they are roomy
    radii = [st["radius"] for st in steps if st["nodes"]]
    assert radii == sorted(radii) and radii[0] < roomy["radius"], radii
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
