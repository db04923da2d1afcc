"""How fast the graph canvas draws in real JupyterLab 4 (headless Chromium, software WebGL), and how big it saves.

For 1k, 5k, 10k and 50k nodes (2 relationships per node, a name each) a notebook runs
``%%gcypher --limit 2N --max-nodes N --max-edges 2N`` in a fresh kernel and page; measured in the page:
- first frame: from the output element appearing (MutationObserver) to the canvas's first frame
  (``gestaltCanvas.timings().firstFrame``),
- settled: from the output appearing to the layout stopping (``timings().settled``),
- bytes: the canvas model's state (``graph`` payload and traits as compact JSON, binary buffers by their size;
  what a saved notebook keeps per output),
  the output's MIME bundle (static fallback + text), and every websocket byte the page received while the
  notebook ran (includes the one-per-kernel bundle model).
Then ten results of 1,000 nodes and 2,000 relationships (one type) in one notebook, run all, saved from
JupyterLab with widget state (Ctrl+S), and the .ipynb read from disk.

Runs are interleaved across sizes (``--repeats``); medians are printed. Targets (issue 10): 5k first
frame ≤ 1 s, 10k ≤ 2 s, 50k drawn ≤ 10 s; ten 1k results ≤ 3 MB saved with widget state. Then (issue 20,
bench/show_timings.py, ``--show-only`` for just these): a style change on a 10k canvas, ``layered`` on a 5k DAG and
``force`` on a 100×100 lattice (≤ 0.3 s, ≤ 3 s, ≤ 20 s).

    .venv/bin/python bench/bench_draw.py [--sizes 1000 5000 10000 50000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.show_timings import show_figures
from tests.jupyter_page import FIRST_FRAME_JS, JupyterPage, JupyterServer, browser

MAP_SIZE = 4 * 1024**3
TARGETS = {5000: 1.0, 10000: 2.0, 50000: 10.0}


def build(path: Path, nodes: int, groups: int = 1) -> None:
    """``nodes`` :Person nodes with a name, in ``groups`` equal groups; two KNOWS per node inside its group."""
    from gestaltdb.graphdb import Edge, GraphDB, Node

    size = nodes // groups
    db = GraphDB.create(path, backend="lmdb", backend_options={"map_size": MAP_SIZE})
    with db.transaction() as tx:
        tx.put_nodes([Node(f"p{i}", labels=["Person"], properties={"name": f"Person {i}", "group": i // size}) for i in range(nodes)])
        tx.put_edges_bulk(
            [Edge(f"e{i}-{step}", f"p{i}", f"p{(i // size) * size + (i % size + step) % size}", properties={"type": "KNOWS"})
             for i in range(nodes) for step in (1, 7)],
            check_existing=False,
        )
    db.close()


def notebook(path: Path, cells: list[str]) -> None:
    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    book.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(book, str(path))


def draw_cells(db: Path, nodes: int) -> list[str]:
    return [
        "%load_ext gestalt_nb",
        f"import gestalt_nb\nconnection = gestalt_nb.connect({str(db)!r}, map_size={MAP_SIZE})",
        f"%%gcypher -o drawn --limit {2 * nodes} --max-nodes {nodes} --max-edges {2 * nodes}\n"
        "MATCH (a:Person)-[r:KNOWS]->(b:Person) RETURN a, r, b",
    ]


SIZES_CELL = """import json
_bundle = drawn.view._repr_mimebundle_()
_state = drawn.canvas.get_state()
_state.pop("_esm", None); _state.pop("_css", None)
_binary = []
def _as_length(value):  # binary traits (buffers) are counted by their size; saved notebooks hold them as base64
    _binary.append(len(value) if isinstance(value, (bytes, bytearray, memoryview)) else 0)
    return None
_json_bytes = len(json.dumps(_state, separators=(",", ":"), default=_as_length))
print(json.dumps({"state": _json_bytes + sum(_binary), "binary": sum(_binary), "esm": len(drawn.canvas._esm),
                  "html": len(_bundle.get("text/html", "")), "text": len(_bundle.get("text/plain", "")),
                  "nodes": len(drawn.canvas.subgraph.nodes), "edges": len(drawn.canvas.subgraph.edges)}))"""


def measure(chromium, server: JupyterServer, name: str, timeout: float) -> dict:
    page = JupyterPage(chromium, server)
    received = [0]

    def on_socket(socket):
        socket.on("framereceived", lambda payload: received.__setitem__(0, received[0] + len(payload)))

    page.page.on("websocket", on_socket)
    page.context.add_init_script(FIRST_FRAME_JS)
    try:
        page.open(name)
        page.run_all(timeout=timeout)
        page.page.wait_for_function("() => { const el = document.querySelector('[data-gestalt-canvas]'); return el && el.__gestaltFirst; }",
                                    timeout=timeout * 1000)
        settled = page.page.evaluate(f"""async () => {{
            const el = document.querySelector('[data-gestalt-canvas]'); const h = el.gestaltCanvas;
            const done = await Promise.race([h.settled.then(() => true), new Promise(r => setTimeout(() => r(false), {timeout * 1000}))]);
            const t = h.timings(); const f = el.__gestaltFirst;
            return {{done, appeared: f.appeared, first: t.firstFrame, settled: t.settled, start: t.start,
                     drawn: f.drawn, inView: f.inView}}; }}""")
        ws_bytes = received[0]
        sizes = page.kernel_json(SIZES_CELL)
        problems = [line["text"][:200] for line in page.console_errors()] + [error[:200] for error in page.errors]
        return {**settled, **sizes, "ws": ws_bytes, "problems": problems}
    finally:
        page.close_notebook()
        page.close()


def ms(value: float | None) -> str:
    return "—" if value is None else f"{value / 1000:.2f} s"


def run_sizes(chromium, server: JupyterServer, sizes: list[int], repeats: int, timeout: float) -> dict[int, list[dict]]:
    for nodes in sizes:
        db = server.root / f"db{nodes}"
        if not db.exists():
            started = time.perf_counter()
            build(db, nodes)
            print(f"built {nodes:,} nodes / {2 * nodes:,} relationships in {time.perf_counter() - started:.1f} s", flush=True)
        notebook(server.root / f"draw{nodes}.ipynb", draw_cells(db, nodes))
    results: dict[int, list[dict]] = {nodes: [] for nodes in sizes}
    for round_ in range(repeats):
        for nodes in sizes:  # interleaved: one run of each size per round
            if round_ and nodes >= 50_000 and not ARGS.repeat_big:
                continue
            run = measure(chromium, server, f"draw{nodes}.ipynb", timeout)
            results[nodes].append(run)
            first = run["first"] - run["appeared"] if run["first"] and run["appeared"] else None
            settled = run["settled"] - run["appeared"] if run["settled"] and run["appeared"] else None
            print(f"  round {round_ + 1}: {nodes:>6,} nodes: first frame {ms(first)}, settled {ms(settled)}"
                  f"{'' if run['done'] else ' (not settled)'}; drawn {run['drawn']:,} / in view {run['inView']:,}"
                  f"{'; ' + '; '.join(run['problems'][:3]) if run['problems'] else ''}", flush=True)
    return results


def saved_notebook(chromium, server: JupyterServer, timeout: float) -> dict:
    db = server.root / "ten"
    build(db, 10_000, groups=10)
    cells = ["%load_ext gestalt_nb", f"import gestalt_nb\nconnection = gestalt_nb.connect({str(db)!r}, map_size={MAP_SIZE})"]
    cells += [f"%%gcypher --limit 2000\nMATCH (a:Person {{group: {group}}})-[r:KNOWS]->(b:Person) RETURN a, r, b" for group in range(10)]
    notebook(server.root / "ten.ipynb", cells)
    page = JupyterPage(chromium, server)
    page.context.add_init_script(FIRST_FRAME_JS)
    try:
        page.open("ten.ipynb")
        page.run_all(timeout=timeout)
        counts = page.kernel_json(
            "import json\n_seen = {id(v): v for v in list(globals().values()) if type(v).__name__ == 'QueryResult'}\n"
            "print(json.dumps([[len(r.canvas.subgraph.nodes), len(r.canvas.subgraph.edges)] for r in _seen.values()]))")
        path = page.save()
        raw = path.read_bytes()
    finally:
        page.close_notebook()
        page.close()
    book = json.loads(raw)
    widgets = book.get("metadata", {}).get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    without = dict(book)
    without["metadata"] = {k: v for k, v in book["metadata"].items() if k != "widgets"}
    models: dict[str, int] = {}
    for model in widgets.values():
        models[model.get("model_name", "?")] = models.get(model.get("model_name", "?"), 0) + 1
    biggest = sorted(((len(json.dumps(m)), m.get("model_name")) for m in widgets.values()), reverse=True)[:3]
    outputs = sum(len(json.dumps(cell.get("outputs", []))) for cell in book["cells"])
    without_bytes = len(nbformat.writes(nbformat.from_dict(without)).encode())
    return {"bytes": len(raw), "without_widgets": without_bytes, "models": models,
            "widget_state": len(json.dumps(widgets)), "outputs": outputs, "biggest": biggest, "results": counts}


def print_sizes(results: dict[int, list[dict]]) -> None:
    print(f"\nJupyterLab 4, headless Chromium (software WebGL); medians of {ARGS.repeats} interleaved runs (50k: 1 unless --repeat-big)")
    print(f"{'nodes':>7} {'rels':>7} {'first frame':>12} {'target':>7} {'settled':>10} {'drawn/in view':>15} "
          f"{'canvas state':>13} {'static html':>12} {'ws bytes':>10}")
    for nodes, runs in results.items():
        firsts = [r["first"] - r["appeared"] for r in runs if r["first"] and r["appeared"]]
        settles = [r["settled"] - r["appeared"] for r in runs if r["settled"] and r["appeared"]]
        last = runs[-1]
        target = TARGETS.get(nodes)
        first = statistics.median(firsts) if firsts else None
        verdict = "" if target is None or first is None else ("ok" if first / 1000 <= target else "MISS")
        print(f"{nodes:>7,} {last['edges']:>7,} {ms(first):>12} {(f'≤{target:g} s ' + verdict) if target else '':>7} "
              f"{ms(statistics.median(settles)) if settles else '—':>10} {last['drawn']:>7,}/{last['inView']:<7,} "
              f"{last['state']:>13,} {last['html']:>12,} {last['ws']:>10,}", flush=True)


def main() -> None:
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 5000, 10000, 50000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--repeat-big", action="store_true", help="repeat 50k runs too (slow)")
    parser.add_argument("--timeout", type=float, default=180)
    parser.add_argument("--skip-saved", action="store_true")
    parser.add_argument("--show-only", action="store_true", help="only the style / layered / lattice figures (bench/show_timings.py)")
    ARGS = parser.parse_args()
    if ARGS.show_only:
        return show_figures(ARGS.repeats)
    with tempfile.TemporaryDirectory(prefix="bench-draw-") as scratch, browser() as chromium:
        server = JupyterServer("lab", root=Path(scratch)).start()
        try:
            results = run_sizes(chromium, server, ARGS.sizes, ARGS.repeats, ARGS.timeout) if ARGS.sizes else {}
            print_sizes(results)
            saved = None if ARGS.skip_saved else saved_notebook(chromium, server, ARGS.timeout)
        finally:
            server.cleanup()
    if saved:
        mb = saved["bytes"] / 1e6
        print(f"\nten results of 1,000 nodes / 2,000 relationships, saved from JupyterLab with widget state: "
              f"{saved['bytes']:,} bytes ({mb:.2f} MB; target ≤ 3 MB: {'ok' if mb <= 3 else 'MISS'})")
        print(f"  widget state as saved (nbformat's indent=1) {saved['bytes'] - saved['without_widgets']:,} bytes, "
              f"{saved['widget_state']:,} bytes as compact JSON, in {sum(saved['models'].values())} models {saved['models']}")
        print(f"  cell outputs {saved['outputs']:,} bytes; the same file without widget state {saved['without_widgets']:,} bytes")
        print(f"  largest models: {saved['biggest']}; drawn per result (nodes, rels): {saved['results']}")
    show_figures(ARGS.repeats)  # style change, layered, lattice (issue 20)


ARGS = argparse.Namespace(repeat_big=False)

if __name__ == "__main__":
    main()
