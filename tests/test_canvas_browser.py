"""The graph canvas in real JupyterLab 4 and Notebook 7 (headless Chromium, offline).

Every demo notebook is copied to a temp root and run with Run → Run All Cells in both frontends.
Each graph output must be a canvas whose first frame draws, inside the visible canvas, exactly the
nodes the kernel's canvas holds (counts asked from the kernel in an appended cell, matched cell by
cell); a click at a node's screen position reaches Python (``selected`` and ``on_click``); a
double-click expands it from the database; ``add()`` from a Python cell grows the drawing in place
(same sigma instance, old nodes unmoved). No request leaves the local server, no console error comes
from our code, and a graph full of injection payloads executes nothing and shows them as text.
Screenshots of each notebook's first graph go to $GESTALT_SHOTS (default: gestalt-shots in the temp folder).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
from pathlib import Path

import pytest

from .jupyter_page import CHROMIUM, FIRST_FRAME_JS, SHOTS, JupyterPage, JupyterServer, browser

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
pytest.importorskip("jupyterlab", reason="JupyterLab 4 is not installed (pip install 'jupyterlab>=4')")
pytest.importorskip("notebook", reason="Notebook 7 is not installed (pip install 'notebook>=7,<8')")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed: apt-get install -y chromium (.ci/run does this)"
)

REPO = Path(__file__).resolve().parents[1]
# The quickstart last: the click / double-click / add() tests then find it open and freshly run.
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"), key=lambda path: (path.name == "01_quickstart.ipynb", path.name))
#: Both by default (about 3.5 min each here); GESTALT_FRONTENDS=lab runs one.
FRONTENDS = [name for name in os.environ.get("GESTALT_FRONTENDS", "lab,notebook").split(",") if name]

# Per code cell (notebook order): what each canvas in its output drew.
DOM_CANVASES_JS = """() => Array.from(document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell.jp-CodeCell')).map(cell =>
  Array.from(cell.querySelectorAll('[data-gestalt-canvas]')).map(el => {
    const h = el.gestaltCanvas;
    const box = el.getBoundingClientRect();
    return {first: el.__gestaltFirst || null, drawn: h ? h.nodesDrawn() : null, inView: h ? h.nodesInView() : null,
            width: box.width, height: box.height};
  }))"""

# The kernel's side. ``_canvases_in`` walks a displayed widget's tree; given, per code cell, the model ids
# the cell's outputs display (read from the saved .ipynb), print the canvases each cell shows, and how
# many canvas models the kernel holds in all.
KERNEL_SETUP = """
import json as _json
from ipywidgets.widgets.widget import _instances as _widgets
from gestalt_nb.canvas import GraphCanvas as _GraphCanvas

def _canvases_in(widget, found):
    if isinstance(widget, _GraphCanvas):
        found.append(widget)
    for child in getattr(widget, "children", None) or ():
        _canvases_in(child, found)
    return found
"""


def kernel_canvases(model_ids: list[list[str]]) -> str:
    return KERNEL_SETUP + f"""
_shown = _json.loads({json.dumps(json.dumps(model_ids))})
print(_json.dumps({{"cells": [[{{"nodes": len(c.subgraph.nodes), "base": len(c.graph.get("nodes", [])), "revision": c.revision,
                                  "ready": c.ready_info, "ids": list(c.subgraph.nodes),
                                  "ends": [[e.source, e.target] for e in c.subgraph.edges.values()]}}
                                 for model_id in cell for c in _canvases_in(_widgets.get(model_id), [])] for cell in _shown],
                    "alive": sum(1 for w in list(_widgets.values()) if isinstance(w, _GraphCanvas) and w.comm is not None)}}))
"""


def displayed_model_ids(path: Path) -> list[list[str]]:
    """Per code cell of a saved notebook: the widget model ids its outputs display."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [[output["data"]["application/vnd.jupyter.widget-view+json"]["model_id"]
             for output in cell.get("outputs", []) if "application/vnd.jupyter.widget-view+json" in output.get("data", {})]
            for cell in cells if cell["cell_type"] == "code"]


def shown_canvases(frontend) -> tuple[list[list[dict]], list[list[dict]], int]:
    """Save the open notebook; (per code cell: the page's canvases, the kernel's canvases), canvas models alive."""
    page = frontend.page
    ids = displayed_model_ids(page.save())
    kernel = page.kernel_json(kernel_canvases(ids))
    dom = page.page.evaluate(DOM_CANVASES_JS)
    assert len(dom) >= len(ids), f"{len(dom)} code cells in the page, {len(ids)} in the saved file"
    return dom[: len(ids)], kernel["cells"], kernel["alive"]


# Screen position (page CSS px) of a node of the n-th canvas in the page.
NODE_AT_JS = """([n, id]) => {
  const el = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]')[n];
  const h = el.gestaltCanvas;
  const surface = (h.canvas && h.canvas()) || el.querySelector('canvas');
  const box = surface.getBoundingClientRect();
  const p = h.screenPosition(id);
  return p && {x: box.left + p.x, y: box.top + p.y, inside: p.x >= 0 && p.y >= 0 && p.x <= box.width && p.y <= box.height};
}"""


def hooks(page: JupyterPage, n: int, expression: str, arg=None):
    """Evaluate ``expression`` (JS using ``h``, the n-th canvas's hooks, and ``arg``) in the page."""
    return page.page.evaluate(f"([n, arg]) => {{ const h = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]')[n].gestaltCanvas; return {expression}; }}", [n, arg])


def ours(page: JupyterPage) -> list[str]:
    """Console errors and page errors that come from our code: the loader and the bundle run from blob: URLs."""
    marks = ("blob:", "gestalt", "sigma", "graphology", "canvas")
    lines = [f"{line['text']} @ {line['url']}" for line in page.console_errors()]
    return [line for line in lines + page.errors if any(mark in line.lower() for mark in marks)]


class Frontend:
    """One server + one page per frontend for the whole module; remembers which notebook is open."""

    def __init__(self, chromium, name: str) -> None:
        self.name = name
        self.server = JupyterServer(name).start()
        for notebook in NOTEBOOKS:
            shutil.copy(notebook, self.server.root / notebook.name)
        self.page = JupyterPage(chromium, self.server)
        self.page.context.add_init_script(FIRST_FRAME_JS)
        self.open_notebook: str | None = None
        self.kernel: dict | None = None

    def run(self, name: str) -> list[dict]:
        if self.page.path:
            self.page.close_notebook(wait=False)  # its kernel stops; the next notebook gets a fresh one
        self.open_notebook = None
        self.page.open(name)
        cells = self.page.run_all(timeout=120)
        self.open_notebook = name
        self.kernel = None
        return cells

    def close(self) -> None:
        self.page.close()
        self.server.cleanup()


@pytest.fixture(scope="module")
def chromium():
    with browser() as instance:
        yield instance


@pytest.fixture(scope="module", params=FRONTENDS)
def frontend(request, chromium):
    front = Frontend(chromium, request.param)
    yield front
    front.close()


def wait_first_frames(page: JupyterPage, timeout: float = 30) -> list[int]:
    """Wait until every canvas in the page drew its first frame; the numbers of those that did not."""
    try:
        page.page.wait_for_function(
            "() => Array.from(document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]')).every(el => el.__gestaltFirst)", timeout=timeout * 1000)
    except sync_api.TimeoutError:
        pass
    return page.page.evaluate("() => Array.from(document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]')).flatMap((el, n) => el.__gestaltFirst ? [] : [n])")


def scroll_to(page: JupyterPage, n: int) -> None:
    page.page.evaluate("(n) => document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]')[n].scrollIntoView({block: 'center'})", n)
    page.pause(0.4)


def screenshot(page: JupyterPage, n: int, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    scroll_to(page, n)
    target = page.canvases().nth(n).locator("xpath=ancestor::div[contains(@class, 'jp-OutputArea-output')][1]")
    path = SHOTS / f"{name}.png"
    (target if target.count() else page.canvases().nth(n)).screenshot(path=str(path))
    return path


# -- every demo notebook ---------------------------------------------------------------
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[path.stem for path in NOTEBOOKS])
def test_every_graph_output_draws_its_nodes_in_view(frontend, notebook):
    page = frontend.page
    before_remote, before_errors = len(page.remote), len(ours(page))
    cells = frontend.run(notebook.name)
    waiting = wait_first_frames(page)
    assert waiting == [], f"{frontend.name} {notebook.name}: canvases {waiting} never drew a first frame; errors: {ours(page)}"
    drawn, expected, alive = shown_canvases(frontend)
    graphs = sum(len(canvases) for canvases in expected)
    print(f"\n{frontend.name} {notebook.name}: {graphs} graph outputs shown, {alive} canvas models in the kernel; "
          f"prompts {[cell['prompt'] for cell in cells]}")
    assert [len(canvases) for canvases in drawn] == [len(canvases) for canvases in expected], (
        f"{notebook.name}: canvases per code cell in the page vs displayed by the kernel")
    for number, (in_page, in_kernel) in enumerate(zip(drawn, expected)):
        for shown, canvas in zip(in_page, in_kernel):
            where = f"{frontend.name} {notebook.name} code cell {number}"
            first = shown["first"]
            after = f"{first['at'] - first['appeared']:.0f} ms" if first.get("appeared") else "?"
            print(f"  {where}: first frame {first['drawn']} drawn / {first['inView']} in view, {after} after the output appeared; "
                  f"kernel: {canvas['nodes']} nodes (base {canvas['base']}, revision {canvas['revision']}), ready {canvas['ready']}")
            assert first["drawn"] == first["inView"], f"{where}: nodes outside the canvas on the first frame {first}"
            if canvas["revision"] == 0:
                assert first["drawn"] == canvas["base"] == canvas["nodes"], f"{where}: first frame {first} vs kernel {canvas}"
            assert canvas["ready"] and canvas["ready"]["nodes"] == first["drawn"], f"{where}: ready message {canvas['ready']}"
            assert shown["drawn"] == shown["inView"] == canvas["nodes"], f"{where}: now {shown} vs kernel {canvas}"
            assert shown["width"] > 300 and shown["height"] > 200, f"{where}: canvas box {shown}"
    if graphs:
        screenshot(page, 0, f"{frontend.name}-{notebook.stem}")
    assert page.remote[before_remote:] == [], f"requests outside the local server: {page.remote[before_remote:]}"
    assert ours(page)[before_errors:] == [], "console errors from the canvas"
    assert page.dialogs == []


# -- clicks, double-clicks and add() on the quickstart's first graph ---------------------
@pytest.fixture
def quickstart(frontend):
    if frontend.open_notebook != "01_quickstart.ipynb":
        frontend.run("01_quickstart.ipynb")
    page = frontend.page
    page.page.wait_for_function("() => { const el = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]'); return el && el.__gestaltFirst; }", timeout=30_000)
    scroll_to(page, 0)
    return frontend


def separated_node(page: JupyterPage, ids: list[str], n: int = 0) -> str:
    """The drawn node of canvas ``n`` farthest (on screen) from its nearest neighbour, so a click cannot hit another."""
    spots = {node_id: page.page.evaluate(NODE_AT_JS, [n, node_id]) for node_id in ids}

    def gap(node_id):
        x, y = spots[node_id]["x"], spots[node_id]["y"]
        return min(((x - o["x"]) ** 2 + (y - o["y"]) ** 2 for other, o in spots.items() if other != node_id), default=1e9)

    return max((node_id for node_id in ids if spots[node_id] and spots[node_id]["inside"]), key=gap)


def test_click_reaches_python_and_double_click_expands(quickstart):
    page = quickstart.page
    setup = page.kernel_json(
        "import json\n_clicks, _selections = [], []\n"
        "people.canvas.on_click(_clicks.append)\npeople.canvas.on_select(_selections.append)\n"
        "print(json.dumps(sorted(people.canvas.subgraph.nodes)))")
    scroll_to(page, 0)
    target = separated_node(page, setup)
    spot = page.page.evaluate(NODE_AT_JS, [0, target])
    page.page.mouse.click(spot["x"], spot["y"])
    page.page.wait_for_function("(id) => document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]').gestaltCanvas.selected().includes(id)", arg=target, timeout=5_000)
    seen = page.kernel_json("print(json.dumps({'selected': people.canvas.selected, 'clicks': _clicks, 'selections': _selections}))")
    assert seen["selected"] == [target] and seen["clicks"] == [target] and [target] in seen["selections"], seen
    scroll_to(page, 0)  # innerText is empty while the output is scrolled off (content-visibility)
    panel = page.canvases().first.inner_text()
    assert target in panel, "the side panel shows the selected node's id"

    before = hooks(page, 0, "({drawn: h.nodesDrawn(), instance: h.sigmaInstanceId(), revision: h.revision()})")
    old = {node_id: hooks(page, 0, "h.graphPosition(arg)", node_id) for node_id in setup}
    scroll_to(page, 0)
    spot = page.page.evaluate(NODE_AT_JS, [0, target])
    started = page.page.evaluate("() => performance.now()")
    page.page.mouse.dblclick(spot["x"], spot["y"])
    page.page.wait_for_function("(n) => document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]').gestaltCanvas.nodesDrawn() > n", arg=before["drawn"], timeout=15_000)
    took = page.page.evaluate("() => performance.now()") - started
    print(f"\n{quickstart.name}: double-click → expanded nodes drawn in {took:.0f} ms (round trip through the kernel)")
    page.pause(1.5)  # the layout places only the new nodes
    after = hooks(page, 0, "({drawn: h.nodesDrawn(), inView: h.nodesInView(), instance: h.sigmaInstanceId(), revision: h.revision()})")
    kernel = page.kernel_json("print(json.dumps({'nodes': len(people.canvas.subgraph.nodes), 'status': people.canvas.status}))")
    assert after["instance"] == before["instance"], "a double-click expansion must not rebuild sigma"
    assert after["drawn"] == after["inView"] == kernel["nodes"] > before["drawn"], (before, after, kernel)
    moved = {node_id: (old[node_id], hooks(page, 0, "h.graphPosition(arg)", node_id)) for node_id in setup}
    assert all(a == b for a, b in moved.values()), {k: v for k, v in moved.items() if v[0] != v[1]}
    assert "Expanded" in kernel["status"].get("text", ""), kernel


def test_add_from_python_grows_the_drawing_in_place(quickstart):
    page = quickstart.page
    ids = page.kernel_json("import json\nprint(json.dumps(sorted(people.canvas.subgraph.nodes)))")
    before = hooks(page, 0, "({drawn: h.nodesDrawn(), instance: h.sigmaInstanceId(), revision: h.revision()})")
    old = {node_id: hooks(page, 0, "h.graphPosition(arg)", node_id) for node_id in ids}
    added = page.kernel_json(
        "_extra = gestalt_nb.run(\"MATCH (p:Paper) RETURN p LIMIT 3\").subgraph\n"
        "print(json.dumps(people.canvas.add(_extra)))")
    assert added["nodes"] >= 1, added
    page.page.wait_for_function("(n) => document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]').gestaltCanvas.nodesDrawn() >= n",
                                arg=before["drawn"] + added["nodes"], timeout=10_000)
    page.pause(1.5)
    after = hooks(page, 0, "({drawn: h.nodesDrawn(), inView: h.nodesInView(), instance: h.sigmaInstanceId(), revision: h.revision()})")
    assert after["instance"] == before["instance"], "add() must not rebuild sigma"
    assert after["drawn"] == after["inView"] == before["drawn"] + added["nodes"], (before, after, added)
    assert after["revision"] == before["revision"] + 1
    for node_id in ids:
        assert hooks(page, 0, "h.graphPosition(arg)", node_id) == old[node_id], f"{node_id} moved"
    assert ours(page) == [] and page.remote == []


def test_dark_theme_screenshot(quickstart):
    if quickstart.name != "lab":
        pytest.skip("JupyterLab's theme menu")
    page = quickstart.page
    try:
        page.menu("Settings", "Theme", "JupyterLab Dark")
        page.page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'", timeout=15_000)
        page.pause(1.0)
        path = screenshot(page, 0, "lab-dark-01_quickstart")
        colours = page.page.evaluate("""() => { const el = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]');
            const s = getComputedStyle(el); return {bg: s.backgroundColor, fg: s.color}; }""")
        print(f"\ndark theme: {colours} → {path}")
        assert ours(page) == []
    finally:
        page.menu("Settings", "Theme", "JupyterLab Light")
        page.page.wait_for_function("() => document.body.dataset.jpThemeLight === 'true'", timeout=15_000)


# -- injection: hostile graph text in labels, keys, values, types, captions --------------------
def hostile_notebook(root: Path) -> str:
    """A notebook that builds the hostile graph (tests/test_browser.py's PAYLOADS) and draws it three ways."""
    import nbformat

    from .test_browser import PAYLOADS

    build = f"""import json, tempfile
from pathlib import Path
from gestaltdb.graphdb import Edge, Node
import gestalt_nb

PAYLOADS = json.loads({json.dumps(json.dumps(PAYLOADS))})
connection = gestalt_nb.create(str(Path(tempfile.mkdtemp()) / "hostile"))
nodes = [Node("anchor", labels=["Person"], properties={{"name": "anchor"}})]
for number, payload in enumerate(PAYLOADS):
    nodes.append(Node(f"n{{number}}", labels=["Person", payload[:60]], properties={{"name": payload, payload[:40]: payload}}))
with connection.db.transaction() as tx:
    tx.put_nodes(nodes)
    tx.put_edges_bulk(
        [Edge(f"e{{number}}", "anchor", f"n{{number}}", properties={{"type": "KNOWS", "why": payload}}) for number, payload in enumerate(PAYLOADS)]
        + [Edge("odd", "n0", "n1", properties={{"type": PAYLOADS[1][:50], "x": PAYLOADS[2]}})],
        check_existing=False,
    )
connection.graph.refresh_schema()
"""
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("%load_ext gestalt_nb"),
        nbformat.v4.new_code_cell(build),
        nbformat.v4.new_code_cell("%%gcypher -o hostile\nMATCH (a:Person {name: 'anchor'})-[r:KNOWS]->(b) RETURN a, r, b"),
        nbformat.v4.new_code_cell("%%gcypher -o odd\nMATCH (a {id: 'n0'})-[r]->(b) RETURN a, r, b"),
        nbformat.v4.new_code_cell("%gschema --exhaustive"),
    ]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, str(root / "hostile.ipynb"))
    return "hostile.ipynb"


def poke_every_element(page: JupyterPage, n: int, node_ids: list[str], edge_ends: list[list[str]]) -> list[str]:
    """Hover and click every node and every relationship's midpoint of the n-th canvas, then search "<img";
    returns the canvas's visible text after each hover (tooltips) and at the end."""
    seen = []
    root = page.canvases().nth(n)
    scroll_to(page, n)
    for node_id in node_ids:
        spot = page.page.evaluate(NODE_AT_JS, [n, node_id])
        if spot and spot["inside"]:
            page.page.mouse.move(spot["x"], spot["y"])
            page.pause(0.05)
            seen.append(root.inner_text())
            page.page.mouse.click(spot["x"], spot["y"])
            page.pause(0.05)
    for source, target in edge_ends:
        a, b = page.page.evaluate(NODE_AT_JS, [n, source]), page.page.evaluate(NODE_AT_JS, [n, target])
        if a and b and a["inside"] and b["inside"]:  # a midpoint off the canvas could click the notebook (collapse an output)
            page.page.mouse.move((a["x"] + b["x"]) / 2, (a["y"] + b["y"]) / 2)
            page.pause(0.05)
            seen.append(root.inner_text())
            page.page.mouse.click((a["x"] + b["x"]) / 2, (a["y"] + b["y"]) / 2)
            page.pause(0.05)
    scroll_to(page, n)  # a click may have scrolled the notebook (a windowed notebook hides cells out of view)
    search = page.canvases().nth(n).locator("input").first
    search.click()
    search.fill("<img")
    page.pause(0.3)
    matches = page.canvases().nth(n).locator("li")
    seen.append(root.inner_text())
    if matches.count():
        matches.first.click()
        page.pause(0.3)
    seen.append(root.inner_text())
    return seen


def test_hostile_graph_text_executes_nothing_and_reads_as_text(frontend):
    page = frontend.page
    name = hostile_notebook(frontend.server.root)
    before = len(page.remote)
    local_before = len(page.local)
    frontend.run(name)
    assert wait_first_frames(page) == [], ours(page)
    count = page.canvases().count()
    assert count >= 3, f"{count} canvases"
    _, kernel, _ = shown_canvases(frontend)
    canvases = [canvas for cell in kernel for canvas in cell]
    assert len(canvases) == count
    shown = []
    for n, canvas in enumerate(canvases):
        shown += poke_every_element(page, n, canvas["ids"], canvas["ends"])
    text = "\n".join(shown)
    assert page.page.evaluate("() => window.__pwned === undefined"), "a payload ran"
    assert page.dialogs == [], page.dialogs
    assert page.remote[before:] == [], page.remote[before:]
    odd = [url for url in page.local[local_before:] if url.split("?")[0].rstrip("/").endswith(("/x", "/click me")) or "javascript" in url.lower()]
    assert odd == [], f"an injected element made a request: {odd}"
    assert not any("PWNED" in line["text"] for line in page.console)
    assert '<img src=x onerror="window.__pwned=2' in text, "the payload is shown as text (legend, panel or search)"
    assert ours(page) == []


# -- the renderer made ahead (js/src/spare.js) ---------------------------------------------
#: Whether each renderer the page made ahead is shown (it must not be until a canvas takes it).
SPARES_JS = "() => Array.from(document.querySelectorAll('[data-gestalt-spare]')).map(el => el.checkVisibility({visibilityProperty: true}))"
#: The last canvas: what it drew, whether its renderer was made ahead, and its layers against its box.
TAKEN_JS = """() => {
  const all = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]');
  const el = all[all.length - 1], h = el.gestaltCanvas, box = el.querySelector('.gc-sigma').getBoundingClientRect();
  const layers = Array.from(el.querySelectorAll('.gc-sigma canvas')).map(c => {
    const r = c.getBoundingClientRect();
    return {shown: c.checkVisibility({visibilityProperty: true}), left: r.left - box.left, top: r.top - box.top, width: r.width - box.width, height: r.height - box.height};
  });
  return {first: el.__gestaltFirst, drawn: h.nodesDrawn(), inView: h.nodesInView(), edges: h.edgesDrawn(), spare: h.timings().spare,
          edgeEvents: h.debug(0, 0).edgeEvents, layers, index: all.length - 1};
}"""
BIG_GRAPH = """import gestalt_nb
from gestalt_nb.graph.subgraph import Edge, Node, Subgraph
big = Subgraph()
for i in range(3500):
    big.add_node(Node(f"n{i}", ("Dot",), {"name": f"dot {i}"}))
for i in range(3500):
    for step in (1, 7):
        big.add_edge(Edge(f"e{i}-{step}", f"n{i}", f"n{(i + step) % 3500}", "NEXT", {"type": "NEXT"}))
gestalt_nb.show(big, max_nodes=3500, max_edges=7000)"""


#: Of the n-th canvas's nodes, how many show their own colour at their own spot in ``png`` (a screenshot of its
#: drawing): what a person sees, where a node count only says what the graph holds.
COLOURS_JS = """async ([n, png]) => {
  const el = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]')[n], h = el.gestaltCanvas;
  const bitmap = await createImageBitmap(new Blob([Uint8Array.from(atob(png), (c) => c.charCodeAt(0))], {type: 'image/png'}));
  const c = document.createElement('canvas'); c.width = bitmap.width; c.height = bitmap.height;
  const ctx = c.getContext('2d'); ctx.drawImage(bitmap, 0, 0);
  const ratio = bitmap.width / el.querySelector('.gc-sigma').getBoundingClientRect().width;
  const tint = document.createElement('canvas').getContext('2d');
  let match = 0, nodes = 0;
  for (const [id, p] of Object.entries(h.positions())) {
    nodes++;
    tint.fillStyle = h.nodeAttributes(id).color; tint.fillRect(0, 0, 1, 1);
    const want = tint.getImageData(0, 0, 1, 1).data, got = ctx.getImageData(Math.round(p.x * ratio), Math.round(p.y * ratio), 1, 1).data;
    if (Math.abs(got[0] - want[0]) + Math.abs(got[1] - want[1]) + Math.abs(got[2] - want[2]) < 40) match++;
  }
  return {match, nodes};
}"""


def node_colours(page: JupyterPage, n: int) -> dict[str, int]:
    """How many of canvas ``n``'s nodes are seen in their colour at their place, once its layout settled."""
    scroll_to(page, n)
    hooks(page, n, "h.whenSettled()")
    picture = page.canvases().nth(n).locator(".gc-sigma").screenshot()
    return page.page.evaluate(COLOURS_JS, [n, base64.b64encode(picture).decode("ascii")])


def wait_spare(page: JupyterPage) -> None:
    page.page.wait_for_function(f"() => ({SPARES_JS})().length === 1", timeout=15_000)
    assert page.page.evaluate(SPARES_JS) == [False], "the renderer made ahead is hidden"


def test_the_next_graph_output_takes_the_renderer_made_ahead(frontend):
    """After a first frame the page makes the next canvas's renderer ahead, hidden; the next graph output takes it
    and draws with it like with its own: every node inside its visible canvas, its layers filling its box, a click
    reaching Python; another is made for the output after. A graph too big for relationship events takes it too."""
    import nbformat

    page = frontend.page
    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_code_cell(source) for source in (
        "%load_ext gestalt_nb", "%gestalt demo",
        "%%gcypher -o first\nMATCH (p:Person)-[r:WORKS_FOR]->(c:Company) RETURN p, r, c LIMIT 50")]
    book.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(book, str(frontend.server.root / "spare.ipynb"))
    frontend.run("spare.ipynb")
    assert wait_first_frames(page) == [], ours(page)
    wait_spare(page)

    page.run_cell("%%gcypher -o again\nMATCH (p:Person)-[r:WORKS_FOR]->(c:Company) RETURN p, r, c LIMIT 50")
    assert wait_first_frames(page) == [], ours(page)
    taken = page.page.evaluate(TAKEN_JS)
    kernel = page.kernel_json("import json\nprint(json.dumps(sorted(again.canvas.subgraph.nodes)))")
    assert taken["spare"] is True and taken["edgeEvents"] is True, taken
    assert taken["first"]["drawn"] == taken["first"]["inView"] == taken["drawn"] == taken["inView"] == len(kernel), (taken, len(kernel))
    assert taken["layers"] and all(layer == {"shown": True, "left": 0, "top": 0, "width": 0, "height": 0} for layer in taken["layers"]), taken["layers"]
    seen = node_colours(page, taken["index"])
    assert seen["nodes"] == len(kernel) and seen["match"] >= 0.8 * seen["nodes"], f"nodes not seen where they are drawn: {seen}"
    screenshot(page, taken["index"], f"{frontend.name}-spare-taken")
    scroll_to(page, taken["index"])
    target = separated_node(page, kernel, taken["index"])
    spot = page.page.evaluate(NODE_AT_JS, [taken["index"], target])
    page.page.mouse.click(spot["x"], spot["y"])
    page.page.wait_for_function("([n, id]) => document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]')[n].gestaltCanvas.selected().includes(id)",
                                arg=[taken["index"], target], timeout=5_000)
    assert page.kernel_json("print(json.dumps(again.canvas.selected))") == [target]
    wait_spare(page)

    shown = page.run_cell(BIG_GRAPH)
    page.page.wait_for_function("(n) => document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]').length > n", arg=taken["index"] + 1, timeout=30_000)
    assert wait_first_frames(page) == [], (shown, ours(page))
    big = page.page.evaluate(TAKEN_JS)
    assert big["spare"] is True and big["edgeEvents"] is False, big
    assert big["drawn"] == big["inView"] == 3500 and big["edges"] == 7000, big
    assert all(layer["shown"] and layer["width"] == layer["height"] == 0 for layer in big["layers"]), big["layers"]
    seen = node_colours(page, big["index"])
    assert seen["nodes"] == 3500 and seen["match"] >= 0.8 * seen["nodes"], f"nodes not seen where they are drawn: {seen}"
    screenshot(page, big["index"], f"{frontend.name}-spare-big")
    assert ours(page) == [] and page.remote == []
