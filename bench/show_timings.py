"""What the canvas shows, timed in headless Chromium (js/test/harness.html, real bundle and payloads, no Jupyter).

- style change on a 10k-node canvas: the ``style`` delta pushed → the next painted frame (target ≤ 0.3 s), colour
  by a property, then colour by community and size by PageRank (both computed in the page),
- ``layered`` on a 5k-node random DAG: mounted → settled (target ≤ 3 s),
- ``force`` on a 100×100 lattice: mounted → settled (target ≤ 20 s), with the unfolding ratio.
Baseline in the same run: the first frame of the same 10k graph (each figure is also printed as a ratio to it).
"""

from __future__ import annotations

import statistics
import time

from gestalt_nb.canvas import GraphCanvas
from tests.jupyter_page import ARGS, CHROMIUM
from tests.test_canvas_show import Harness, lattice, random_dag

REPAINT_JS = """async ([i, m]) => { const t0 = performance.now(); views[i].model.push(m);
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))); return performance.now() - t0; }"""


def one_round(browser) -> dict[str, float]:
    out = {}
    page = Harness(browser)
    canvas = GraphCanvas(lattice(), max_nodes=10_000, max_edges=20_000)
    started = time.perf_counter()
    page.mount(canvas, timeout=120)
    out["first frame 10k (baseline)"] = time.perf_counter() - started
    page.settled(120)
    out["force on 100x100 lattice to settled"] = time.perf_counter() - started
    sent = []
    canvas.send = lambda message, *a, **k: sent.append(message)
    canvas.style(color="name")
    out["style change on 10k to repainted"] = page.page.evaluate(REPAINT_JS, [page.i, sent[-1]]) / 1000
    canvas.style(color="community", size="pagerank")
    out["  same, Louvain + PageRank computed"] = page.page.evaluate(REPAINT_JS, [page.i, sent[-1]]) / 1000
    page.page.close()
    page = Harness(browser)
    started = time.perf_counter()
    page.mount(GraphCanvas(random_dag(5000), layout="layered", max_nodes=5000, max_edges=15_000), timeout=120)
    page.settled(120)
    out["layered on 5k DAG to settled"] = time.perf_counter() - started
    page.page.close()
    return out


TARGETS = {"style change on 10k to repainted": 0.3, "layered on 5k DAG to settled": 3.0, "force on 100x100 lattice to settled": 20.0}


def show_figures(repeats: int = 3) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        rounds = [one_round(browser) for _ in range(repeats)]
        browser.close()
    print(f"\nwhat the canvas shows (harness page, headless Chromium), medians of {repeats} rounds:")
    base = statistics.median(r["first frame 10k (baseline)"] for r in rounds)
    for name in rounds[0]:
        value = statistics.median(r[name] for r in rounds)
        target = TARGETS.get(name)
        verdict = "" if target is None else f" (target ≤ {target:g} s: {'met' if value <= target else 'MISSED'})"
        print(f"  {name:<40} {value:7.2f} s  = {value / base:5.2f} × the 10k first frame{verdict}")
