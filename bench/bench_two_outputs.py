"""The first-frame cost of a view's two outputs (its picture, then its live widget) against one output.

Since saved notebooks keep their pictures (gestalt_nb/outputs.py), a view shown in a kernel is two
outputs: the static picture (an SVG as an <img>, the tables, a style rule) and the live widget; the page
renders both and the rule hides the picture once the canvas has drawn. The baseline is the one output a
view was before: the widget with its static HTML and text as other MIME types of the same output, of which
JupyterLab renders only the widget (``View.bundle()``, shown by a set-up cell that puts the earlier
``_ipython_display_`` back for that notebook only).

JupyterLab 4 in headless Chromium (Debian's, offline; tests/jupyter_page.py). For each size N (bench_draw's
graph: N :Person nodes, two KNOWS each) and each way, a fresh notebook and kernel runs the set-up cells of
bench/first_frame.py (a warm-up drawing included), then a new cell is typed and run with Shift+Enter:
``%%gcypher --limit 2N --max-nodes N --max-edges 2N`` over every KNOWS. Measured in the page (first_frame's
hook): from the Shift+Enter keydown to the end of the first animation frame in which the new canvas drew
with WebGL. Rounds alternate the order of the two ways; medians and their ratio are printed.

    python bench/bench_two_outputs.py [--sizes 1000 5000] [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_draw import build, notebook
from bench.first_frame import cells, measured, one
from tests.jupyter_page import JupyterServer, browser

#: The baseline's set-up cell: a view in a kernel shows as one output, the widget with its static HTML and text.
ONE_OUTPUT = """from IPython.display import display as _show
from gestalt_nb import display as _display
from gestalt_nb.views import tabs as _tabs

def _one_output(self):
    _display.displayed(self)
    _show(self.bundle(), raw=True, display_id=self._display_id)

_tabs.View._ipython_display_ = _one_output"""

WAYS = {"two outputs": [], "one output": [ONE_OUTPUT]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=180)
    options = parser.parse_args()
    samples: dict[tuple[int, str], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-two-") as scratch, browser() as chromium:
        root = Path(scratch)
        for nodes in options.sizes:
            build(root / f"db{nodes}", nodes)
            for number, extra in enumerate(WAYS.values()):
                setup = cells(root / f"db{nodes}", nodes)[:3]  # load_ext, the connection, a warm-up drawing (not ipysigma's)
                notebook(root / f"way{number}-{nodes}.ipynb", setup[:1] + extra + setup[1:])
        server = JupyterServer("lab", root=root).start()
        try:
            for run in range(options.runs):
                for nodes in options.sizes:
                    order = list(enumerate(WAYS)) if run % 2 == 0 else list(enumerate(WAYS))[::-1]
                    for number, way in order:
                        seconds = one(chromium, server, f"way{number}-{nodes}.ipynb", measured("gcypher", nodes), options.timeout)
                        samples.setdefault((nodes, way), []).append(seconds)
                        print(f"  round {run + 1}: {nodes:,} nodes, {way}: {seconds:.3f} s", flush=True)
        finally:
            server.cleanup()
    print(f"\nShift+Enter to first frame, JupyterLab 4 / headless Chromium, medians of {options.runs}:")
    for nodes in options.sizes:
        two, single = (statistics.median(samples[(nodes, way)]) for way in WAYS)
        print(f"  {nodes:>6,} nodes: two outputs {two:.3f} s | one output {single:.3f} s | {two / single:.2f}x")


if __name__ == "__main__":
    main()
