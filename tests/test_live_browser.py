"""A live result in real JupyterLab (headless Chromium, offline): a load in another cell grows the
drawing in place — same sigma instance, old nodes unmoved — the status line says it refreshed, Stop stops it."""

from __future__ import annotations

import json

import nbformat
import pytest

from . import jupyter_page
from .jupyter_page import CHROMIUM, JupyterPage, JupyterServer

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed: apt-get install -y chromium")

CELLS = [
    "%load_ext gestalt_nb\n%gestalt demo",
    "%%gcypher --live -o lv\nMATCH (p:Person)-[k:KNOWS]->(q:Person) RETURN p, k, q",
]
LOAD = """
import json, pandas as pd, gestalt_nb
gestalt_nb.load_nodes(pd.DataFrame({"id": ["gia", "hugo"], "name": ["Gia Romano", "Hugo Brandt"]}), id="id", label="Person")
gestalt_nb.load_edges(pd.DataFrame({"s": ["gia", "hugo"], "t": ["hugo", "alice"]}), source="s", target="t", type="KNOWS")
lv.wait()
print(json.dumps({"nodes": sorted(lv.canvas.subgraph.nodes), "reruns": lv.reruns}))
"""
HOOK = "([expr]) => { const h = document.querySelector('[data-gestalt-canvas]').gestaltCanvas; return eval(expr); }"


class _Clock:
    """``time`` for jupyter_page whose ``sleep`` keeps Playwright serving the page (routed requests stall otherwise)."""

    def __init__(self, real):
        self.real, self.page = real, None

    def __getattr__(self, name):
        return getattr(self.real, name)

    def sleep(self, seconds):
        if self.page is None:
            self.real.sleep(seconds)
        else:
            self.page.wait_for_timeout(seconds * 1000)


@pytest.mark.parametrize("frontend", ["lab", "notebook"])
def test_live_view_grows_in_place_and_stops(tmp_path, monkeypatch, frontend):
    clock = _Clock(jupyter_page.time)
    monkeypatch.setattr(jupyter_page, "time", clock)
    # Notebook 7 has no notification plugin; user settings for it make its settings registry throw.
    monkeypatch.setattr(jupyter_page, "DEFAULT_SETTINGS", {"@jupyter-widgets/jupyterlab-manager:plugin": {"saveState": True}})
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}
    with JupyterServer(frontend) as server:
        nbformat.write(nb, server.root / "live.ipynb")
        with sync_api.sync_playwright() as playwright:
            from .jupyter_page import ARGS

            chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = JupyterPage(chromium, server)
            clock.page = page.page
            try:
                page.open("live.ipynb")
                page.run_all()
                page.page.wait_for_selector("[data-gestalt-canvas]", timeout=60_000)
                page.page.wait_for_function("() => { const el = document.querySelector('[data-gestalt-canvas]'); return el && el.gestaltCanvas && el.gestaltCanvas.ready; }", timeout=60_000)
                page.page.evaluate("() => document.querySelector('[data-gestalt-canvas]').gestaltCanvas.settled")
                before_ids = ["alice", "bob", "carla", "dev", "eva", "farid"]
                assert page.page.evaluate(HOOK, ["h.nodesDrawn()"]) == 6
                instance = page.page.evaluate(HOOK, ["h.sigmaInstanceId()"])
                positions = page.page.evaluate(HOOK, [f"{json.dumps(before_ids)}.map(id => h.graphPosition(id))"])
                kernel = page.kernel_json(LOAD, timeout=90)
                assert kernel["reruns"] == 1 and {"gia", "hugo"} <= set(kernel["nodes"]) and len(kernel["nodes"]) == 8
                page.page.wait_for_function("([n]) => document.querySelector('[data-gestalt-canvas]').gestaltCanvas.nodesDrawn() === n", arg=[8], timeout=30_000)
                assert page.page.evaluate(HOOK, ["h.sigmaInstanceId()"]) == instance  # deltas, not a rebuild
                after = page.page.evaluate(HOOK, [f"{json.dumps(before_ids)}.map(id => h.graphPosition(id))"])
                assert after == positions  # old nodes keep their positions
                assert page.page.evaluate(HOOK, ["h.nodesInView()"]) == 8
                status = page.page.locator(".widget-label", has_text="re-run").first
                assert "1 re-run" in status.inner_text()
                page.page.locator("button", has_text="Stop").first.click()
                page.page.wait_for_function("() => Array.from(document.querySelectorAll('.widget-label')).some(el => el.textContent.startsWith('stopped'))", timeout=15_000)
                assert page.kernel_json("print(json.dumps({'stopped': lv.stopped, 'polling': gestalt_nb.connection().feed.polling}))") == {"stopped": True, "polling": False}
                assert not page.remote
            finally:
                page.close()
                chromium.close()
