"""Saved notebooks show their pictures wherever they go, offline (headless Chromium, every outside request refused).

A notebook with a ``%%gcypher`` drawing, a ``%goverview``, a ``%gschema``, a ``%gsubgraph`` and a claim status
(``%claims status``: a badge and evidence tables, no drawing) on the demo graph is executed with nbclient twice,
storing widget state and not. Each copy converted with ``jupyter nbconvert --to html`` shows every picture and
the claim status (nbconvert's HTML of the copy with state used to show no picture: it picks the widget, whose
manager it asks unpkg.com for); with ``--template gestalt`` (gestalt_nb/nbconvert_template) it asks nothing off
the machine. Each copy, trusted as a notebook saved in JupyterLab is, and the copy with state untrusted too,
reopened without running in JupyterLab 4 and in Notebook 7 shows a picture (or the live canvas rebuilt from
saved state) for every drawing and the claim status's badge, and never "Error displaying widget: model not
found" (which the trusted copy without state used to show: the fresh kernel has no models, as after a restart).
The same notebook run in the page (JupyterLab 4 and Notebook 7, with Lab's default and with "Save Widget State
Automatically"), saved, reloaded with its kernel alive, then its kernel restarted, saved and reloaded, shows the
same at every step; its last cell's load shows a progress bar, a widget with no view around it (it said "model not
found" after the restart: ``outputs.Line`` keeps a line beside it now).
Screenshots go to $GESTALT_SHOTS (default: gestalt-shots in the temp folder): each reopened copy's top, its
``%gsubgraph`` and claim status, and its last cell.
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from .jupyter_page import CHROMIUM, JupyterPage, JupyterServer, browser
from .test_canvas_browser import SHOTS

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
pytest.importorskip("jupyterlab", reason="JupyterLab 4 is not installed")
pytest.importorskip("notebook", reason="Notebook 7 is not installed")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed: apt-get install -y chromium")

CELLS = [
    "%load_ext gestalt_nb",
    "%gestalt demo {demo}",
    "%%gcypher\nMATCH (p:Person)-[w:WORKS_FOR]->(c:Company) RETURN p, w, c",
    "%goverview",
    "%gschema",
    '%gsubgraph "alice chen" --hops 2',
    "%claims status alice WORKS_FOR acme --valid-time 2024-07-01T00:00:00Z",
    # A load big enough for a progress bar (a widget with no view around it; outputs.Line keeps its line).
    'import pandas as pd\nimport gestalt_nb\ngestalt_nb.load_nodes(pd.DataFrame(dict(n=range(5000))), id="n", label="Row");',
    # A canvas shown on its own, not in a view (canvas/alone.py: its picture, then the live canvas).
    'gestalt_nb.run("MATCH (p:Person)-[w:WORKS_FOR]->(c:Company) RETURN p, w, c").canvas',
]
VIEWS = [2, 3, 4, 5, 8]  # the cells that show a drawing: %%gcypher, %goverview, %gschema, %gsubgraph, a bare canvas
STATUS = 6  # the claim status: a badge and evidence tables, no drawing
LOAD = 7  # the load's progress: the bar, or its last line ("5,000 rows in …")

# Per code cell: how many pictures (<img>/<svg> at least 50 px each way) and drawn canvases are visible, and
# the visible non-empty claim status badges, and the visible text of outputs that show a widget error.
SEEN_JS = """([cells]) => Array.from(document.querySelectorAll(cells)).map(cell => {
  const visible = (e) => { const r = e.getBoundingClientRect(); return r.width >= 50 && r.height >= 50 && e.checkVisibility(); };
  const pictures = Array.from(cell.querySelectorAll('img, svg')).filter(e => visible(e) && (e.tagName !== 'IMG' || e.naturalWidth > 0));
  const canvases = Array.from(cell.querySelectorAll('[data-gestalt-canvas]')).filter(visible)
    .filter(e => e.gestaltCanvas && e.gestaltCanvas.nodesDrawn && e.gestaltCanvas.nodesDrawn() > 0);
  const statuses = Array.from(cell.querySelectorAll('.gestalt-status')).filter(e => e.checkVisibility()
    && e.getBoundingClientRect().width > 0 && e.textContent.trim()).map(e => e.textContent.trim());
  const errors = Array.from(cell.querySelectorAll('*')).filter(e => e.children.length === 0 && e.checkVisibility()
    && /Error displaying widget|model not found/.test(e.textContent)).map(e => e.textContent.trim());
  const shown = Array.from(cell.querySelectorAll('.jp-OutputArea-child')).filter(e => e.checkVisibility()
    && e.getBoundingClientRect().height > 0).map(e => e.innerText.trim()).join(' | ');
  return {pictures: pictures.length, canvases: canvases.length, statuses, errors, shown};
})"""
LAB_CELLS = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell.jp-CodeCell"


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """The notebook executed by nbclient without and with widget state: {state: path}."""
    import nbformat
    from nbclient import NotebookClient

    root = tmp_path_factory.mktemp("saved")
    copies = {}
    for state in (False, True):
        notebook = nbformat.v4.new_notebook()
        notebook.cells = [nbformat.v4.new_code_cell(source.format(demo=root / f"demo-{state}")) for source in CELLS]
        notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        NotebookClient(notebook, timeout=180, kernel_name="python3", store_widget_state=state).execute(cwd=str(root))
        assert ("widgets" in notebook.metadata) == state
        copies[state] = root / f"state-{state}.ipynb"
        nbformat.write(notebook, str(copies[state]))
    return copies


@pytest.fixture(scope="module")
def chromium():
    with browser() as instance:
        yield instance


def seen(page, cells: str) -> list[dict]:
    return page.evaluate(SEEN_JS, [cells])


@pytest.mark.parametrize("template", ["lab", "gestalt"])
@pytest.mark.parametrize("state", [False, True], ids=["without-state", "with-state"])
def test_nbconvert_html_shows_every_picture_offline(saved, chromium, state, template, tmp_path):
    """nbconvert's own lab page asks CDNs for its furniture (refused: the pictures show all the same); the
    ``gestalt`` template (``jupyter nbconvert --to html --template gestalt``) asks nothing off the machine."""
    body = subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--template", template, "--stdout",
                           str(saved[state])], capture_output=True, text=True, check=True).stdout
    assert ('type="application/vnd.jupyter.widget-view+json"' in body) == (state and template == "lab")  # with state, lab picks the widget
    path = tmp_path / "export.html"
    path.write_text(body, encoding="utf-8")
    page = chromium.new_page(viewport={"width": 1200, "height": 900})
    remote: list[str] = []
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(("file:", "data:", "blob:"))
               else (remote.append(route.request.url), route.abort()))
    try:
        page.goto(path.as_uri())
        page.wait_for_load_state("load")
        page.wait_for_timeout(500)  # the widget manager's loader asks for it after DOMContentLoaded
        cells = seen(page, ".jp-Cell.jp-CodeCell")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"saved-nbconvert-{template}-{'with' if state else 'without'}-state.png"), full_page=True)
    finally:
        page.close()
    print("refused requests:", remote)
    assert [cells[number]["pictures"] for number in VIEWS] == [1] * len(VIEWS), cells
    shows_every_view(f"nbconvert {template} {state}", cells)
    if template == "gestalt":
        assert remote == [] and "widget-state+json" not in body
    else:  # every request off the machine is nbconvert's own page furniture (require.js, MathJax, the widget manager)
        assert remote and all(url.startswith(("https://cdnjs.cloudflare.com/", "https://unpkg.com/@jupyter-widgets/")) for url in remote), remote


def trust(server: JupyterServer, path: Path) -> None:
    """Sign ``path`` with the server's notary, as JupyterLab does when it saves a notebook."""
    subprocess.run([sys.executable, "-m", "jupyter", "trust", str(path)], env=server.env(), check=True, capture_output=True)


# (copy, with widget state, trusted). The untrusted copy first: the same bytes signed earlier would be trusted.
COPIES = [("untrusted-with-state", True, False), ("trusted-without-state", False, True), ("trusted-with-state", True, True)]


@pytest.mark.parametrize("frontend", ["lab", "notebook"])
def test_reopened_every_view_shows_a_picture(saved, chromium, frontend):
    """Without running: a picture (or a canvas drawn from saved state) per view, never "model not found"."""
    server = JupyterServer(frontend).start()
    page = JupyterPage(chromium, server)
    found = {}
    try:
        for name, state, trusted in COPIES:
            path = server.root / f"{name}.ipynb"
            path.write_bytes(saved[state].read_bytes())
            if trusted:
                trust(server, path)
            page.open(path.name)
            try:
                found[name] = look(page, f"saved-{frontend}-{name}")
            finally:
                page.close_notebook()
    finally:
        done(page, server)
    every_step_shows_every_view(frontend, found, page.remote)


MANAGER = "@jupyter-widgets/jupyterlab-manager:plugin"  # its saveState: "Save Widget State Automatically"


@pytest.mark.parametrize("save_state", [False, True], ids=["default", "save-widget-state"])
@pytest.mark.parametrize("frontend", ["lab", "notebook"])
def test_run_saved_then_reloaded_with_the_kernel_alive_and_restarted(chromium, frontend, save_state):
    """Run in the page, saved, reloaded with the kernel alive; then the kernel restarted (the page keeps its live
    views), saved again and reloaded: a picture or a drawn canvas per view every time, never "model not found"
    (a bare widget, as the load's progress bar was, says it after the restart: its kernel's models are gone)."""
    server = JupyterServer(frontend, settings={MANAGER: {"saveState": save_state}}).start()
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source.format(demo=server.root / "demo")) for source in CELLS]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, str(server.root / "ran.ipynb"))
    page = JupyterPage(chromium, server)
    shot = f"reload-{frontend}-{'state' if save_state else 'default'}"
    found = {}
    try:
        page.open("ran.ipynb")
        page.run_all()
        found["ran"] = look(page, f"{shot}-ran")
        saved = json.loads(page.save().read_text(encoding="utf-8"))
        assert bool(saved["metadata"].get("widgets")) == save_state
        page.reload()
        found["reloaded, kernel alive"] = look(page, f"{shot}-alive")
        page.restart_kernel()
        found["kernel restarted"] = look(page, f"{shot}-restarted")
        page.save()
        page.reload()
        found["restarted, saved, reloaded"] = look(page, f"{shot}-restarted-reloaded")
    finally:
        done(page, server)
    every_step_shows_every_view(f"{frontend} {shot}", found, page.remote)


def done(page: JupyterPage, server: JupyterServer) -> None:
    page.close()
    server.cleanup()


def every_step_shows_every_view(what: str, found: dict[str, list[dict]], remote: list[str]) -> None:
    for name, cells in found.items():
        shows_every_view(f"{what} {name}", cells)
    assert remote == []


def look(page: JupyterPage, shot: str) -> list[dict]:
    """What each code cell shows once every view shows something (and the widget manager has had time to restore or
    fail); screenshots ``shot``.png (the top) and ``shot``-end.png (the last cells)."""
    page.page.wait_for_function(  # each view shows something: a picture, a drawn canvas or an error
        f"""([cells, views, status]) => {{ const seen = ({SEEN_JS})([cells]);
            const shows = (n) => seen[n] && (seen[n].pictures + seen[n].canvases > 0 || seen[n].errors.length);
            return views.every(shows) && seen[status] && (seen[status].statuses.length || seen[status].errors.length); }}""",
        arg=[LAB_CELLS, VIEWS, STATUS], timeout=60_000)
    page.pause(1.5)  # the widget manager has restored (or failed to find) the models by now
    top = seen(page.page, LAB_CELLS)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.page.screenshot(path=str(SHOTS / f"{shot}.png"))
    page.page.locator(LAB_CELLS).nth(STATUS - 1).evaluate("cell => cell.scrollIntoView({block: 'start'})")
    page.pause(1.0)  # the cells scrolled to are painted
    middle = seen(page.page, LAB_CELLS)
    page.page.screenshot(path=str(SHOTS / f"{shot}-end.png"))
    page.page.locator(LAB_CELLS).last.evaluate("cell => cell.scrollIntoView({block: 'end'})")
    page.pause(1.0)  # Lab lays out cells out of view lazily (their text reads as empty): the last ones are in view now
    end = seen(page.page, LAB_CELLS)
    page.page.screenshot(path=str(SHOTS / f"{shot}-last.png"))
    return [{"pictures": max(a["pictures"] for a in looks), "canvases": max(a["canvases"] for a in looks),
             "statuses": next((a["statuses"] for a in looks if a["statuses"]), []), "errors": [e for a in looks for e in a["errors"]],
             "shown": max((a["shown"] for a in looks), key=len)} for looks in zip(top, middle, end, strict=True)]


def shows_every_view(name: str, cells: list[dict]) -> None:
    """A picture or a drawn canvas per view, the claim status's badge, the load's bar or line, no widget error."""
    print(name, [{**cells[number], "shown": cells[number]["shown"][:50]} for number in [*VIEWS, STATUS, LOAD]])
    assert all(cells[number]["pictures"] + cells[number]["canvases"] >= 1 for number in VIEWS), (name, cells)
    assert cells[STATUS]["statuses"] == ["BOTH"], (name, cells[STATUS])
    assert "5,000" in cells[LOAD]["shown"], (name, cells[LOAD])
    assert not any(cell["errors"] for cell in cells), (name, cells)


def test_in_a_kernel_a_progress_bar_is_its_line_then_its_live_widget(shell, demo, monkeypatch):
    """A load's progress bar goes out as a view does: a line under a display id (re-sent with the last line when the
    load ends) then the bar alone, marked ``gestalt-live``, so a page without its model shows the line."""
    import pandas as pd
    from IPython.utils.capture import capture_output
    from ipywidgets.widgets.widget import _instances  # the kernel's widgets by model id

    import gestalt_nb
    from gestalt_nb import outputs
    from gestalt_nb.data import writes

    monkeypatch.setattr(writes, "kernel_shell", lambda: shell)
    with capture_output() as shown:
        gestalt_nb.load_nodes(pd.DataFrame({"n": range(writes.PROGRESS_FROM)}), id="n", label="Row")
    picture, live, last = shown.outputs
    assert picture.data["text/html"].startswith(outputs.STYLE) and "nodes: 0 / 5,000 rows" in picture.data["text/html"]
    assert set(live.data) == {"application/vnd.jupyter.widget-view+json", "text/plain"} and not live.transient
    bar = _instances[live.data["application/vnd.jupyter.widget-view+json"]["model_id"]]
    assert outputs.LIVE in bar._dom_classes
    assert last.update and last.transient["display_id"] == picture.transient["display_id"]
    assert last.data["text/plain"].startswith("nodes: 5,000 rows in ") and "widget-view" not in str(last.data)


def test_in_a_kernel_a_view_is_its_picture_then_its_live_widget_and_only_the_picture_follows_the_page(shell, demo, monkeypatch):
    """The outputs a kernel sends: the picture (static HTML with the rule, under the display id) then the widget alone;
    a page report updates the picture's output, never the widget's."""
    from IPython.display import display as show
    from IPython.utils.capture import capture_output

    from gestalt_nb import display, outputs

    from .conftest import run
    from .test_canvas_out import report

    monkeypatch.setattr(display, "kernel_shell", lambda: shell)
    people = run(shell, "%gcypher MATCH (p:Person)-[r:WORKS_FOR]->(c:Company) RETURN p, r, c")
    framed = run(shell, "%%gcypher --renderer gestaltdb\nMATCH (p:Person)-[r:LIVES_IN]->(c:Place) RETURN p, r, c")  # no canvas
    with capture_output() as shown:
        show(people)
        show(framed)
    picture, live, other_picture, other_live = shown.outputs
    assert picture.data["text/html"].startswith(outputs.STYLE) and 'src="data:image/svg+xml;base64,' in picture.data["text/html"]
    assert picture.transient["display_id"] and "application/vnd.jupyter.widget-view+json" not in picture.data
    assert live.data["application/vnd.jupyter.widget-view+json"]["model_id"] == people.view.widget.model_id
    assert set(live.data) == {"application/vnd.jupyter.widget-view+json", "text/plain"} and not live.transient
    assert outputs.LIVE not in people.view.widget._dom_classes and outputs.LIVE in framed.view.widget._dom_classes
    assert other_picture.transient["display_id"] != picture.transient["display_id"] and other_live.data != live.data
    with capture_output() as updates:
        report(people.canvas)
    (update,) = updates.outputs
    assert update.update and update.transient["display_id"] == picture.transient["display_id"]
    assert '<circle cx="10" cy="30"' in base64.b64decode(re.search(r"base64,([^\"]+)", update.data["text/html"]).group(1)).decode()
