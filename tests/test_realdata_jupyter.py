"""Issue 31 in real JupyterLab 4 and Notebook 7 (headless Chromium, offline): the layered layout of two real DAGs
(bnlearn diabetes, 413 nodes; munin, 1,041) reads at full view, ``positions`` without coordinates draws, and the
Path button finds a 24-hop path with default options. Screenshots go to $GESTALT_SHOTS (default: gestalt-shots in the temp folder)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from .jupyter_page import CHROMIUM, JupyterPage, JupyterServer, browser
from .test_canvas_browser import FIRST_FRAME_JS, FRONTENDS, hooks, ours, screenshot, wait_first_frames
from .test_canvas_out_browser import click_node

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed: apt-get install -y chromium")

DATA = Path(__file__).resolve().parent / "data"
SETUP = f"""import csv, json
import pandas as pd
import gestalt_nb
from gestalt_nb.canvas import GraphCanvas
from gestalt_nb.graph.subgraph import Edge, Node, Subgraph

def dag(name):
    with open({str(DATA)!r} + f"/bnlearn_{{name}}_edges.csv", newline="") as f:
        arcs = [(r["source"], r["target"]) for r in csv.DictReader(f)]
    sg = Subgraph()
    for key in dict.fromkeys(k for arc in arcs for k in arc):
        sg.add_node(Node(key, ("Var",), {{"name": key}}))
    for k, (s, t) in enumerate(arcs):
        sg.add_edge(Edge(f"e{{k}}", s, t, "CAUSES"))
    return sg

bare = Subgraph()
for i in range(40):
    bare.add_node(Node(f"n{{i}}", ("Bus",), {{"name": f"bus {{i}}"}}))
chain = pd.DataFrame({{"source": [f"s{{i}}" for i in range(30)], "target": [f"s{{i + 1}}" for i in range(30)]}})
steps = [f"s{{i}}" for i in range(31)]
gestalt_nb.load_nodes(pd.DataFrame({{"key": steps, "name": steps}}), id="key", label="Step", properties=["name"])
gestalt_nb.load_edges(chain, source="source", target="target", type="NEXT")
"""
CELLS = [
    "%load_ext gestalt_nb\n%gestalt demo",
    SETUP,
    "diabetes = dag('diabetes')\nGraphCanvas(diabetes, layout='layered', max_nodes=2000, max_edges=5000)",
    "munin = dag('munin')\nGraphCanvas(munin, layout='layered', max_nodes=2000, max_edges=5000)",
    "GraphCanvas(bare, layout='positions')",
    "%%gcypher -o ends\nMATCH (a:Step) WHERE a.name IN ['s0', 's24'] RETURN a",
]
MEASURE = """(n) => {
  const el = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]')[n];
  const h = el.gestaltCanvas, box = el.querySelector('.gc-sigma');
  const pos = h.positions(), size = {};
  for (const k of Object.keys(pos)) size[k] = h.nodeStyle(k).size;
  return {pos, size, w: box.clientWidth, h: box.clientHeight};
}"""


def notebook(root: Path) -> str:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(root / "realdata.ipynb"))
    return "realdata.ipynb"


def measure(page, n: int, edges: list[list[str]]) -> dict:
    hooks(page, n, "h.whenSettled()")
    m = page.page.evaluate(MEASURE, n)
    pos, size = m["pos"], m["size"]
    xs, ys = [p["x"] for p in pos.values()], [p["y"] for p in pos.values()]
    keys = list(pos)
    pairs = [(a, b) for i, a in enumerate(keys) for b in keys[i + 1 :] if math.dist(pos[a].values(), pos[b].values()) < size[a] + size[b]]
    hit = {k for pair in pairs for k in pair}
    return {"n": len(pos), "down": max(sum(pos[t]["y"] > pos[s]["y"] for s, t in edges), sum(pos[t]["x"] > pos[s]["x"] for s, t in edges)) / len(edges), "overlap": len(hit) / len(pos),
            "fill": [(max(xs) - min(xs)) / m["w"], (max(ys) - min(ys)) / m["h"]], "box": [m["w"], m["h"]], "size": max(size.values()), "in_view": all(0 <= x <= m["w"] for x in xs) and all(0 <= y <= m["h"] for y in ys)}


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_real_dags_positions_and_a_deep_path(frontend):
    # every cell stays in the page (the n-th canvas is the n-th drawn): no windowing of far-off cells
    settings = {"@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"}}
    with browser() as chromium, JupyterServer(frontend, settings=settings) as server:
        page = JupyterPage(chromium, server)
        page.context.add_init_script(FIRST_FRAME_JS)
        page.open(notebook(server.root))
        page.run_all(timeout=180)
        assert wait_first_frames(page, 60) == [], ours(page)
        assert page.canvases().count() == 4, page.page.evaluate("() => [...document.querySelectorAll('.jp-CodeCell')].map(c => [c.querySelectorAll('[data-gestalt-canvas]').length, (c.querySelector('.jp-OutputArea') || {}).textContent])")
        for n, (name, nodes, most) in enumerate([("diabetes", 413, 0.20), ("munin", 1041, 0.40)]):
            edges = page.kernel_json(f"print(json.dumps([[e.source, e.target] for e in {name}.edges.values()]))")
            m = measure(page, n, edges)
            screenshot(page, n, f"{frontend}-layered-{name}")
            print(f"\n{frontend} {name}: {m['n']} nodes, down {m['down']:.0%}, overlap {m['overlap']:.1%}, fill {m['fill'][0]:.0%} x {m['fill'][1]:.0%}; box {m['box']}, largest radius {m['size']:.1f}")
            assert m["n"] == nodes and m["down"] == 1.0 and min(m["fill"]) >= 0.5 and m["overlap"] <= most, m
        bare = measure(page, 2, [["n0", "n1"]])
        assert bare["n"] == 40 and bare["in_view"] and bare["overlap"] == 0, bare  # force ran: apart, not piled up
        screenshot(page, 2, f"{frontend}-positions-none")
        ids = page.kernel_json("print(json.dumps({str(n.properties.get('name', k)): k for k, n in ends.canvas.subgraph.nodes.items()}))")
        assert set(ids) == {'s0', 's24'}, ids
        click_node(page, 3, ids["s0"])
        click_node(page, 3, ids["s24"], shift=True)
        page.canvases().nth(3).locator('[data-gestalt-action="path"]').click()
        page.page.wait_for_function("() => document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]')[3].gestaltCanvas.nodesDrawn() >= 25", timeout=30_000)
        status = page.kernel_json("print(json.dumps(ends.canvas.status))")
        assert status["text"].startswith("Shortest path: 24 hops"), status
        screenshot(page, 3, f"{frontend}-path-24")
        assert ours(page) == []
        page.close()
