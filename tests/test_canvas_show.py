"""What the canvas shows (issue 20): encodings, layouts, legend filters — real payloads, real bundle, Chromium.

Each graph is built as a ``Subgraph``, drawn by a real ``GraphCanvas`` (its payload and the deltas its
``style`` / ``layout`` / ``filter`` send) and mounted in js/test/harness.html (the anywidget model faked,
every outside request refused). Screenshots go to $GESTALT_SHOTS (default: gestalt-shots in the temp folder).
"""

from __future__ import annotations

import json
import math
import random
import statistics
from pathlib import Path

import pytest

from gestalt_nb.canvas import GraphCanvas
from gestalt_nb.errors import GestaltError
from gestalt_nb.graph.subgraph import Edge, Node, Subgraph
from gestalt_nb.options import parse_layout
from gestalt_nb.render.palette import PALETTE

from .jupyter_page import ARGS, CHROMIUM, SHOTS

REPO = Path(__file__).resolve().parents[1]
HARNESS = REPO / "js" / "test" / "harness.html"
BUNDLE = REPO / "gestalt_nb" / "canvas" / "static" / "canvas.js"
DARK = """() => { const s = document.getElementById('theme').style;
  for (const [k, v] of [['--jp-layout-color0', '#111'], ['--jp-layout-color1', '#1b1b1b'], ['--jp-layout-color2', '#2a2a2a'],
    ['--jp-ui-font-color0', '#eee'], ['--jp-ui-font-color1', '#ddd'], ['--jp-ui-font-color2', '#aaa'], ['--jp-border-color2', '#333']]) s.setProperty(k, v);
  document.body.style.background = '#111'; }"""


def lab(hex_colour: str) -> tuple[float, float, float]:
    r, g, b = (int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    x = (0.4124 * lin[0] + 0.3576 * lin[1] + 0.1805 * lin[2]) / 0.95047
    y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    z = (0.0193 * lin[0] + 0.1192 * lin[1] + 0.9505 * lin[2]) / 1.08883
    f = [v ** (1 / 3) if v > 0.008856 else 7.787 * v + 16 / 116 for v in (x, y, z)]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def graph(nodes, edges) -> Subgraph:
    sg = Subgraph()
    for node_id, label, props in nodes:
        sg.add_node(Node(node_id, (label,) if label else (), props))
    for k, (s, t, kind) in enumerate(edges):
        sg.add_edge(Edge(f"e{k}", s, t, kind))
    return sg


def random_dag(n=1000, seed=3) -> Subgraph:
    rnd = random.Random(seed)
    edges = [(f"d{rnd.randrange(i)}", f"d{i}", "CAUSES") for i in range(1, n) for _ in range(rnd.choice((1, 1, 2)))]
    return graph([(f"d{i}", "Var", {"name": f"v{i}"}) for i in range(n)], edges)


def binary_tree(depth=6) -> Subgraph:
    n = 2**depth - 1
    return graph([(f"t{i}", "Node", {"name": str(i)}) for i in range(n)], [(f"t{(i - 1) // 2}", f"t{i}", "CHILD") for i in range(1, n)])


def lattice(side=100) -> Subgraph:
    nodes = [(f"{i}_{j}", "Cell", {"name": f"{i},{j}"}) for i in range(side) for j in range(side)]
    edges = [(f"{i}_{j}", f"{i + 1}_{j}", "NEXT") for i in range(side - 1) for j in range(side)]
    edges += [(f"{i}_{j}", f"{i}_{j + 1}", "NEXT") for i in range(side) for j in range(side - 1)]
    return graph(nodes, edges)


class Harness:
    def __init__(self, browser, dark=False):
        self.page = browser.new_page(viewport={"width": 940, "height": 760})
        self.refused, self.errors, self.dialogs = [], [], []
        self.page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("file:", "data:", "blob:")) else (self.refused.append(r.request.url), r.abort()))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.goto(HARNESS.as_uri())
        if dark:
            self.page.evaluate(DARK)
        self.page.evaluate("(c) => loadBundle(c)", BUNDLE.read_text())
        self.canvas = None

    def mount(self, canvas: GraphCanvas, height=560, timeout=60):
        self.canvas, self.sent = canvas, []
        canvas.send = lambda message, *a, **k: self.sent.append(message) or self.push(message)
        self.i = self.page.evaluate("(s) => mount(s)", json.dumps({"graph": canvas.graph, "height": height}))
        self.wait("ready", timeout)
        return self

    def push(self, message):
        self.page.evaluate("([i, m]) => views[i].model.push(m)", [self.i, json.loads(json.dumps(message))])

    def hook(self, expression, arg=None):
        return self.page.evaluate(f"([i, a]) => {{ const h = hook(i); return {expression}; }}", [self.i, arg])

    def wait(self, what, timeout):
        self.page.evaluate(f"([i, ms]) => Promise.race([hook(i).{what}, new Promise((_, no) => setTimeout(() => no(new Error('timeout {what}')), ms))])", [self.i, int(timeout * 1000)])

    def settled(self, timeout=60):
        self.wait("whenSettled()", timeout)
        return self.hook("h.positions()")

    def shot(self, name):
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SHOTS / f"{name}.png"))

    def clean(self):
        assert not self.refused and not self.errors and not self.dialogs, (self.refused[:3], self.errors[:3], self.dialogs[:3])


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed")
    with sync_api.sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser):
    harness = Harness(browser)
    yield harness
    harness.clean()
    harness.page.close()


def test_layered_dag_points_down(page):
    sg = random_dag()
    page.mount(GraphCanvas(sg, layout="layered", max_nodes=2000, max_edges=5000))
    pos = page.settled(10)
    assert page.hook("h.layoutName()") == "layered"
    down = sum(pos[e.target]["y"] > pos[e.source]["y"] for e in sg.edges.values())
    assert down / len(sg.edges) >= 0.99, f"{down} of {len(sg.edges)} point down"
    page.shot("layered-dag-1000")


def test_layered_binary_tree_has_no_overlap(browser):
    for dark in (False, True):
        page = Harness(browser, dark=dark)
        page.mount(GraphCanvas(binary_tree(), layout="layered"))
        pos = page.settled(10)
        radius = {k: page.hook("h.nodeStyle(a).size", k) for k in pos}
        ids = list(pos)
        clashes = [(a, b) for n, a in enumerate(ids) for b in ids[n + 1 :] if math.dist(pos[a].values(), pos[b].values()) < radius[a] + radius[b]]
        assert len(pos) == 63 and not clashes, clashes[:5]
        assert pos["t0"]["y"] < min(p["y"] for k, p in pos.items() if k != "t0")  # the root on top
        page.shot("layered-tree-" + ("dark" if dark else "light"))
        page.clean()
        page.page.close()


def test_force_unfolds_a_lattice(page):
    sg = lattice()
    page.mount(GraphCanvas(sg, max_nodes=10_000, max_edges=20_000), timeout=90)
    pos = page.settled(90)
    times = page.hook("h.timings()")
    assert not page.hook("h.layoutRunning()")
    edge = statistics.median(math.dist(pos[e.source].values(), pos[e.target].values()) for e in sg.edges.values())
    rnd = random.Random(1)
    keys = list(pos)
    pairs = statistics.median(math.dist(pos[a].values(), pos[b].values()) for a, b in (rnd.sample(keys, 2) for _ in range(4000)))
    print(f"lattice: edge/pair median {edge / pairs:.3f}; settled {(times['settled'] - times['firstFrame']) / 1000:.1f} s after the first frame")
    assert edge / pairs <= 0.1
    assert times["settled"] - times["firstFrame"] <= 20_000
    page.shot("force-lattice-100x100")


def test_positions_follow_x_and_y_upward(page):
    rnd = random.Random(5)
    coords = {f"p{i}": (rnd.uniform(-10, 10), rnd.uniform(40, 60)) for i in range(30)}
    sg = graph([(k, "Town", {"name": k, "lon": x, "lat": y}) for k, (x, y) in coords.items()], [("p0", "p1", "ROAD")])
    page.mount(GraphCanvas(sg, layout="positions:x=lon,y=lat"))
    pos = page.settled(10)
    by_x = sorted(coords, key=lambda k: coords[k][0])
    by_y = sorted(coords, key=lambda k: coords[k][1])
    assert [pos[k]["x"] for k in by_x] == sorted(pos[k]["x"] for k in by_x)
    assert [pos[k]["y"] for k in by_y] == sorted((pos[k]["y"] for k in by_y), reverse=True)  # north is up


def styled_graph() -> Subgraph:
    rnd = random.Random(2)
    nodes = [(f"s{i}", ("Person", "Place", "Project")[i % 3], {"name": f"node {i}", "kind": f"kind {i % 8}", "score": i * 1.5}) for i in range(48)]
    edges = [(f"s{rnd.randrange(i)}", f"s{i}", "LINKS") for i in range(1, 48)] + [("s0", f"s{i}", "HUB") for i in range(2, 40, 3)]
    return graph(nodes, edges)


def test_colour_and_size_encodings_and_the_style_delta(browser):
    for dark in (False, True):
        page = Harness(browser, dark=dark)
        sg = styled_graph()
        canvas = GraphCanvas(sg)
        page.mount(canvas)
        before = page.settled(30)
        canvas.style(color="kind", size="degree")
        assert page.hook("h.positions()") == before  # no node moved
        styles = {k: page.hook("h.nodeStyle(a)", k) for k in sg.nodes}
        by_kind = {}
        for k, node in sg.nodes.items():
            by_kind.setdefault(node.properties["kind"], set()).add(styles[k]["color"])
        assert all(len(v) == 1 for v in by_kind.values()) and len({next(iter(v)) for v in by_kind.values()}) == 8
        colours = [next(iter(v)) for v in by_kind.values()]
        assert min(math.dist(lab(a), lab(b)) for n, a in enumerate(colours) for b in colours[n + 1 :]) >= 25
        degree = {k: 0 for k in sg.nodes}
        for e in sg.edges.values():
            degree[e.source] += 1
            degree[e.target] += 1
        ranked = sorted(sg.nodes, key=lambda k: degree[k])
        sizes = [styles[k]["size"] for k in ranked]
        assert all(degree[a] == degree[b] or sa <= sb for a, b, sa, sb in zip(ranked, ranked[1:], sizes, sizes[1:]))
        assert sizes[-1] > 1.8 * sizes[0]
        legend = page.hook("[...hook(i).canvas().closest('[data-gestalt-canvas]').querySelectorAll('.gc-legend .gc-head')].map(e => e.textContent)")
        assert "colour: kind" in legend and any(text.startswith("size: degree") for text in legend)
        page.shot("styled-categories-" + ("dark" if dark else "light"))
        canvas.style(color="score")
        ranked = sorted(sg.nodes, key=lambda k: sg.nodes[k].properties["score"])
        lightness = [lab(page.hook("h.nodeStyle(a).color", k))[0] for k in ranked]
        assert lightness == sorted(lightness) and lightness[-1] - lightness[0] > 50
        assert page.hook("h.positions()") == before
        page.shot("styled-numeric-" + ("dark" if dark else "light"))
        page.clean()
        page.page.close()


def test_a_style_change_is_a_small_delta_that_moves_nothing(page):
    canvas = GraphCanvas(random_dag(1000), max_nodes=2000, max_edges=5000)
    page.mount(canvas)
    before = page.settled(60)
    first = len(canvas.graph_gz)  # what the first display sent (the compressed base graph)
    canvas.style(color="community", size="pagerank")
    sent = len(json.dumps(page.sent[-1]))
    print(f"style delta {sent} bytes, first display {first} bytes")
    assert sent < first / 10
    assert page.hook("h.positions()") == before
    assert len({page.hook("h.nodeStyle(a).color", f"d{i}") for i in range(0, 1000, 7)}) > 3


def test_a_property_the_payload_cut_still_colours_and_sizes(page):
    many = {f"p{k:02d}": k for k in range(40)}  # the payload keeps 30 properties per node
    sg = graph([(f"m{i}", "T", {**many, "name": f"m{i}", "zz_kind": f"k{i % 3}", "zz_weight": i}) for i in range(6)], [("m0", "m1", "R")])
    canvas = GraphCanvas(sg)
    page.mount(canvas)
    canvas.style(color="zz_kind", size="zz_weight")
    assert set(page.sent[-1]["ops"][0]["values"]["m2"]) == {"zz_kind", "zz_weight"}
    colours = [page.hook("h.nodeStyle(a).color", f"m{i}") for i in range(6)]
    assert len(set(colours)) == 3 and "#9aa0a6" not in colours
    sizes = [page.hook("h.nodeStyle(a).size", f"m{i}") for i in range(6)]
    assert sizes == sorted(sizes) and sizes[-1] > sizes[0]


def test_communities_are_the_cliques(page):
    nodes = [(f"c{c}_{i}", "T", {"name": f"{c}.{i}"}) for c in range(4) for i in range(6)]
    edges = [(f"c{c}_{i}", f"c{c}_{j}", "R") for c in range(4) for i in range(6) for j in range(i + 1, 6)]
    edges += [(f"c{c}_0", f"c{c + 1}_0", "R") for c in range(3)]
    canvas = GraphCanvas(graph(nodes, edges), color="community")
    page.mount(canvas)
    colour = {k: page.hook("h.nodeStyle(a).color", k) for k, _, _ in nodes}
    assert all(len({colour[f"c{c}_{i}"] for i in range(6)}) == 1 for c in range(4))
    assert len(set(colour.values())) == 4


def legend_click(page, text):
    page.page.evaluate("([i, t]) => [...views[i].el.querySelectorAll('[data-gestalt-legend]')].find(e => e.getAttribute('data-gestalt-legend') === t).click()", [page.i, text])


def test_legend_click_and_python_filter_hide_and_restore(page):
    sg = styled_graph()
    canvas = GraphCanvas(sg)
    page.mount(canvas)
    page.settled(30)
    places = [k for k, n in sg.nodes.items() if n.labels[0] == "Place"]
    legend_click(page, "Place")
    assert page.hook("h.nodesDrawn()") == 48 - len(places)
    assert all(page.hook("h.nodeStyle(a).hidden", k) for k in places)
    assert f"{len(places)} hidden" in page.hook("hook(i).canvas().closest('[data-gestalt-canvas]').querySelector('.gc-count').textContent")
    assert page.hook("h.nodesInView()") == 48 - len(places)
    legend_click(page, "Place")
    assert page.hook("h.nodesDrawn()") == 48
    assert canvas.filter(labels=["Person", "Project"]) == len(places)
    assert page.hook("h.nodesDrawn()") == 48 - len(places)
    canvas.filter(nodes=lambda node: node.properties["score"] < 30)
    assert page.hook("h.nodesDrawn()") == sum(n.properties["score"] < 30 for n in sg.nodes.values())
    canvas.filter(types=["HUB"])
    assert page.hook("h.edgesDrawn()") == sum(e.type == "HUB" for e in sg.edges.values())
    canvas.filter()
    assert page.hook("[h.nodesDrawn(), h.edgesDrawn()]") == [48, len(sg.edges)]


def test_switching_layout_moves_in_place_and_keeps_pins(page):
    sg = binary_tree(5)
    canvas = GraphCanvas(sg)
    page.mount(canvas)
    page.settled(30)
    sid = page.hook("h.sigmaInstanceId()")
    page.page.evaluate("(i) => { const v = views[i]; }", page.i)
    for name in ("layered", "radial", "circular", "grid", "force"):
        canvas.layout(name) if name != "radial" else canvas.layout("radial", root="t0")
        page.settled(30)
        assert page.hook("[h.layoutName(), h.sigmaInstanceId(), h.nodesInView()]") == [name, sid, 31]
    canvas.layout("layered")
    pos = page.settled(10)
    assert all(pos[e.target]["y"] > pos[e.source]["y"] for e in sg.edges.values())


def no_overlap(page, pos) -> list:
    radius = {k: page.hook("h.nodeStyle(a).size", k) for k in pos}
    ids = list(pos)
    return [(a, b) for n, a in enumerate(ids) for b in ids[n + 1 :] if math.dist(pos[a].values(), pos[b].values()) < radius[a] + radius[b]]


def test_radial_circular_and_grid_place_nodes_by_their_geometry(page):
    """radial: one ring per hop from the root, rings growing outward; circular: every node on one circle;
    grid: rows and columns at even steps. On screen, with no two nodes overlapping."""
    sg = binary_tree(5)
    canvas = GraphCanvas(sg)
    page.mount(canvas)
    page.settled(30)

    canvas.layout("radial", root="t3")  # a root that is not the tree's own: rings by hop distance, not depth
    pos = page.settled(10)
    depth, frontier = {"t3": 0}, ["t3"]  # hops from t3, either way along the tree
    while frontier:
        nxt = []
        for e in sg.edges.values():
            for a, b in ((e.source, e.target), (e.target, e.source)):
                if a in frontier and b not in depth:
                    depth[b] = depth[a] + 1
                    nxt.append(b)
        frontier = nxt
    centre = pos["t3"]
    rings: dict[int, list[float]] = {}
    for k, p in pos.items():
        rings.setdefault(depth[k], []).append(math.dist((p["x"], p["y"]), (centre["x"], centre["y"])))
    medians = [statistics.median(rings[h]) for h in sorted(rings)]
    assert medians[0] == 0 and all(b > a + 4 for a, b in zip(medians, medians[1:])), medians
    for h, distances in rings.items():
        assert max(distances) - min(distances) <= 0.02 * max(distances) + 0.5, (h, distances)
    assert not no_overlap(page, pos)
    page.shot("layout-radial")

    canvas.layout("circular")
    pos = page.settled(10)
    cx, cy = statistics.fmean(p["x"] for p in pos.values()), statistics.fmean(p["y"] for p in pos.values())
    distances = [math.dist((p["x"], p["y"]), (cx, cy)) for p in pos.values()]
    assert min(distances) > 20 and max(distances) - min(distances) <= 0.02 * max(distances), distances
    assert not no_overlap(page, pos)

    canvas.layout("grid")
    pos = page.settled(10)
    rows = sorted({round(p["y"]) for p in pos.values()})
    cols = sorted({round(p["x"]) for p in pos.values()})
    assert len(rows) * len(cols) >= 31 and len(rows) > 1 and len(cols) > 1, (rows, cols)
    for line in (rows, cols):
        steps = [b - a for a, b in zip(line, line[1:])]
        assert max(steps) - min(steps) <= 2, steps  # even steps (rounding aside)
    assert all(min(abs(p["y"] - r) for r in rows) <= 0.5 and min(abs(p["x"] - c) for c in cols) <= 0.5 for p in pos.values())
    reading = sorted(pos, key=lambda k: (round(pos[k]["y"]), round(pos[k]["x"])))
    assert reading == [f"t{i}" for i in range(31)], "read row by row, the grid is in caption order, numbers by value"
    assert not no_overlap(page, pos)
    page.shot("layout-grid")


def test_radial_roots_at_the_node_with_most_neighbours_not_most_relationships(page):
    """Six parallel relationships p -> q (and one q -> p) make p the node with most relationships, c (four
    neighbours) the one with most neighbours: radial without a root rings the graph around c, one hop away
    l1, l2, l3 and p on one ring, q further out."""
    edges = [("c", leaf, "HAS") for leaf in ("l1", "l2", "l3")] + [("c", "p", "HAS")]
    edges += [("p", "q", "SENT")] * 6 + [("q", "p", "SENT")]
    sg = graph([(key, "Thing", {"name": key}) for key in ("c", "l1", "l2", "l3", "p", "q")], edges)
    assert len(sg.edges) == 11
    canvas = GraphCanvas(sg)
    page.mount(canvas)
    page.settled(30)
    canvas.layout("radial")
    pos = page.settled(10)
    away = {k: math.dist((pos[k]["x"], pos[k]["y"]), (pos["c"]["x"], pos["c"]["y"])) for k in pos}
    ring = [away[k] for k in ("l1", "l2", "l3", "p")]
    assert min(ring) > 4 and max(ring) - min(ring) <= 0.02 * max(ring) + 0.5, away
    assert away["q"] > max(ring) + 4, away
    assert not no_overlap(page, pos)


def test_injection_values_as_colour_categories_stay_text(page):
    corpus = ["<img src=x onerror=alert(1)>", "</script><script>alert(1)</script>", '"><svg onload=alert(1)>', "javascript:alert(1)"]
    sg = graph([(f"x{i}", "T", {"name": v, "kind": v}) for i, v in enumerate(corpus)], [("x0", "x1", "R")])
    canvas = GraphCanvas(sg)
    page.mount(canvas)
    canvas.style(color="kind", caption="kind")
    shown = page.page.evaluate("(i) => [...views[i].el.querySelectorAll('[data-gestalt-legend]')].map(e => e.getAttribute('data-gestalt-legend'))", page.i)
    assert set(corpus) <= set(shown)
    assert page.page.evaluate("(i) => views[i].el.querySelectorAll('img, svg, script').length", page.i) == 0


# -- Python side, no browser --------------------------------------------------------------------


def test_palette_has_twelve_distinct_colours():
    assert len(PALETTE) >= 12
    assert min(math.dist(lab(a), lab(b)) for n, a in enumerate(PALETTE[:12]) for b in PALETTE[n + 1 : 12]) >= 25


def test_bad_style_and_layout_say_what_to_do():
    canvas = GraphCanvas(styled_graph())
    for call, words in [
        (lambda: canvas.style(color="nope"), "No drawn node has a property 'nope'"),
        (lambda: canvas.style(size="kind"), "no numeric values"),
        (lambda: canvas.style(), "needs color="),
        (lambda: canvas.layout("spring"), "Unknown layout 'spring'"),
        (lambda: canvas.layout("radial", x="a"), "takes root"),
        (lambda: parse_layout("positions:lon"), "key=value"),
    ]:
        with pytest.raises(GestaltError, match=words):
            call()
    with pytest.raises(TypeError):
        canvas.filter(nodes=3)
    assert parse_layout("positions:x=lon, y=lat") == ("positions", {"x": "lon", "y": "lat"})


def test_style_and_layout_survive_a_rebuild():
    canvas = GraphCanvas(styled_graph(), color="community", layout="radial:root=s0")
    canvas.style(size="score")
    canvas.filter(labels=["Person"])
    canvas.reset(canvas.subgraph)
    assert canvas.graph["view"]["style"] == {"color": {"by": "community"}, "size": {"by": "property", "name": "score"}}
    assert canvas.graph["view"]["layout"] == {"name": "radial", "options": {"root": "s0"}}
    assert canvas.graph["view"]["filter"]["labels"] == ["Person"]


def test_gcypher_options_reach_the_canvas(shell, demo):
    from .conftest import run

    result = run(shell, "%%gcypher --color born --size h_index --caption name --layout layered\nMATCH (p:Person)-[k:KNOWS]->(q:Person) RETURN p, k, q")
    view = result.canvas.graph["view"]
    assert view["layout"]["name"] == "layered"
    assert view["style"] == {"color": {"by": "property", "name": "born"}, "size": {"by": "property", "name": "h_index"}}
    with pytest.raises(Exception, match="takes root"):
        run(shell, "%%gcypher --layout radial:x=1\nMATCH (p:Person) RETURN p")
    with pytest.raises(Exception, match="Unknown layout"):
        run(shell, "%%gcypher --layout spring\nMATCH (p:Person) RETURN p")
    run(shell, "%config GestaltMagic.layout = 'grid'")
    assert run(shell, "%%gcypher\nMATCH (p:Person) RETURN p").canvas.graph["view"]["layout"]["name"] == "grid"


# -- readability ----------------------------------------------------------------------------------


def test_captions_never_cover_their_own_node(page):
    canvas = GraphCanvas(styled_graph(), size="degree")
    page.mount(canvas)
    pos = page.settled(30)
    spots = page.hook("h.labelSpots()")
    drawn = 0
    for k, spot in spots.items():
        if not spot:
            continue
        drawn += 1
        r = page.hook("h.nodeStyle(a).size", k)
        cx, cy = pos[k]["x"], pos[k]["y"]
        nx, ny = min(max(cx, spot["x"]), spot["x"] + spot["w"]), min(max(cy, spot["y"]), spot["y"] + 14)
        assert math.hypot(nx - cx, ny - cy) >= r - 0.5, (k, spot, pos[k], r)
    assert drawn >= 20


def test_rings_only_on_what_matched(page):
    sg = styled_graph()
    sg.highlight_nodes = set(sg.nodes)
    sg.highlight_edges = set(sg.edges)
    canvas = GraphCanvas(sg)
    page.mount(canvas)
    assert not any(page.hook("h.nodeAttributes(a).type === 'ring'", k) for k in sg.nodes)
    canvas.highlight(["s3"])
    assert [k for k in sg.nodes if page.hook("h.nodeAttributes(a).type === 'ring'", k)] == ["s3"]


def test_panel_follows_an_expansion_and_a_click_takes_the_nearest_node(page):
    sg = graph([("a", "T", {"name": "A", "x": 0, "y": 0}), ("b", "T", {"name": "B", "x": 0.6, "y": 0}), ("c", "T", {"name": "C", "x": 100, "y": 60})], [("a", "b", "R")])
    canvas = GraphCanvas(sg, layout="positions")
    page.mount(canvas)
    page.settled(10)
    a, b = page.hook("h.screenPosition('a')"), page.hook("h.screenPosition('b')")
    ra = page.hook("h.nodeStyle('a').size")
    assert math.dist(a.values(), b.values()) < 2 * ra  # the two circles overlap
    box = page.hook("h.canvas().getBoundingClientRect().toJSON()")
    # a point inside both circles, nearer to a's centre
    x, y = a["x"] + (b["x"] - a["x"]) * 0.3, a["y"]
    page.page.mouse.click(box["x"] + x, box["y"] + y)
    page.page.wait_for_timeout(400)
    assert page.hook("h.selected()") == ["a"]
    panel = lambda: page.hook("hook(i).canvas().closest('[data-gestalt-canvas]').querySelector('.gc-panel').textContent")
    assert "degree1" in panel().replace(" ", "")
    more = graph([("a", "T", {"name": "A"}), ("d", "T", {"name": "D"})], [])
    more.add_edge(Edge("a-d", "a", "d", "R"))
    canvas.add(more)
    page.page.wait_for_timeout(300)
    assert "degree2" in panel().replace(" ", "")

