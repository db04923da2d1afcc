"""What comes out of the canvas, in real JupyterLab 4 / Notebook 7 (headless Chromium, offline).

On the demo graph, in a page with device pixel ratio 2 and every outside request refused: the PNG
button downloads a PNG of the canvas's size × DPR that shows the nodes (pixels sampled at node
positions); the SVG button and ``canvas.snapshot("svg")`` have one ``<circle>`` per visible node,
placed as on screen, and the saved-notebook picture is that same picture; ``to_cypher()`` after two
double-click expansions, a removal and a hide returns exactly the drawn ids when run; the Path
button (click, shift-click) and ``canvas.path(a, b)`` highlight what ``shortest_path(a, b)``
returns; ``to_html(path)`` opened from file:// with the network refused draws the same node count;
the injection corpus in snapshot, SVG download and ``to_html`` executes nothing and stays text.
Screenshots go to $GESTALT_SHOTS (default: gestalt-shots in the temp folder).
"""

from __future__ import annotations

import base64
import json
import re
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .jupyter_page import CHROMIUM, JupyterPage, JupyterServer, browser
from .test_canvas_browser import FIRST_FRAME_JS, FRONTENDS, NODE_AT_JS, SHOTS, hooks, ours, screenshot, scroll_to, wait_first_frames

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
pytest.importorskip("jupyterlab", reason="JupyterLab 4 is not installed")
pytest.importorskip("notebook", reason="Notebook 7 is not installed")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed: apt-get install -y chromium")

DPR = 2
CIRCLE = re.compile(r'<circle cx="([-\d.e]+)" cy="([-\d.e]+)" r="[-\d.e]+" fill="#[0-9a-f]{6}" data-id="([^"]*)"[^>]*/>')


def demo_notebook(root: Path) -> str:
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("%load_ext gestalt_nb\n%gestalt demo"),
        nbformat.v4.new_code_cell("%%gcypher -o people\nMATCH (p:Person)-[r:WORKS_FOR]->(c:Company) RETURN p, r, c LIMIT 50"),
    ]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, str(root / "out.ipynb"))
    return "out.ipynb"


@pytest.fixture(scope="module")
def chromium():
    with browser() as instance:
        yield instance


@pytest.fixture(scope="module", params=FRONTENDS)
def out(request, chromium):
    server = JupyterServer(request.param).start()
    page = JupyterPage(chromium, server, device_scale_factor=DPR)
    page.context.add_init_script(FIRST_FRAME_JS)
    page.open(demo_notebook(server.root))
    page.run_all(timeout=120)
    assert wait_first_frames(page) == [], ours(page)
    page.kernel_json("import json, re\nimport gestalt_nb\nfrom gestalt_nb.session import REGISTRY as _R\nprint(json.dumps(1))")
    page.chromium, page.name = chromium, request.param
    yield page
    page.close()
    server.cleanup()


def settle(page: JupyterPage, n: int = 0, canvas: str = "people.canvas") -> dict:
    """Wait until the n-th canvas stopped moving and the kernel holds its report of the current frame."""
    hooks(page, n, "h.settled")
    page.page.wait_for_function("(n) => !document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]')[n].gestaltCanvas.layoutRunning()", arg=n, timeout=30_000)
    for _ in range(40):
        page.pause(0.3)
        want = hooks(page, n, "h.scene()")
        got = page.kernel_json(f"_s = {canvas}.shown\nprint(json.dumps(_s and {{'nodes': {{k: v[:2] for k, v in _s.nodes.items()}}, 'hidden': _s.hidden}}))")
        if got and set(got["nodes"]) == set(want["ids"]) and all(
                abs(got["nodes"][k][0] - want["xy"][2 * i]) < 0.6 and abs(got["nodes"][k][1] - want["xy"][2 * i + 1]) < 0.6 for i, k in enumerate(want["ids"])):
            return want
    raise AssertionError(f"the kernel never got the page's report of what it shows: {got} vs {want}")


def click_node(page: JupyterPage, n: int, node_id: str, shift: bool = False) -> None:
    scroll_to(page, n)
    spot = page.page.evaluate(NODE_AT_JS, [n, node_id])
    assert spot and spot["inside"], f"{node_id} is not inside the canvas: {spot}"
    if shift:
        page.page.keyboard.down("Shift")
    page.page.mouse.click(spot["x"], spot["y"])
    if shift:
        page.page.keyboard.up("Shift")


def separated(page: JupyterPage, n: int, ids: list[str], count: int) -> list[str]:
    """The ``count`` drawn nodes farthest (on screen) from their nearest neighbours, so clicks hit them."""
    scroll_to(page, n)
    spots = {node_id: page.page.evaluate(NODE_AT_JS, [n, node_id]) for node_id in ids}
    spots = {k: v for k, v in spots.items() if v and v["inside"]}

    def gap(node_id):
        x, y = spots[node_id]["x"], spots[node_id]["y"]
        return min(((x - o["x"]) ** 2 + (y - o["y"]) ** 2 for other, o in spots.items() if other != node_id), default=1e9)

    return sorted(spots, key=gap, reverse=True)[:count]


def circles(svg: str) -> dict[str, tuple[float, float]]:
    import html

    return {html.unescape(node_id): (float(x), float(y)) for x, y, node_id in CIRCLE.findall(svg)}


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


# -- pictures ----------------------------------------------------------------------------
def test_png_button_downloads_the_canvas_at_device_pixel_ratio(out, tmp_path):
    scene = settle(out)
    scroll_to(out, 0)
    with out.page.expect_download(timeout=15_000) as info:
        out.canvases().first.locator('[data-gestalt-action="save-png"]').click()
    target = tmp_path / "graph.png"
    info.value.save_as(str(target))
    data = target.read_bytes()
    width, height = png_size(data)
    assert (width, height) == (round(scene["width"] * DPR), round(scene["height"] * DPR)), (width, height, scene["width"], scene["height"])
    # decode it in the page and look at the pixels under each node
    found = out.page.evaluate("""async ([b64, scene, dpr]) => {
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const bitmap = await createImageBitmap(new Blob([bytes], {type: 'image/png'}));
        const c = document.createElement('canvas'); c.width = bitmap.width; c.height = bitmap.height;
        const ctx = c.getContext('2d'); ctx.drawImage(bitmap, 0, 0);
        const all = ctx.getImageData(0, 0, c.width, c.height).data;
        const bg = [all[0], all[1], all[2]];
        let differ = 0;
        for (let i = 0; i < all.length; i += 4) if (Math.abs(all[i] - bg[0]) + Math.abs(all[i + 1] - bg[1]) + Math.abs(all[i + 2] - bg[2]) > 30) differ++;
        const hex = (v) => [1, 3, 5].map((k) => parseInt(v.slice(k, k + 2), 16));
        let match = 0;
        scene.ids.forEach((id, i) => {
            const p = ctx.getImageData(Math.round(scene.xy[2 * i] * dpr), Math.round(scene.xy[2 * i + 1] * dpr), 1, 1).data;
            const want = hex(scene.colors[scene.ci[i]]);
            if (Math.abs(p[0] - want[0]) + Math.abs(p[1] - want[1]) + Math.abs(p[2] - want[2]) < 40) match++;
        });
        return {differ: differ / (all.length / 4), match, nodes: scene.ids.length, bg};
    }""", [base64.b64encode(data).decode("ascii"), scene, DPR])
    print(f"\n{out.name}: PNG {width}x{height} (canvas {scene['width']}x{scene['height']} × {DPR}); {found}")
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / f"{out.name}-download.png").write_bytes(data)
    assert found["differ"] > 0.01, f"the PNG is (nearly) blank: {found}"
    assert found["match"] >= 0.8 * found["nodes"], f"node colours not found at node positions: {found}"


def test_snapshot_svg_download_and_saved_picture_show_what_the_page_shows(out, tmp_path):
    scene = settle(out)
    got = out.kernel_json("_svg = people.canvas.snapshot('svg')\n"
                          "_static = people.view._repr_mimebundle_()['text/html']\n"
                          "print(json.dumps({'svg': _svg, 'static': _static}))")
    placed = circles(got["svg"])
    assert set(placed) == set(scene["ids"]) and len(CIRCLE.findall(got["svg"])) == len(scene["ids"]) == hooks(out, 0, "h.nodesDrawn()")
    for node_id in scene["ids"]:
        at = hooks(out, 0, "h.screenPosition(arg)", node_id)
        assert abs(at["x"] - placed[node_id][0]) < 0.6 and abs(at["y"] - placed[node_id][1]) < 0.6, (node_id, at, placed[node_id])
    images = re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', got["static"])
    assert images and circles(base64.b64decode(images[0]).decode("utf-8")) == placed, "the saved notebook's picture is the page's"
    with out.page.expect_download(timeout=15_000) as info:
        out.canvases().first.locator('[data-gestalt-action="save-svg"]').click()
    target = tmp_path / "graph.svg"
    info.value.save_as(str(target))
    root = ET.fromstring(target.read_text(encoding="utf-8"))
    drawn = root.findall(".//{http://www.w3.org/2000/svg}circle")
    assert len(drawn) == len(scene["ids"]) and {c.get("data-id") for c in drawn} == set(scene["ids"])
    (SHOTS / f"{out.name}-snapshot.svg").write_text(got["svg"], encoding="utf-8")


SAME_ROOT_JS = """(n) => { const root = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]')[n];
  return {root: root.dataset.mark || null, el: root.parentElement.dataset.mark || null, connected: root.isConnected,
          inCell: root.closest('.jp-Cell').querySelectorAll('[data-gestalt-canvas]').length}; }"""


def test_the_saved_notebook_keeps_the_picture_the_page_showed_last(out):
    """A zoom makes the page report a new picture; the kernel updates the cell's picture output with it
    (update_display, outputs.py). The live output is left as it is (the same element, no new layout,
    nothing moves), and the saved .ipynb's static picture is the page's."""
    try:
        settle(out)
        out.pause(1.5)  # the update for that report (if this is the first) has been drawn
        instance = hooks(out, 0, "h.sigmaInstanceId()")
        out.page.evaluate("""(n) => { const root = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]')[n];
                                       root.dataset.mark = 'kept'; root.parentElement.dataset.mark = 'old'; }""", 0)
        picture_src = "() => document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')[1].querySelector('.gestalt-picture img').src"
        before = out.page.evaluate(picture_src)
        scroll_to(out, 0)
        box = out.canvases().first.locator("canvas").last.bounding_box()
        out.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        out.page.mouse.wheel(0, -240)  # zoom in: every node moves on screen
        scene = settle(out)
        out.page.wait_for_function(f"(before) => ({picture_src})() !== before", arg=before, timeout=15_000)  # the picture was updated
        out.page.wait_for_timeout(1200)  # a redrawn live output would report (and start a layout) by now
        state = out.page.evaluate(SAME_ROOT_JS, 0)
        assert state == {"root": "kept", "el": "old", "connected": True, "inCell": 1}, f"the live output was drawn again: {state}"
        assert hooks(out, 0, "h.sigmaInstanceId()") == instance, "the drawing was built again"
        assert not hooks(out, 0, "h.layoutRunning()") and hooks(out, 0, "h.scene()")["xy"] == scene["xy"], "a node moved after the output was redrawn"
        saved = json.loads(out.save().read_text(encoding="utf-8"))
        outputs = [o for o in saved["cells"][1]["outputs"] if "text/html" in o.get("data", {})]
        assert len(outputs) == 1 and outputs[0]["output_type"] == "display_data", [o.get("output_type") for o in saved["cells"][1]["outputs"]]
        html = "".join(outputs[0]["data"]["text/html"])
        picture = circles(base64.b64decode(re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', html)[0]).decode("utf-8"))
        assert set(picture) == set(scene["ids"])
        for i, node_id in enumerate(scene["ids"]):
            assert abs(picture[node_id][0] - scene["xy"][2 * i]) < 0.6 and abs(picture[node_id][1] - scene["xy"][2 * i + 1]) < 0.6, node_id
        SHOTS.mkdir(parents=True, exist_ok=True)
        out.canvases().first.screenshot(path=str(SHOTS / f"{out.name}-after-update-display.png"))
        (SHOTS / f"{out.name}-saved-picture.svg").write_bytes(base64.b64decode(re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', html)[0]))
        assert ours(out) == []
    finally:  # the next tests click nodes: show them all again
        out.canvases().first.locator("button", has_text="Fit").click()
        settle(out)


# -- the drawing as Cypher ------------------------------------------------------------------
def expandable(out) -> list[str]:
    """The drawn nodes with a neighbour in the database that is not drawn (a double-click on one draws more)."""
    found = out.kernel_json(
        "_drawn = set(people.canvas.subgraph.nodes)\n"
        "_pairs = _R.get('demo').run('MATCH (n)-[r]-(m) RETURN id(n) AS n, id(m) AS m', limit=100_000).records\n"
        "print(json.dumps(sorted({p['n'] for p in _pairs if p['n'] in _drawn and p['m'] not in _drawn})))")
    assert found, "every drawn node's neighbours are drawn"
    return found


def expand(out, node_id: str) -> None:
    before = hooks(out, 0, "h.nodesDrawn()")
    scroll_to(out, 0)
    spot = out.page.evaluate(NODE_AT_JS, [0, node_id])
    out.page.mouse.dblclick(spot["x"], spot["y"])
    out.page.wait_for_function("(n) => document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]').gestaltCanvas.nodesDrawn() > n", arg=before, timeout=15_000)
    out.pause(1.0)


def test_to_cypher_after_expansions_a_removal_and_a_hide_returns_exactly_the_drawn_ids(out):
    ids = out.kernel_json("print(json.dumps(sorted(people.canvas.subgraph.nodes)))")
    expand(out, separated(out, 0, expandable(out), 1)[0])  # (in any order: other tests may have drawn neighbours)
    settle(out)
    expand(out, separated(out, 0, expandable(out), 1)[0])
    settle(out)
    gone = out.kernel_json("_new = [k for k in people.canvas.subgraph.nodes if k not in " + json.dumps(ids) + "]\n"
                           "people.canvas.remove(_new[-1:])\nprint(json.dumps(_new[-1:]))")
    assert gone, "the expansions drew new nodes"
    scene = settle(out)
    hide = separated(out, 0, scene["ids"], 1)[0]
    click_node(out, 0, hide)
    out.canvases().first.locator("button", has_text="Hide").click()
    scene = settle(out)
    assert hide not in scene["ids"] and gone[0] not in scene["ids"]
    ran = out.kernel_json(
        "_q = people.canvas.to_cypher()\n_r = _R.get('demo').run(_q, _q.params, limit=max(_q.rows, 1))\n"
        "print(json.dumps({'query': str(_q), 'nodes': sorted(_r.subgraph.nodes), 'edges': sorted([e.source, e.target] for e in _r.subgraph.edges.values()),"
        " 'truncated': _r.truncated, 'hidden': people.canvas.shown.hidden}))")
    drawn_edges = sorted([scene["ids"][s], scene["ids"][t]] for s, t, _, _ in hooks(out, 0, "h.scene()")["edges"])
    print(f"\n{out.name}: to_cypher after 2 expansions, a removal and a hide: {len(ran['nodes'])} nodes, {len(ran['edges'])} relationships\n{ran['query'][:400]}")
    assert ran["nodes"] == sorted(scene["ids"]), (set(ran["nodes"]) ^ set(scene["ids"]))
    assert ran["edges"] == drawn_edges and not ran["truncated"]
    assert re.search(r"-\[r\]-|-\[\w*\]-", ran["query"]) is None, "every relationship pattern is typed"


# -- paths ------------------------------------------------------------------------------------
def highlighted(out) -> set[str]:
    """The drawn nodes the page highlights (hidden ones included)."""
    ids = out.kernel_json("print(json.dumps(list(people.canvas.subgraph.nodes)))")
    return set(hooks(out, 0, "arg.filter((k) => h.nodeAttributes(k) && h.nodeAttributes(k).h)", ids))


def test_path_button_and_canvas_path_highlight_the_shortest_path(out):
    scene = settle(out)
    a, b = separated(out, 0, scene["ids"], 2)
    click_node(out, 0, a)
    click_node(out, 0, b, shift=True)
    assert hooks(out, 0, "h.selected()") == [a, b]
    out.canvases().first.locator('[data-gestalt-action="path"]').click()
    want = out.kernel_json(f"_p = gestalt_nb.shortest_path({a!r}, {b!r}, alias='demo')\nprint(json.dumps({{'nodes': sorted(_p.subgraph.nodes), 'edges': sorted(_p.subgraph.edges)}}))")
    assert want["nodes"], "the demo graph is connected"
    out.page.wait_for_function("(ids) => { const h = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]').gestaltCanvas;"
                               " return ids.every((k) => h.nodeAttributes(k) && h.nodeAttributes(k).h); }", arg=want["nodes"], timeout=15_000)
    kernel = out.kernel_json("print(json.dumps({'nodes': sorted(people.canvas.subgraph.highlight_nodes), 'edges': sorted(people.canvas.subgraph.highlight_edges), 'status': people.canvas.status}))")
    print(f"\n{out.name}: Path {a} → {b}: {want['nodes']}; {kernel['status']}")
    assert highlighted(out) == set(want["nodes"]) and kernel["nodes"] == want["nodes"] and kernel["edges"] == want["edges"], (kernel, want)
    shot = SHOTS / f"{out.name}-path.png"
    out.canvases().first.screenshot(path=str(shot))
    c, d = separated(out, 0, [k for k in scene["ids"] if k not in (a, b)], 2)
    got = out.kernel_json(f"_p = people.canvas.path({c!r}, {d!r})\n_w = gestalt_nb.shortest_path({c!r}, {d!r}, alias='demo')\n"
                          "print(json.dumps({'path': sorted(_p.subgraph.nodes), 'want': sorted(_w.subgraph.nodes), 'edges': sorted(_p.subgraph.edges) == sorted(_w.subgraph.edges)}))")
    assert got["path"] == got["want"] and got["edges"], got
    out.page.wait_for_function("(ids) => { const h = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]').gestaltCanvas;"
                               " return ids.every((k) => h.nodeAttributes(k) && h.nodeAttributes(k).h); }", arg=got["want"], timeout=15_000)
    assert highlighted(out) == set(got["want"])
    assert ours(out) == [] and out.remote == []


# -- a page to send ---------------------------------------------------------------------------
def open_file(out, path: Path) -> tuple[object, list[str], list[str]]:
    context = out.chromium.new_context(viewport={"width": 1200, "height": 800})
    remote, errors = [], []

    def route(request_route):
        url = request_route.request.url
        if url.startswith(("file:", "data:", "blob:", "about:")):
            request_route.continue_()
        else:
            remote.append(url)
            request_route.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("console", lambda line: errors.append(line.text) if line.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("dialog", lambda dialog: (errors.append("dialog " + dialog.message), dialog.dismiss()))
    page.goto(path.resolve().as_uri())
    page.wait_for_function("() => { const el = document.querySelector('[data-gestalt-canvas]'); return el && el.gestaltCanvas && el.gestaltCanvas.ready; }", timeout=20_000)
    page.evaluate("() => document.querySelector('[data-gestalt-canvas]').gestaltCanvas.ready")
    page.evaluate("() => document.querySelector('[data-gestalt-canvas]').gestaltCanvas.settled")
    return page, remote, errors


def normalised(points: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
    """The arrangement without its place and scale: centred, unit mean distance from the centre."""
    cx = sum(x for x, _ in points.values()) / len(points)
    cy = sum(y for _, y in points.values()) / len(points)
    scale = sum(((x - cx) ** 2 + (y - cy) ** 2) ** 0.5 for x, y in points.values()) / len(points) or 1
    return {k: ((x - cx) / scale, (y - cy) / scale) for k, (x, y) in points.items()}


def test_to_html_opens_from_file_offline_with_the_same_canvas(out, tmp_path):
    """The file draws the same nodes, in the colours the notebook's page shows them and where it put them."""
    target = tmp_path / "people.html"
    out.kernel_json("people.canvas.style(color='born')\nprint(json.dumps(1))")
    scene = settle(out)
    shown_colours = {k: hooks(out, 0, "h.nodeStyle(arg).color", k) for k in scene["ids"]}
    count = out.kernel_json(f"people.canvas.to_html({str(target)!r})\npeople.canvas.style(color='label')\nprint(json.dumps(len(people.canvas.subgraph.nodes)))")
    page, remote, errors = open_file(out, target)
    try:
        there = "document.querySelector('[data-gestalt-canvas]').gestaltCanvas"
        colours = page.evaluate(f"(ids) => Object.fromEntries(ids.map((k) => [k, {there}.nodeStyle(k).color]))", scene["ids"])
        assert colours == shown_colours and len(set(colours.values())) > 2, (colours, shown_colours)
        placed = page.evaluate(f"() => {there}.positions()")
        want = normalised({k: (scene["xy"][2 * i], scene["xy"][2 * i + 1]) for i, k in enumerate(scene["ids"])})
        got = normalised({k: (placed[k]["x"], placed[k]["y"]) for k in scene["ids"]})
        assert all(abs(got[k][0] - want[k][0]) < 0.02 and abs(got[k][1] - want[k][1]) < 0.02 for k in want), (got, want)
        drawn = page.evaluate("() => { const h = document.querySelector('[data-gestalt-canvas]').gestaltCanvas; return [h.nodesDrawn(), h.nodesInView()]; }")
        page.fill("input[type=search]", "Acme")
        page.wait_for_selector(".gc-results li", timeout=5_000)
        results = page.locator(".gc-results li").all_inner_texts()
        page.screenshot(path=str(SHOTS / f"{out.name}-to_html.png"))
        print(f"\n{out.name}: to_html from file:// drew {drawn} (kernel {count}); search 'Acme' → {results}")
        assert drawn == [count, count], (drawn, count)
        assert any("Acme" in text for text in results)
        assert remote == [] and errors == [], (remote, errors)
    finally:
        page.context.close()


# -- hostile text in the pictures and the page -------------------------------------------------------
def test_injection_corpus_in_svg_and_html_export_executes_nothing(out, tmp_path):
    from .test_browser import PAYLOADS

    build = f"""import tempfile
from pathlib import Path
from gestaltdb.graphdb import Edge, Node
PAYLOADS = json.loads({json.dumps(json.dumps(PAYLOADS))})
_h = gestalt_nb.create(str(Path(tempfile.mkdtemp()) / "hostile"), alias="hostile")
nodes = [Node("anchor", labels=["Person"], properties={{"name": "anchor"}})]
PAYLOADS.append("a NUL\\x00 and \\x1b in a caption")  # characters XML forbids: the SVG still parses
nodes += [Node(f"n{{i}}", labels=["Person", p[:60]], properties={{"name": p, p[:40]: p}}) for i, p in enumerate(PAYLOADS)]
with _h.db.transaction() as tx:
    tx.put_nodes(nodes)
    tx.put_edges_bulk([Edge(f"e{{i}}", "anchor", f"n{{i}}", properties={{"type": "KNOWS", "why": p}}) for i, p in enumerate(PAYLOADS)], check_existing=False)
_h.graph.refresh_schema()
hostile = _h.run("MATCH (a:Person {{name: 'anchor'}})-[r:KNOWS]->(b) RETURN a, r, b")
%gestalt switch demo
print(json.dumps(len(hostile.subgraph.nodes)))
"""  # the demo is the current database again for the module's other tests, in any order
    count = out.kernel_json(build)
    out.run_cell("hostile")
    assert wait_first_frames(out) == []
    n = out.canvases().count() - 1
    settle(out, n, "hostile.canvas")
    got = out.kernel_json(f"hostile.canvas.to_html({str(tmp_path / 'hostile.html')!r})\nprint(json.dumps(hostile.canvas.snapshot()))")
    with out.page.expect_download(timeout=15_000) as info:
        out.canvases().nth(n).locator('[data-gestalt-action="save-svg"]').click()
    info.value.save_as(str(tmp_path / "hostile.svg"))
    for svg in (got, (tmp_path / "hostile.svg").read_text(encoding="utf-8")):
        root = ET.fromstring(svg)  # well-formed: no markup from data broke out
        names = {element.tag.split("}")[-1] for element in root.iter()}
        assert names <= {"svg", "rect", "g", "path", "line", "circle", "text"}, names
        assert not any(key.lower().startswith("on") or "href" in key.lower() for element in root.iter() for key in element.attrib)
        assert any((element.text or "").startswith(PAYLOADS[1][:20]) for element in root.iter()), "a caption shows the payload as text"
        assert len(root.findall(".//{http://www.w3.org/2000/svg}circle")) == count
        assert any((element.text or "").startswith("a NUL\u2400 and \u241b") for element in root.iter()), "shown visibly"
    svg_page = out.chromium.new_page()
    svg_page.goto((tmp_path / "hostile.svg").resolve().as_uri())
    svg_page.wait_for_timeout(300)
    assert svg_page.evaluate("() => window.__pwned === undefined")
    svg_page.close()
    page, remote, errors = open_file(out, tmp_path / "hostile.html")
    try:
        assert page.evaluate("() => document.querySelector('[data-gestalt-canvas]').gestaltCanvas.nodesDrawn()") == count
        page.fill("input[type=search]", "<img")
        page.wait_for_selector(".gc-results li", timeout=5_000)
        text = page.locator("[data-gestalt-canvas]").inner_text()
        assert page.evaluate("() => window.__pwned === undefined"), "a payload ran in the to_html page"
        assert '<img src=x onerror="window.__pwned=2' in text, "the payload reads as text"
        assert remote == [] and errors == [], (remote, errors)
    finally:
        page.context.close()
    assert out.page.evaluate("() => window.__pwned === undefined") and ours(out) == [] and out.remote == []


def test_an_overview_in_a_row_draws_every_disc_whole_inside_the_canvas(out):
    """Three equal groups in a row (how notebook 10's growth overview was drawn): sigma fits the discs' centres into
    the canvas less a fixed padding, and the two end discs were cut in half by the canvas's edges."""
    page = out
    page.run_cell(
        "import tempfile, pandas as _pd\n"
        "_line = gestalt_nb.create(tempfile.mkdtemp() + '/line', alias='line')\n"
        "gestalt_nb.load_nodes(_pd.DataFrame({'id': [f'n{i}' for i in range(60)], 'kind': ['A'] * 20 + ['B'] * 20 + ['C'] * 20}),"
        " id='id', label_column='kind', alias='line')\n"
        "gestalt_nb.load_edges(_pd.DataFrame({'s': [f'n{i}' for i in range(59)], 't': [f'n{i + 1}' for i in range(59)]}),"
        " source='s', target='t', type='NEXT', alias='line')\n"
        "_row = gestalt_nb.overview(by='label', alias='line')\n%gestalt switch demo\n_row")
    n = page.canvases().count() - 1
    hooks(page, n, "h.settled")
    page.page.wait_for_function("(n) => !document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]')[n].gestaltCanvas.layoutRunning()", arg=n, timeout=30_000)
    page.pause(1)
    scene = hooks(page, n, """(() => { const box = h.canvas().getBoundingClientRect(); const out = {};
        for (const [k, p] of Object.entries(h.positions())) out[k] = {x: p.x, y: p.y, r: h.nodeStyle(k).size};
        return {nodes: out, w: box.width, h: box.height}; })()""")
    assert len(scene["nodes"]) == 3, scene
    cut = {key: disc for key, disc in scene["nodes"].items()
           if min(disc["x"] - disc["r"], disc["y"] - disc["r"], scene["w"] - disc["x"] - disc["r"], scene["h"] - disc["y"] - disc["r"]) < -1}
    screenshot(page, n, f"overview-row-{page.name}")
    assert not cut, (cut, scene["w"], scene["h"])
