"""Shift+Enter to first frame: ``%%gcypher`` against ipysigma's ``Sigma(G)`` in a real kernel and page.

JupyterLab 4 in headless Chromium (Debian's, offline; see tests/jupyter_page.py). For each size N (the
graph of bench/bench_draw.py: N :Person nodes with a name, two KNOWS each) a fresh notebook and kernel
runs set-up cells (``%load_ext``, the connection, ``G``: the same graph as a networkx DiGraph, and one small
drawing of each kind so imports and page bundles are loaded), then a new cell is typed and run with
Shift+Enter: ``%%gcypher --limit 2N --max-nodes N --max-edges 2N`` over every KNOWS, or ``Sigma(G)``.
Measured in the page: from the Shift+Enter keydown to the end of the first animation frame whose
WebGL draw calls came after it (both draw with sigma.js on WebGL; the same hook times both).

``trees``: one JupyterServer per tree with gestalt_nb imported from it (PYTHONPATH) in the kernel; runs
alternate between trees, sizes and kinds each round; medians are printed.

    python bench/bench_gcypher.py --first-frame [--sizes 1000 5000 10000 50000] [--runs 3] [--compare BEFORE AFTER]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_draw import MAP_SIZE, build, notebook
from tests.jupyter_page import NOTEBOOK, JupyterPage, JupyterServer, browser

#: Milliseconds between two looks for the frame. The hook stamps the frame itself, so this only says when
#: Python notices; Playwright's default (every animation frame) kept the page drawing 60 times a second and
#: took ~0.4 s of CPU per 8 s from the kernel being measured, on two cores.
POLL = 100

# Installed before any page script: the time of a Shift+Enter keydown (``__armedAt``), and the end of the first
# animation frame in which WebGL drew after it on a canvas that was not shown at the keydown (``__frameAt``):
# the warm-up drawings' own redraws do not count.
HOOK_JS = r"""
(() => {
  window.__armedAt = null; window.__frameAt = null;
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && e.shiftKey && window.__arm) {
      // canvases shown at the keydown; a hidden one (a spare renderer made ahead: js/src/spare.js) counts when shown
      window.__old = new Set([...document.querySelectorAll('canvas')].filter((c) => c.checkVisibility({ visibilityProperty: true })));
      window.__armedAt = performance.now(); window.__frameAt = null; window.__arm = false;
    }
  }, true);
  let pending = false;
  const drew = (canvas) => {
    if (window.__armedAt === null || window.__frameAt !== null || pending || window.__old.has(canvas)) return;
    pending = true;
    requestAnimationFrame(() => { window.__frameAt = performance.now(); pending = false; });
  };
  for (const proto of [window.WebGLRenderingContext, window.WebGL2RenderingContext].filter(Boolean).map((c) => c.prototype)) {
    for (const name of ['drawArrays', 'drawElements', 'drawArraysInstanced', 'drawElementsInstanced']) {
      const original = proto[name];
      if (!original) continue;
      proto[name] = function (...args) { drew(this.canvas); return original.apply(this, args); };
    }
  }
})();
"""

NX_GRAPH = """import networkx as nx
G = nx.DiGraph()
G.add_nodes_from((f"p{{i}}", {{"name": f"Person {{i}}"}}) for i in range({nodes}))
G.add_edges_from((f"p{{i}}", f"p{{(i + step) % {nodes}}}") for i in range({nodes}) for step in (1, 7))"""


def cells(db: Path, nodes: int) -> list[str]:
    return [
        "%load_ext gestalt_nb",
        f"import gestalt_nb\nconnection = gestalt_nb.connect({str(db)!r}, map_size={MAP_SIZE})",
        "%%gcypher --limit 20\nMATCH (a:Person)-[r:KNOWS]->(b:Person) RETURN a, r, b",  # warm: imports, the page's bundle
        NX_GRAPH.format(nodes=nodes),
        "from ipysigma import Sigma\nSigma(nx.path_graph(10))",  # warm: ipysigma's bundle
    ]


def measured(kind: str, nodes: int) -> str:
    if kind == "ipysigma":
        return "Sigma(G)"
    return f"%%gcypher --limit {2 * nodes} --max-nodes {nodes} --max-edges {2 * nodes}\nMATCH (a:Person)-[r:KNOWS]->(b:Person) RETURN a, r, b"


def one(chromium, server: JupyterServer, name: str, source: str, timeout: float) -> float:
    """Seconds from Shift+Enter on ``source`` (a new last cell of notebook ``name``) to its first drawn frame."""
    page = JupyterPage(chromium, server)
    page.context.add_init_script(HOOK_JS)
    try:
        page.open(name)
        page.run_all(timeout=timeout)
        page.pause(1.0)  # the warm-up drawings' first frames
        cell_list = page.page.locator(f"{NOTEBOOK} .jp-Cell")
        cell_list.last.locator(".jp-InputPrompt").first.click()
        page.page.keyboard.press("Escape")
        page.page.keyboard.press("b")
        ours = cell_list.count() - 1
        cell_list.last.locator(".cm-content").click()
        page.page.keyboard.insert_text(source)
        page.page.evaluate("() => { window.__arm = true; }")
        page.page.keyboard.press("Shift+Enter")
        page.page.wait_for_function("() => window.__frameAt !== null", timeout=timeout * 1000, polling=POLL)
        seconds = page.page.evaluate("() => window.__frameAt - window.__armedAt") / 1000
        page.wait_kernel_idle(timeout)
        if page.cells()[ours]["error"] or "[*]" in page.cells()[ours]["prompt"]:
            raise RuntimeError(f"the measured cell failed: {source}")
        return seconds
    finally:
        page.close_notebook()
        page.close()


def first_frames(sizes: list[int], runs: int, trees: list[str] | None, timeout: float = 180) -> None:
    trees = trees or [""]
    with tempfile.TemporaryDirectory(prefix="bench-first-") as scratch, browser() as chromium:
        root = Path(scratch)
        for nodes in sizes:
            build(root / f"db{nodes}", nodes)
            notebook(root / f"first{nodes}.ipynb", cells(root / f"db{nodes}", nodes))
        servers = []
        try:
            for tree in trees:
                os.environ["PYTHONPATH"] = tree  # read by JupyterServer.env() when it starts: the kernel imports this tree
                servers.append(JupyterServer("lab", root=root).start())
            samples: dict[tuple[str, int, str], list[float]] = {}
            for number in range(runs):
                for nodes in sizes:
                    for kind in ("gcypher", "ipysigma"):
                        for tree, server in zip(trees, servers) if number % 2 == 0 else reversed(list(zip(trees, servers))):
                            seconds = one(chromium, server, f"first{nodes}.ipynb", measured(kind, nodes), timeout)
                            samples.setdefault((tree, nodes, kind), []).append(seconds)
                            print(f"  round {number + 1}: {tree or 'installed'} {nodes:,} {kind}: {seconds:.2f} s", flush=True)
        finally:
            for server in servers:
                server.cleanup()
            os.environ.pop("PYTHONPATH", None)
    print(f"\nShift+Enter to first frame, JupyterLab 4 / headless Chromium, medians of {runs}:")
    for tree in trees:
        for nodes in sizes:
            ours = statistics.median(samples[(tree, nodes, "gcypher")])
            theirs = statistics.median(samples[(tree, nodes, "ipysigma")])
            # ipysigma is the same code on every server: its runs on all of them, pooled, are the steadier baseline
            pooled = statistics.median([seconds for other in trees for seconds in samples[(other, nodes, "ipysigma")]])
            print(f"  {tree or 'installed':>24} {nodes:>6,} nodes: %%gcypher {ours:5.2f} s | Sigma(G) {theirs:5.2f} s | {ours / theirs:4.2f}x"
                  f" | Sigma(G) on every server {pooled:5.2f} s | {ours / pooled:4.2f}x")


# -- the kernel side alone: where a drawn cell's time goes before the page gets anything ------------------------
SPLIT = r"""
import json, sys, time
from IPython.core.interactiveshell import InteractiveShell
import gestalt_nb
from gestalt_nb.views.result_view import ResultView
path, nodes, rounds, map_size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
query = "MATCH (a:Person)-[r:KNOWS]->(b:Person) RETURN a, r, b"
shell = InteractiveShell.instance()
shell.run_line_magic("load_ext", "gestalt_nb")
connection = gestalt_nb.connect(path, map_size=map_size)
line = f"--limit {2 * nodes} --max-nodes {nodes} --max-edges {2 * nodes}"
def once():
    started = time.perf_counter()
    connection.db.query(query + f" LIMIT {2 * nodes + 1}")
    engine = time.perf_counter()
    result = shell.run_cell_magic("gcypher", line, query)
    ran = time.perf_counter()
    view = ResultView(result, **result.view_options)
    first = getattr(view, "first_bundle", lambda: None)() or view.widget  # what the page needs to draw
    sent = time.perf_counter()
    view.bundle()  # the static picture, table and text
    done = time.perf_counter()
    view.close()
    return {"engine": engine - started, "run": ran - engine, "first": sent - ran, "rest": done - sent}
once()
print("@@" + json.dumps([once() for _ in range(rounds)]))
"""
PARTS = {
    "engine (GraphDB.query)": lambda t: t["engine"],
    "gestalt-nb run() less the engine": lambda t: t["run"] - t["engine"],
    "canvas payload (first message)": lambda t: t["first"],
    "static picture, table, text": lambda t: t["rest"],
    "kernel side until the page can draw": lambda t: t["run"] + t["first"],
}


def kernel_split(sizes: list[int], runs: int, trees: list[str] | None) -> None:
    """The kernel side of the --first-frame cell, in parts (a real InteractiveShell, a real LMDB database; wall
    seconds, garbage collection as in a kernel); with trees, one process per tree and size per round, alternating."""
    import json
    import subprocess

    trees = trees or [""]
    with tempfile.TemporaryDirectory(prefix="bench-split-") as scratch:
        for nodes in sizes:
            build(Path(scratch) / f"db{nodes}", nodes)
        samples: dict = {}
        for number in range(runs):
            for nodes in sizes:
                for tree in trees if number % 2 == 0 else trees[::-1]:
                    env = {**os.environ, "PYTHONPATH": tree} if tree else None
                    out = subprocess.run([sys.executable, "-c", SPLIT, str(Path(scratch) / f"db{nodes}"), str(nodes), "1", str(MAP_SIZE)],
                                         capture_output=True, text=True, check=True, env=env, cwd=str(Path(__file__).parent))
                    timing = json.loads(next(line for line in out.stdout.splitlines() if line.startswith("@@"))[2:])[0]
                    samples.setdefault((tree, nodes), []).append(timing)
    print(f"kernel side of the --first-frame cell, medians of {runs} (ms):")
    header = "".join(f"{(Path(tree).name or tree or 'installed') + f' {nodes // 1000}k':>18}" for nodes in sizes for tree in trees)
    print(f"{'':>38}{header}")
    for name, part in PARTS.items():
        cells = "".join(f"{statistics.median(part(t) for t in samples[(tree, nodes)]) * 1000:18.0f}" for nodes in sizes for tree in trees)
        print(f"{name:>38}{cells}")
