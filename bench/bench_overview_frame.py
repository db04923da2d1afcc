"""The overview on the page: Shift+Enter → first frame at 100k nodes, and a drill into a ~10k-member group → its frame.

JupyterLab 4 in headless Chromium (offline; tests/jupyter_page.py). The graph: bench/bench_overview.py's
planted partition (30 blocks of unequal sizes, about 3 relationships per node) written with
``GraphDB.ingest_arrow``. Each run opens a fresh notebook and kernel (so the overview is computed cold)
whose set-up cell connects and imports; then a new cell is typed and run with Shift+Enter, timed as
bench/first_frame.py does (from the keydown to the end of the first animation frame whose WebGL draw
calls came after it):

- ``overview``: ``%goverview --by community`` — the whole path, kernel and page, as a person runs it.
- ``plain`` (the baseline): the same super-nodes and super-edges without their group marking, drawn as
  an ordinary canvas; the overview is computed in this cell too, so overview / plain is what the
  overview's drawing costs over a plain drawing of the same subgraph.

Then, on the overview's canvas, a real double-click on the largest super-node (its 200 highest-degree
members drawn; its size is printed) is timed from the dblclick event to the first frame drawing more
nodes. Runs alternate kinds; medians and the ratio overview / plain are printed.

    python bench/bench_overview_frame.py [--runs 3] [--nodes 100000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_overview import build  # noqa: E402
from bench.first_frame import HOOK_JS, POLL  # noqa: E402
from tests.jupyter_page import NOTEBOOK, JupyterPage, JupyterServer, browser  # noqa: E402

CANVAS = ".jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]"

SETUP = """import sys, json; sys.path.insert(0, {root!r})
import gestalt_nb
from gestalt_nb.canvas import GraphCanvas
from gestalt_nb.graph.subgraph import Subgraph
%load_ext gestalt_nb
conn = gestalt_nb.connect({db!r}, map_size="16GiB")
GraphCanvas(Subgraph())  # warm: the page's bundle
print("overview: %goverview --by community")"""

MEASURED = {
    "overview": "%goverview --by community --timeout 900",
    "plain": "base = gestalt_nb.overview(by='community', timeout=900).subgraph\nGraphCanvas(Subgraph(nodes=dict(base.nodes), edges=dict(base.edges)))",
}

DRILL_JS = """async () => {
  const el = document.querySelector('%s');
  const h = el.gestaltCanvas;
  const before = h.nodesDrawn();
  const sizes = Object.keys(h.positions()).map((k) => [k, h.nodeStyle(k).size]).sort((a, b) => b[1] - a[1]);
  const key = sizes[0][0];
  const box = h.canvas().getBoundingClientRect();
  const p = h.screenPosition(key);
  return {x: box.left + p.x, y: box.top + p.y, before, caption: h.nodeAttributes(key).label};
}""" % CANVAS


def notebook(path: Path, cells: list[str]) -> None:
    import nbformat

    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    book.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nbformat.write(book, path)


def one(chromium, server: JupyterServer, kind: str, drill: bool, timeout: float = 900, shots: Path | None = None) -> tuple[float, float | None, str]:
    page = JupyterPage(chromium, server)
    page.context.add_init_script(HOOK_JS)
    try:
        page.open("bench.ipynb")
        page.run_all(timeout=timeout)
        which = page.page.locator(f"{NOTEBOOK} .jp-OutputArea").first.inner_text().strip().splitlines()[-1]
        page.pause(1.0)
        cells = page.page.locator(f"{NOTEBOOK} .jp-Cell")
        cells.last.locator(".jp-InputPrompt").first.click()
        page.page.keyboard.press("Escape")
        page.page.keyboard.press("b")
        cells.last.locator(".cm-content").click()
        page.page.keyboard.insert_text(MEASURED[kind])
        page.page.evaluate("() => { window.__arm = true; }")
        page.page.keyboard.press("Shift+Enter")
        page.page.wait_for_function("() => window.__frameAt !== null", timeout=timeout * 1000, polling=POLL)
        first = page.page.evaluate("() => window.__frameAt - window.__armedAt") / 1000
        page.wait_kernel_idle(timeout)
        drilled = None
        if drill:
            page.page.evaluate(f"() => document.querySelector('{CANVAS}').scrollIntoView({{block: 'center'}})")
            page.pause(0.5 if shots is None else 4)
            if shots is not None:
                page.page.screenshot(path=str(shots / "overview-first.png"))
            spot = page.page.evaluate(DRILL_JS)
            page.page.evaluate("""(n) => { window.__drillAt = null; window.__drillDone = null;
                document.addEventListener('dblclick', () => { window.__drillAt = performance.now(); }, {capture: true, once: true});
                const h = document.querySelector('%s').gestaltCanvas;
                const poll = () => { if (h.nodesDrawn() > n) requestAnimationFrame(() => { window.__drillDone = performance.now(); });
                                     else requestAnimationFrame(poll); };
                requestAnimationFrame(poll); }""" % CANVAS, spot["before"])
            page.page.mouse.dblclick(spot["x"], spot["y"])
            page.page.wait_for_function("() => window.__drillDone !== null", timeout=timeout * 1000, polling=POLL)
            drilled = page.page.evaluate("() => window.__drillDone - window.__drillAt") / 1000
            if shots is not None:
                page.pause(3)
                page.page.screenshot(path=str(shots / "overview-drilled.png"))
            which += f"; drilled into {spot['caption']}"
        return first, drilled, which
    finally:
        page.close_notebook()
        page.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--graph", type=Path, default=None, help="a graph built by an earlier run (built here when missing)")
    parser.add_argument("--shots", type=Path, default=None, help="save screenshots of the overview and the drilled group here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-overview-") as scratch, browser() as chromium:
        root = Path(scratch)
        started = time.perf_counter()
        graph = args.graph or root / "graph"
        if not (graph / "data.mdb").exists():
            build(str(graph), args.nodes)
        print(f"loaded {args.nodes:,} nodes in {time.perf_counter() - started:.1f} s", flush=True)
        notebook(root / "bench.ipynb", [SETUP.format(root=str(ROOT), db=str(graph))])
        server = JupyterServer("lab", root=root).start()
        samples: dict[str, list[float]] = {"overview": [], "plain": [], "drill": []}
        which = ""
        try:
            for number in range(args.runs):
                for kind in ("overview", "plain") if number % 2 == 0 else ("plain", "overview"):
                    first, drilled, said = one(chromium, server, kind, drill=kind == "overview", shots=args.shots)
                    which = said if drilled is not None else which
                    samples[kind].append(first)
                    if drilled is not None:
                        samples["drill"].append(drilled)
                    print(f"  round {number + 1}: {kind}: first frame {first:.2f} s" + (f", drill → frame {drilled:.2f} s" if drilled is not None else ""), flush=True)
        finally:
            server.cleanup()
    overview, plain, drill = (statistics.median(samples[k]) for k in ("overview", "plain", "drill"))
    print(f"\n{args.nodes:,} nodes, JupyterLab 4 / headless Chromium, medians of {args.runs} ({which}):")
    print(f"  Shift+Enter → first frame: overview {overview:.2f} s (target ≤ 2 s at 100k, ≤ 10 s at 1M) | plain canvas of the same super-nodes {plain:.2f} s | {overview / plain:.2f}x")
    print(f"  double-click the largest group → frame with its members: {drill:.2f} s (target ≤ 1 s)")


if __name__ == "__main__":
    main()
