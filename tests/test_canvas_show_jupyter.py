"""Encodings, layouts and filters on a query result's canvas in real JupyterLab 4 and Notebook 7 (headless Chromium,
offline): ``result.canvas.layout / style / filter`` from later cells change the drawing in place (same sigma instance),
and a legend click hides a label."""

from __future__ import annotations

import nbformat
import pytest

from . import jupyter_page
from .jupyter_page import CHROMIUM, SHOTS, JupyterPage, JupyterServer
from .test_live_browser import _Clock

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed: apt-get install -y chromium")

CELLS = [
    "%load_ext gestalt_nb\n%gestalt demo",
    "%%gcypher -o r\nMATCH (p:Person)-[w:WORKS_FOR]->(c:Company) RETURN p, w, c",
]
HOOK = "([expr]) => { const h = document.querySelector('[data-gestalt-canvas]').gestaltCanvas; return eval(expr); }"
STATE = """
import json
print(json.dumps({"people": {n.id: n.properties.get("h_index") for n in r.canvas.subgraph.nodes.values() if "Person" in n.labels},
                  "edges": [[e.source, e.target] for e in r.canvas.subgraph.edges.values()], "revision": r.canvas.revision}))
"""


def wait_revision(page, n):
    page.page.wait_for_function("([n]) => document.querySelector('[data-gestalt-canvas]').gestaltCanvas.revision() >= n", arg=[n], timeout=30_000)


@pytest.mark.parametrize("frontend", ["lab", "notebook"])
def test_layout_style_and_filter_from_later_cells(tmp_path, monkeypatch, frontend):
    clock = _Clock(jupyter_page.time)
    monkeypatch.setattr(jupyter_page, "time", clock)
    monkeypatch.setattr(jupyter_page, "DEFAULT_SETTINGS", {"@jupyter-widgets/jupyterlab-manager:plugin": {"saveState": True}})
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}
    with JupyterServer(frontend) as server:
        nbformat.write(nb, server.root / "show.ipynb")
        with sync_api.sync_playwright() as playwright:
            from .jupyter_page import ARGS

            chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = JupyterPage(chromium, server)
            clock.page = page.page
            try:
                page.open("show.ipynb")
                page.run_all()
                page.page.wait_for_function("() => { const el = document.querySelector('[data-gestalt-canvas]'); return el && el.gestaltCanvas && el.gestaltCanvas.ready; }", timeout=60_000)
                page.page.evaluate("() => document.querySelector('[data-gestalt-canvas]').gestaltCanvas.whenSettled()")
                instance = page.page.evaluate(HOOK, ["h.sigmaInstanceId()"])
                assert page.page.evaluate(HOOK, ["h.nodesDrawn()"]) == 9
                state = page.kernel_json("r.canvas.layout('layered')\n" + STATE, timeout=60)
                wait_revision(page, state["revision"])
                page.page.evaluate("() => document.querySelector('[data-gestalt-canvas]').gestaltCanvas.whenSettled()")
                pos = page.page.evaluate(HOOK, ["h.positions()"])
                assert page.page.evaluate(HOOK, ["[h.layoutName(), h.sigmaInstanceId()]"]) == ["layered", instance]
                assert all(pos[t]["y"] > pos[s]["y"] for s, t in state["edges"])  # every WORKS_FOR points down
                state = page.kernel_json("r.canvas.style(size='h_index', color='community')\n" + STATE, timeout=60)
                wait_revision(page, state["revision"])
                assert page.page.evaluate(HOOK, ["h.positions()"]) == pos  # a style change moves nothing
                people = sorted(state["people"], key=state["people"].get)
                sizes = [page.page.evaluate(HOOK, [f"h.nodeStyle({k!r}).size"]) for k in people]
                assert sizes == sorted(sizes) and sizes[-1] > sizes[0]
                state = page.kernel_json("r.canvas.filter(labels=['Company'])\n" + STATE, timeout=60)
                wait_revision(page, state["revision"])
                assert page.page.evaluate(HOOK, ["[h.nodesDrawn(), h.nodesInView()]"]) == [3, 3]
                state = page.kernel_json("r.canvas.filter()\n" + STATE, timeout=60)
                wait_revision(page, state["revision"])
                page.page.locator('[data-gestalt-legend="Company"]').first.click()
                assert page.page.evaluate(HOOK, ["h.nodesDrawn()"]) == 6
                assert "3 hidden" in page.page.locator(".gc-count").first.text_content()
                page.page.locator('[data-gestalt-legend="Company"]').first.click()
                assert page.page.evaluate(HOOK, ["h.nodesDrawn()"]) == 9
                SHOTS.mkdir(parents=True, exist_ok=True)
                page.page.screenshot(path=str(SHOTS / f"show-{frontend}-styled.png"))
            finally:
                page.close()
