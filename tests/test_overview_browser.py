"""The overview of a 200,000-node graph in real JupyterLab 4 and Notebook 7 (headless Chromium, offline).

What a person sees: at most ``max_groups`` super-nodes, every one inside the visible canvas on the
first frame, their drawn area following their member count; double-clicking the largest one draws
its members in place, the other groups pushed aside by at most 10% of the canvas and none covered,
members captioned by name; Collapse puts everything back where it was without a camera jump; Undo
folds them back; a click on a super-node reaches Python with its id. Screenshots of the overview and
of the drilled group go to $GESTALT_SHOTS (default: gestalt-shots in the temp folder).
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from .jupyter_page import CHROMIUM, SHOTS, JupyterPage, JupyterServer, browser

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed: apt-get install -y chromium (.ci/run does this)")

FRONTENDS = [name for name in os.environ.get("GESTALT_FRONTENDS", "lab,notebook").split(",") if name]
NODES = 200_000
CANVAS_CSS = ".jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas]"
CANVAS = f"document.querySelector('{CANVAS_CSS}')"


def spearman(a: list[float], b: list[float]) -> float:
    ra, rb = np.argsort(np.argsort(a)), np.argsort(np.argsort(b))
    return float(np.corrcoef(ra, rb)[0, 1])


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    import pyarrow as pa

    import gestalt_nb

    path = tmp_path_factory.mktemp("big") / "graph"
    rng = np.random.default_rng(11)
    sizes = np.sort((rng.pareto(1.2, 40) + 1))[::-1]
    sizes = np.maximum((sizes / sizes.sum() * NODES).astype(int), 20)
    sizes[0] += NODES - sizes.sum()
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    src = np.concatenate([start + rng.integers(0, size, int(size * 2.5)) for start, size in zip(starts, sizes)] + [rng.integers(0, NODES, NODES // 10)])
    dst = np.concatenate([start + rng.integers(0, size, int(size * 2.5)) for start, size in zip(starts, sizes)] + [rng.integers(0, NODES, NODES // 10)])
    ids = np.char.add("n", np.arange(NODES).astype(str))
    connection = gestalt_nb.create(str(path), alias="big", map_size="8GiB")
    names = np.char.add(np.array(["Ada ", "Cy ", "Bo ", "Eve "])[np.arange(NODES) % 4], np.arange(NODES).astype(str))  # not the id
    connection.db.ingest_arrow(pa.array(ids), pa.array(np.char.add("e", np.arange(src.size).astype(str))), pa.array(ids[src]), pa.array(ids[dst]),
                               pa.array(["LINKS"] * src.size), labels=pa.array([["Person"] if i % 5 else ["Company"] for i in range(NODES)]),
                               node_properties={"name": pa.array(names)})
    connection.close()
    return path


@pytest.fixture(scope="module", params=FRONTENDS)
def overview_page(request, database):
    cells = ["%load_ext gestalt_nb", f"%gestalt open {database} --map-size 8GiB", "%goverview --by community --max-groups 60 -o whole"]
    server = JupyterServer(request.param)
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "source": text, "outputs": [], "execution_count": None} for text in cells],
                "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    (server.root / "overview.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    server.start()
    try:
        with browser() as chromium:
            page = JupyterPage(chromium, server, viewport={"width": 1400, "height": 1000})
            page.open("overview.ipynb")
            page.run_all(timeout=240)
            page.page.wait_for_function(f"() => {CANVAS} && {CANVAS}.gestaltCanvas", timeout=60_000)
            page.page.evaluate(f"() => {CANVAS}.scrollIntoView({{block: 'center'}})")
            page.page.wait_for_function(f"() => {CANVAS}.gestaltCanvas.ready.then(() => true)", timeout=60_000)
            page.pause(4)  # the force layout over the groups settles and stops
            yield request.param, page
            page.close()
    finally:
        server.cleanup()


def show_canvas(page: JupyterPage) -> None:
    page.page.evaluate(f"() => {CANVAS}.scrollIntoView({{block: 'center'}})")
    page.pause(0.5)


def wait_page(page: JupyterPage, condition: str, arg=None, timeout: int = 30_000) -> None:
    """Wait for ``condition`` (a JS function of ``arg``) on the page; when it does not come, fail saying what the page
    and the kernel hold (revisions, nodes drawn, the status line, page errors) instead of a bare timeout."""
    try:
        page.page.wait_for_function(condition, arg=arg, timeout=timeout)
    except Exception:
        seen = page.page.evaluate(f"""() => {{ const el = {CANVAS}; const h = el && el.gestaltCanvas;
            return h ? {{revision: h.revision(), drawn: h.nodesDrawn(), selected: h.selected(),
                        status: el.querySelector('.gc-status').textContent}} : null; }}""")
        held = page.kernel_json("print(json.dumps({'revision': whole.canvas.revision, 'nodes': len(whole.canvas.subgraph.nodes),"
                                " 'status': whole.canvas.status, 'log': [(d['revision'], [o['op'] for o in d['ops']]) for d in whole.canvas._log[-4:]]}))")
        raise AssertionError(f"{condition} ({arg!r}) not seen in {timeout / 1000:.0f} s: page {seen}, kernel {held}, "
                             f"page errors {page.errors[-3:]}, console errors {page.console_errors()[-3:]}") from None


def hook(page: JupyterPage, expression: str, arg=None):
    return page.page.evaluate(f"(arg) => {{ const h = {CANVAS}.gestaltCanvas; return {expression}; }}", arg)


def spots(page: JupyterPage, ids: list[str]) -> dict[str, dict]:
    return page.page.evaluate(f"""(ids) => {{ const el = {CANVAS}; const h = el.gestaltCanvas;
        const box = ((h.canvas && h.canvas()) || el.querySelector('canvas')).getBoundingClientRect();
        const out = {{}};
        for (const id of ids) {{ const p = h.screenPosition(id); if (p) out[id] = {{x: box.left + p.x, y: box.top + p.y, w: box.width, h: box.height, left: box.left, top: box.top,
            inside: p.x >= 0 && p.y >= 0 && p.x <= box.width && p.y <= box.height}}; }}
        return out; }}""", ids)


def test_overview_draws_every_group_in_view_sized_by_members_and_drills_in_place(overview_page):
    frontend, page = overview_page
    kernel = page.kernel_json(
        "import json, time\n_clicks = []\nwhole.canvas.on_click(_clicks.append)\n"
        "for _ in range(100):\n    (whole.canvas.shown is None) and time.sleep(0.1)\n"
        "print(json.dumps({'ids': list(whole.canvas.subgraph.nodes), 'sizes': [int(s) for s in whole.sizes],"
        " 'nodes': whole.compact.node_count, 'groups': whole.group_count}))", timeout=120)
    assert kernel["nodes"] == NODES and kernel["groups"] <= 60
    drawn, in_view = hook(page, "h.nodesDrawn()"), hook(page, "h.nodesInView()")
    assert drawn == in_view == len(kernel["ids"]) == kernel["groups"], (drawn, in_view, kernel["groups"])
    SHOTS.mkdir(parents=True, exist_ok=True)
    show_canvas(page)
    page.page.screenshot(path=str(SHOTS / f"overview-{frontend}.png"))
    biggest = sorted(range(kernel["groups"]), key=lambda n: -kernel["sizes"][n])[:8]
    # the 8 biggest groups' captions are drawn, each next to its own disc, whole up to its first name and with its
    # count (written short at most: "Ada 1… ×34k", never "Ad…" or "Ada 1"), over no other disc, none over another
    faults = caption_faults(canvas_scene(page), [f"group:{n}" for n in biggest])
    assert not faults, faults
    radii = page.kernel_json("print(json.dumps({k: v[2] for k, v in whole.canvas.shown.nodes.items()}))")
    ids = [f"group:{n}" for n in range(kernel["groups"])]
    assert spearman([radii[i] ** 2 for i in ids], kernel["sizes"]) >= 0.9
    # the saved picture is the overview as the page showed it: one disc per group, area following members
    saved = page.kernel_json("import xml.etree.ElementTree as _ET\n_svg = _ET.fromstring(whole.canvas.snapshot('svg'))\n"
                             "print(json.dumps({c.get('data-id'): float(c.get('r')) for c in _svg.iter('{http://www.w3.org/2000/svg}circle')}))")
    assert set(saved) == set(ids) and spearman([saved[i] ** 2 for i in ids], kernel["sizes"]) >= 0.9

    # a click on a small group reaches Python with its id
    small = ids[-1]
    show_canvas(page)
    before = spots(page, ids)
    page.page.mouse.click(before[small]["x"], before[small]["y"])
    page.page.wait_for_function(f"(id) => {CANVAS}.gestaltCanvas.selected().includes(id)", arg=small, timeout=5_000)
    assert page.kernel_json("print(json.dumps(_clicks))") == [small]
    show_canvas(page)
    before = spots(page, ids)

    # double-click the largest group: its members appear in place, the other groups stay put
    placed = {i: hook(page, "h.graphPosition(arg)", i) for i in ids}
    xs, ys = [p["x"] for p in placed.values()], [p["y"] for p in placed.values()]
    extent = max(max(xs) - min(xs), max(ys) - min(ys))
    page.page.mouse.dblclick(before["group:0"]["x"], before["group:0"]["y"])
    wait_page(page, f"(n) => {CANVAS}.gestaltCanvas.nodesDrawn() > n", drawn, 30_000)
    page.pause(2.5)
    # where the other groups are in the drawing (the camera may zoom out to show the new members)
    after = {i: hook(page, "h.graphPosition(arg)", i) for i in ids[1:]}
    moved = max(((after[i]["x"] - placed[i]["x"]) ** 2 + (after[i]["y"] - placed[i]["y"]) ** 2) ** 0.5 for i in ids[1:])
    assert moved <= 0.15 * extent, f"another group moved {moved / extent:.1%} of the drawing"  # on screen: test_drill_and_collapse_keep_the_map
    assert hook(page, "h.nodesDrawn()") == hook(page, "h.nodesInView()") > drawn
    # it opened where it was: the groups inside it (a level down) fill a disc around the super-node's spot, and the
    # biggest groups around keep their captions (a dot inside may lie under one, another disc may not)
    opened = page.kernel_json(f"print(json.dumps([k for k in whole.canvas.subgraph.nodes if k not in {ids!r}]))")
    home = placed["group:0"]
    reach = max(((p["x"] - home["x"]) ** 2 + (p["y"] - home["y"]) ** 2) ** 0.5
                for p in hook(page, "arg.map((k) => h.graphPosition(k))", opened))
    assert len(opened) >= 20 and reach <= 0.3 * extent, f"what opened reaches {reach / extent:.1%} of the drawing from their group's spot"
    show_canvas(page)
    captions = hook(page, "h.labelSpots()")
    assert all(captions.get(f"group:{n}") for n in biggest[1:6]), [n for n in biggest[1:6] if not captions.get(f"group:{n}")]
    page.page.screenshot(path=str(SHOTS / f"overview-drilled-{frontend}.png"))
    grown = page.kernel_json("print(json.dumps([len(whole.canvas.subgraph.nodes), 'group:0' in whole.canvas.subgraph.nodes]))")
    assert grown[0] > drawn and grown[1] is False

    show_canvas(page)
    # Undo (the toolbar's) folds the members back into their super-node
    page.page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas] button", has_text="Undo").first.click()
    wait_page(page, f"(n) => {CANVAS}.gestaltCanvas.nodesDrawn() === n", drawn, 15_000)
    back = page.kernel_json("print(json.dumps(sorted(whole.canvas.subgraph.nodes)))")
    assert back == sorted(kernel["ids"])

    # drilled again, a member selected by a click, the toolbar's Collapse folds its group back
    show_canvas(page)
    again = spots(page, ["group:0"])["group:0"]
    page.page.mouse.dblclick(again["x"], again["y"])
    wait_page(page, f"(n) => {CANVAS}.gestaltCanvas.nodesDrawn() > n", drawn, 30_000)
    page.pause(2.5)
    members = page.kernel_json(f"print(json.dumps([k for k in whole.canvas.subgraph.nodes if k not in {ids!r}][:40]))")  # groups inside it
    show_canvas(page)  # running a cell scrolls the notebook
    seen = spots(page, members)
    # a member the pointer finds at its own spot (not under another disc or the tooltip)
    page.page.mouse.move(seen[members[0]]["left"] + 3, seen[members[0]]["top"] + 3)  # the hover tooltip goes
    page.pause(0.5)
    member = next(key for key in members if key in seen and seen[key]["inside"]
                  and hook(page, "h.debug(arg[0], arg[1]).nodeAt", [seen[key]["x"] - seen[key]["left"], seen[key]["y"] - seen[key]["top"]]) == key
                  and page.page.evaluate("(p) => (document.elementFromPoint(p[0], p[1]) || {}).tagName", [seen[key]["x"], seen[key]["y"]]) == "CANVAS")
    page.page.mouse.click(seen[member]["x"], seen[member]["y"])
    page.page.wait_for_function(f"(id) => {CANVAS}.gestaltCanvas.selected().includes(id)", arg=member, timeout=5_000)
    collapse = page.page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) [data-gestalt-canvas] [data-gestalt-action='collapse']").first
    assert collapse.is_visible() and collapse.is_enabled()
    collapse.click()
    wait_page(page, f"(n) => {CANVAS}.gestaltCanvas.nodesDrawn() === n", drawn, 15_000)
    assert page.kernel_json("print(json.dumps(sorted(whole.canvas.subgraph.nodes)))") == sorted(kernel["ids"])


def compact(n: int) -> str:
    """A count as the page writes it short (captions.js compactCount): 47,972 -> 48k, 3,185 -> 3.2k."""
    if n < 1000:
        return str(n)
    d, unit = (1e3, "k") if n < 1e6 else (1e6, "M")
    v = n / d
    return (f"{round(v * 10) / 10:g}" if v < 10 else str(round(v))) + unit


def caption_faults(scene: dict, keys: list[str]) -> list:
    """What a person would see wrong in the captions: one of ``keys`` (groups, biggest first) left uncaptioned; a
    group's caption shortened below its head (up to its first ", ") and count or standing away from its own disc
    (more than 3% of the canvas); any caption over another group's disc or over another caption."""
    nodes, spots, side = scene["nodes"], scene["spots"], max(scene["w"], scene["h"])
    faults: list = []

    def gap(spot: dict, disc: dict) -> float:  # from the caption's box to the disc's rim (< 0: over it)
        cx = min(max(disc["x"], spot["x"]), spot["x"] + spot["w"])
        cy = min(max(disc["y"], spot["y"]), spot["y"] + 12)
        return ((cx - disc["x"]) ** 2 + (cy - disc["y"]) ** 2) ** 0.5 - disc["r"]

    faults += [(k, "no caption", nodes[k]["label"]) for k in keys if not spots.get(k)]
    for k, spot in spots.items():
        if not spot or not k.startswith("group:") or k not in nodes:
            continue
        full = nodes[k]["label"]
        head, _, count = full.rpartition(" ×")
        if head and not (spot["label"].startswith(head.split(", ")[0]) and
                         spot["label"].endswith((f" ×{count}", f" ×{compact(int(count.replace(',', '')))}"))):
            faults.append((k, "shortened", spot["label"], full))
        if gap(spot, nodes[k]) > 0.03 * side:
            faults.append((k, f"{gap(spot, nodes[k]):.0f} px from its disc", spot["label"]))
    for k, spot in spots.items():
        over = [g for g, disc in nodes.items() if spot and g != k and g.startswith("group:") and gap(spot, disc) < -1]
        if over:
            faults.append((k, "over the disc of", over[:3], spot["label"]))
    return faults + clashes(spots)


def canvas_scene(page: JupyterPage) -> dict:
    """Every drawn node's spot and radius on the canvas (px), the canvas's size, the camera, captions, status, legend."""
    return page.page.evaluate(f"""() => {{ const el = {CANVAS}; const h = el.gestaltCanvas; const box = h.canvas().getBoundingClientRect();
        const pos = h.positions(); const nodes = {{}};
        for (const [k, p] of Object.entries(pos)) nodes[k] = {{x: p.x, y: p.y, r: h.nodeStyle(k).size, label: h.nodeAttributes(k).label, c: h.nodeStyle(k).color}};
        return {{nodes, w: box.width, h: box.height, camera: h.cameraState(), spots: h.labelSpots(),
                status: el.querySelector('.gc-status').textContent, legend: el.querySelector('.gc-legend').textContent}}; }}""")


def clashes(spots: dict) -> list:
    """Pairs of drawn captions whose boxes overlap (a caption is 12 px high)."""
    rects = [(v["x"], v["y"], v["x"] + v["w"], v["y"] + 12, k, v["label"]) for k, v in spots.items() if v]
    return [(a, b) for i, a in enumerate(rects) for b in rects[i + 1:] if a[0] < b[2] - 1 and b[0] < a[2] - 1 and a[1] < b[3] - 1 and b[1] < a[3] - 1]


def test_drill_and_collapse_keep_the_map(overview_page):
    """canvas.drill(0) opens the groups inside group 0 in the room around its spot, and drilling the smallest of them its
    members: each time the other nodes glide aside (at most 10% of the canvas) and none is covered, members are
    captioned by name, captions apart; collapse: every super-node back within 1% of the canvas, the camera as it was;
    status and legend in plain words."""
    frontend, page = overview_page
    groups = page.kernel_json("import json, time\nfor _ in range(100):\n    (whole.canvas.shown is None) and time.sleep(0.1)\nprint(json.dumps(sorted(k for k in whole.canvas.subgraph.groups)))")
    show_canvas(page)
    # the notes banner (five notes here) shows a line of each, every note begun in sight; a click shows them whole
    banner = page.page.locator(f"{CANVAS_CSS} .gc-notes").first
    look = "(b) => ({h: b.getBoundingClientRect().height, lines: [...b.children].map((d) => d.getBoundingClientRect().height), text: b.textContent})"
    folded = banner.evaluate(look)
    notes = page.kernel_json("print(json.dumps(whole.canvas.graph['notes']))")  # the base drawing's (a drill's go to the status line)
    assert len(folded["lines"]) == len(notes) >= 3 and max(folded["lines"]) < 20, folded
    assert all(n in folded["text"] for n in notes), "every note is in the banner, folded or not"
    banner.click()
    opened = banner.evaluate(look)
    page.page.locator(f"{CANVAS_CSS}").first.screenshot(path=str(SHOTS / f"overview-notes-whole-{frontend}.png"))
    assert opened["h"] > folded["h"] + 15 and max(opened["lines"]) > 20, (folded, opened)
    banner.click()
    assert banner.evaluate(look)["h"] == pytest.approx(folded["h"], abs=1)
    page.page.mouse.move(5, 5)  # no hover tooltip in the pictures
    before = canvas_scene(page)
    assert set(groups) <= set(before["nodes"]), "every group is drawn before the drill"
    side = max(before["w"], before["h"])
    page.page.locator(f"{CANVAS_CSS}").first.screenshot(path=str(SHOTS / f"overview-before-{frontend}.png"))
    # every group is mostly Person: colour by group, not one colour; linked groups apart, the legend says so
    grey = {k for k in groups if before["nodes"][k]["label"].startswith(("no relationships", "small communities", "other"))}
    colours = {k: before["nodes"][k]["c"] for k in groups}
    assert before["legend"].startswith("colour: group") and "one per group" in before["legend"], before["legend"]
    assert len({colours[k] for k in groups if k not in grey}) >= 10, sorted(set(colours.values()))
    links = [(e["s"], e["t"]) for e in hook(page, "h.elements()")["edges"].values() if e["d"].get("w")]
    assert all(colours[a] != colours[b] for a, b in links if a in colours and b in colours and not {a, b} & grey)
    # links that read: width and shade in visible steps of the count (log), the strongest drawn over the rest
    edges = [e for e in hook(page, "h.elements()")["edges"].values() if e["d"].get("w")]
    edges.sort(key=lambda e: e["d"]["w"])
    widths = [e["a"]["size"] for e in edges]
    print(f"[{frontend}] {len(edges)} super-edges, counts {edges[0]['d']['w']:,}..{edges[-1]['d']['w']:,}, widths {sorted(set(widths))}")
    assert len(set(widths)) >= 3 and widths == sorted(widths), "wider for more relationships, in steps"
    assert len({e["a"]["color"] for e in edges}) >= 3 and edges[-1]["a"]["zIndex"] > edges[0]["a"]["zIndex"]
    # a super-edge's tooltip counts its relationships by type
    strongest = edges[-1]
    ends = [before["nodes"][strongest["s"]], before["nodes"][strongest["t"]]]
    box = page.page.evaluate(f"() => {{ const b = {CANVAS}.gestaltCanvas.canvas().getBoundingClientRect(); return {{x: b.left, y: b.top}}; }}")
    for f in (0.5, 0.4, 0.6, 0.3, 0.7):
        x, y = ends[0]["x"] + f * (ends[1]["x"] - ends[0]["x"]), ends[0]["y"] + f * (ends[1]["y"] - ends[0]["y"])
        if hook(page, "h.debug(arg[0], arg[1]).nodeAt", [x, y]) is None:
            break
    page.page.mouse.move(box["x"] + x, box["y"] + y)
    page.pause(0.5)
    tip = page.page.evaluate(f"() => {CANVAS}.querySelector('.gc-tip').textContent")
    assert f"{strongest['d']['w']:,} relationships" in tip and "LINKS ≈" in tip, tip
    page.page.mouse.move(5, 5)

    # a level down: group 0 opens into the groups inside it, in place
    drilled = drill_and_check(page, frontend, "group:0", before, groups, "sub-groups")
    assert "Expanded" not in drilled["status"] and "groups inside" in drilled["status"], drilled["status"]
    assert "without a value" not in drilled["legend"], drilled["legend"]
    # the room reaches what the kernel keeps of the page (the saved notebook's picture, snapshot("svg"))
    kept = page.kernel_json("for _ in range(50):\n    (not whole.canvas.shown.rooms) and time.sleep(0.1)\n"
                            "print(json.dumps([whole.canvas.shown.rooms, whole.canvas.snapshot('svg').count('fill-opacity')]))")
    assert len(kept[0]) == 1 and kept[1] == 1, kept
    assert len({drilled["nodes"][k]["c"] for k in drilled["nodes"] if k.startswith("group:0/")}) >= 6, "the opened groups coloured apart"
    # and its smallest sub-group (down a level more while it holds groups) into its members, captioned by name
    sizes = "print(json.dumps({k: _sg.nodes[k].properties.get('nodes', 0) for k in _sg.groups if k.startswith(%r)}))"
    scene, prefix, names = drilled, "group:0/", {}
    for _ in range(4):
        subs = page.kernel_json("_sg = whole.canvas.subgraph\n" + sizes % prefix)
        assert len(subs) >= 2, subs
        smallest = min(subs, key=subs.get)
        opened_from = scene
        scene = drill_and_check(page, frontend, smallest, scene, list(scene["nodes"]), f"level-{smallest.count('/') + 1}")
        # breadcrumbs: the status line names every group opened down to this one
        crumbs = page.kernel_json(f"_sg = whole.canvas.subgraph\nprint(json.dumps(whole.canvas.expander.levels[{prefix!r}].trail))")
        assert scene["status"].startswith(" › ".join(crumbs) + " › "), (crumbs, scene["status"])
        names = page.kernel_json("_sg = whole.canvas.subgraph\nprint(json.dumps({k: n.properties.get('name') for k, n in _sg.nodes.items() if k not in _sg.groups}))")
        if names:
            break
        prefix = smallest + "/"
    members = scene
    assert names and all(names.values()) and all(k in members["nodes"] for k in names)
    was = opened_from["nodes"][smallest]["c"]  # the members take the colour of the group they were opened from
    assert all(members["nodes"][k]["c"] == was for k in names), (was, {members["nodes"][k]["c"] for k in names})
    assert all(members["nodes"][k]["label"] == names[k] for k in names), [(k, members["nodes"][k]["label"], names[k]) for k in list(names)[:5]]
    assert "one dot each" in members["legend"] and "without a value" not in members["legend"], members["legend"]

    page.kernel_json("print(json.dumps(whole.canvas.collapse(0)))")
    wait_page(page, f"(n) => {CANVAS}.gestaltCanvas.nodesDrawn() === n", len(groups), 30_000)
    page.pause(1.5)
    show_canvas(page)
    page.page.mouse.move(5, 5)
    after = canvas_scene(page)
    page.page.locator(f"{CANVAS_CSS}").first.screenshot(path=str(SHOTS / f"overview-collapsed-{frontend}.png"))
    errors = {k: ((after["nodes"][k]["x"] - before["nodes"][k]["x"]) ** 2 + (after["nodes"][k]["y"] - before["nodes"][k]["y"]) ** 2) ** 0.5 / side
              for k in groups}
    print(f"[{frontend}] collapse: group:0 back within {errors['group:0']:.3%} of the canvas, every group within {max(errors.values()):.3%}")
    assert max(errors.values()) <= 0.01, {k: round(v, 4) for k, v in errors.items() if v > 0.01}
    assert after["camera"]["ratio"] == pytest.approx(before["camera"]["ratio"]), "collapse did not rescale"
    assert after["nodes"]["group:0"]["r"] == pytest.approx(before["nodes"]["group:0"]["r"], rel=0.02), "the drawing was not rescaled"
    assert {k: after["nodes"][k]["c"] for k in groups} == colours, "the same colour for the same group"
    assert "Collapsed" in after["status"] and "Expanded" not in after["status"] and "inside" not in after["status"], after["status"]
    assert "without a value" not in after["legend"] and "one dot each" not in after["legend"], after["legend"]
    assert hook(page, "h.rooms()") == [] and hook(page, "h.roomInk()") == 0, "collapsed: no room is left drawn"

    # opened again, down to the members, zoomed in on them: their captions appear, by name, apart
    path = [smallest[:i] for i in range(len(smallest)) if smallest[i] == "/"][1:] + [smallest]  # the levels down to it
    page.kernel_json("whole.canvas.drill(0)\n" + "".join(f"whole.canvas.drill({k!r})\n" for k in path) + "print(json.dumps(1))")
    wait_page(page, f"(k) => {CANVAS}.gestaltCanvas.openDiscs()[k]", "group:0", 30_000)
    wait_page(page, f"(n) => {CANVAS}.gestaltCanvas.nodesDrawn() >= n", len(members["nodes"]), 30_000)
    page.pause(1.5)
    show_canvas(page)
    disc = hook(page, "h.openDiscs()")["group:0"]
    box = page.page.evaluate(f"() => {{ const b = {CANVAS}.gestaltCanvas.canvas().getBoundingClientRect(); return {{x: b.left, y: b.top}}; }}")
    page.page.mouse.move(box["x"] + disc["x"], box["y"] + disc["y"])
    for _ in range(3):
        page.page.mouse.wheel(0, -240)
        page.pause(0.4)
    page.pause(1.0)
    page.page.mouse.move(5, 5)
    zoomed = canvas_scene(page)
    page.page.locator(f"{CANVAS_CSS}").first.screenshot(path=str(SHOTS / f"overview-drilled-zoomed-{frontend}.png"))
    captioned = {k: v["label"] for k, v in zoomed["spots"].items() if v and k in names}
    print(f"[{frontend}] zoomed in ({zoomed['camera']['ratio']:.2f}): {len(captioned)} of {len(names)} member captions drawn")
    assert len(captioned) >= min(10, len(names) // 2) and all(names[k].startswith(label.rstrip("…")) for k, label in captioned.items()), captioned
    assert sum(label == names[k] for k, label in captioned.items()) >= 0.5 * len(captioned), captioned  # mostly whole names
    assert not clashes(zoomed["spots"])
    page.kernel_json("print(json.dumps(whole.canvas.collapse(0)))")


def drill_and_check(page: JupyterPage, frontend: str, group: str, before: dict, keep: list[str], what: str) -> dict:
    """Drill ``group`` from Python and check the map kept: every node of ``keep`` still drawn, none moved more than 10%
    of the canvas, none under the opened disc (nor under any opened node), the camera as it was, captions apart."""
    page.kernel_json(f"whole.canvas.drill({group!r})\nprint(json.dumps(1))")
    gone = f"(k) => !{CANVAS}.gestaltCanvas.graphPosition(k)"
    wait_page(page, gone, group, 30_000)
    page.pause(1.5)  # the glide aside (0.35 s) is over
    show_canvas(page)
    page.page.mouse.move(5, 5)
    drilled = canvas_scene(page)
    page.page.locator(f"{CANVAS_CSS}").first.screenshot(path=str(SHOTS / f"overview-drilled-{what}-{frontend}.png"))
    others = [k for k in keep if k != group]
    side = max(before["w"], before["h"])
    assert all(k in drilled["nodes"] for k in others)
    spot, was = drilled["nodes"], before["nodes"]
    moves = {k: ((spot[k]["x"] - was[k]["x"]) ** 2 + (spot[k]["y"] - was[k]["y"]) ** 2) ** 0.5 / side for k in others}
    worst = max(moves, key=moves.get)
    opened = [k for k in spot if k not in was]
    disc = list(hook(page, "h.openDiscs()").values())
    print(f"[{frontend}] drill {group} ({len(opened)} {what}): max move of another node {moves[worst]:.2%} of the canvas ({worst}); "
          f"{sum(m > 0.001 for m in moves.values())} of {len(others)} moved")
    assert moves[worst] <= 0.10, f"{worst} moved {moves[worst]:.1%} of the canvas"
    resized = [k for k in others if abs(spot[k]["r"] - was[k]["r"]) > 0.02 * was[k]["r"]]
    assert not resized, f"opening {group} resized {resized}"  # the area scale stays the overview's
    dist = lambda a, b: ((a["x"] - b["x"]) ** 2 + (a["y"] - b["y"]) ** 2) ** 0.5
    home = min(disc, key=lambda d: min(dist(d, spot[k]) for k in opened))  # the disc this drill opened
    outside = [k for k in opened if dist(spot[k], home) > home["r"] + 1]
    assert not outside, f"opened nodes outside their disc: {outside[:5]}"
    covered = [k for k in others if dist(spot[k], home) < home["r"] + spot[k]["r"] - 1]
    assert not covered, f"the opened disc (r={home['r']:.0f}px) covers {covered}"
    # the opened level stands in a room: a faint disc in its group's colour, drawn round what it opened, under them
    rooms = hook(page, "h.rooms()")
    room = next((r for r in rooms if r["key"] == group), None)
    assert room is not None, f"no room drawn for {group}: {rooms}"
    assert dist(room, home) < 1.5 and abs(room["r"] - home["r"]) < 1.5, (room, home)
    assert hook(page, "h.roomInk(arg[0], arg[1])", [room["x"], room["y"]]) > 0, "the room is drawn (its own layer, under the nodes)"
    under = [(k, o) for k in others for o in opened if dist(spot[k], spot[o]) < spot[k]["r"] + spot[o]["r"] - 1]
    assert not under, under[:5]
    assert drilled["camera"]["ratio"] == pytest.approx(before["camera"]["ratio"]), "the drill did not zoom"
    assert sum(1 for v in drilled["spots"].values() if v) >= 10 and not clashes(drilled["spots"]), "captions placed, apart"
    # the 3 biggest groups a drill opened are captioned, at every level (the opened disc keeps room for them beside
    # their discs), and on the first level the 5 biggest groups around too; every group's caption next to its own
    # disc, whole, over no other disc or caption
    sizes = page.kernel_json("_sg = whole.canvas.subgraph\nprint(json.dumps({k: _sg.nodes[k].properties.get('nodes', 0) for k in _sg.groups}))")
    ranked = sorted((k for k in sizes if k in drilled["nodes"]), key=lambda k: -sizes[k])
    first = what == "sub-groups"
    inside = [k for k in ranked if k in opened][:3]
    faults = caption_faults(drilled, ([k for k in ranked if k not in opened][:5] if first else []) + inside)
    print(f"[{frontend}] drill {group}: captions of the 5 biggest opened: "
          f"{[(drilled['spots'].get(k) or {}).get('label') for k in [k for k in ranked if k in opened][:5]]}; status {drilled['status']!r}")
    assert not faults, faults
    return drilled
