"""Headless-Chromium check of the canvas bundle, without Jupyter.

Run:  python js/test/check.py [--sizes 9,1000,5000,10000,50000] [--shots DIR] [--skip-big]

Loads gestalt_nb/canvas/static/canvas.js through a Blob URL (as the Python loader does)
into js/test/harness.html with a fake anywidget model, and checks the contract in
docs/protocol.md: every node in view on the first frame and after the
layout settles, timings, click/dblclick messages, deltas (add/remove/highlight/fit),
sync on a missed revision, and that an injection corpus executes nothing.
Every request outside file:/data:/blob: is refused and reported.
"""
from __future__ import annotations

import argparse
import json
import math
import random
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
BUNDLE = ROOT / "gestalt_nb" / "canvas" / "static" / "canvas.js"
HARNESS = HERE / "harness.html"

LABELS = [
    {"name": "Person", "color": "#4e79a7"},
    {"name": "Company", "color": "#f28e2b"},
    {"name": "City", "color": "#59a14f"},
    {"name": "Product", "color": "#e15759"},
]
TYPES = ["KNOWS", "WORKS_AT", "LIVES_IN", "BOUGHT"]
NAMES = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Ken", "Dennis", "Frances", "Margaret", "Linus", "Guido"]

CORPUS = [
    "<img src=x onerror=alert(1)>",
    '<img src=x onerror="window.__pwned=1">',
    "</script><script>alert(1)</script>",
    "javascript:alert(1)",
    '"><svg onload=alert(1)>',
    "\u202eevil\u202c and \u200frtl\u200e marks",
    "{{constructor.constructor('alert(1)')()}}",
    "x" * 10000,
]

FAILURES: list[str] = []


def check(cond, what):
    print(("  ok   " if cond else "  FAIL ") + what)
    if not cond:
        FAILURES.append(what)
    return cond


def make_payload(n, seed=7, edges_per_node=2, title=None):
    rnd = random.Random(seed)
    nodes = []
    for i in range(n):
        lab = 0 if i % 5 in (0, 1) else (i % 5) - 1
        name = NAMES[i % len(NAMES)] + (f" {i}" if n > len(NAMES) else "")
        cap = name if lab == 0 else f"{LABELS[lab]['name']} {i}"
        nodes.append({"id": f"n{i}", "c": cap, "l": lab, "p": {"name": cap, "rank": i, "since": 1990 + i % 30}})
    edges = []
    k = 0
    for i in range(n):
        for j in range(edges_per_node):
            if n < 2:
                break
            if j == 0:
                t = rnd.randrange(max(0, i - 40), i) if i > 0 else 1
            else:
                # mostly inside a block of 100 nodes (communities), some across
                if rnd.random() < 0.85:
                    lo = (i // 100) * 100
                    t = rnd.randrange(lo, min(n, lo + 100))
                else:
                    t = rnd.randrange(n)
                if t == i:
                    t = (i + 1) % n
            edges.append({"id": f"e{k}", "s": f"n{i}", "t": f"n{t}", "y": k % len(TYPES), "p": {"weight": round(rnd.random(), 3)}})
            k += 1
    return {
        "nodes": nodes,
        "edges": edges,
        "labels": LABELS,
        "types": TYPES,
        "title": title or f"{n} nodes",
        "notes": [],
        "counts": {"nodes": n, "edges": len(edges)},
    }


def small_payload():
    # 9 nodes like the quickstart's first query, with a note and a cut count
    people = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra", "Barbara Liskov"]
    comps = ["Analytical Engines Ltd", "Bletchley Park", "Remington Rand"]
    nodes = [{"id": f"p{i}", "c": c, "l": 0, "p": {"name": c, "born": 1815 + 20 * i}} for i, c in enumerate(people)]
    nodes += [{"id": f"c{i}", "c": c, "l": 1, "p": {"name": c}} for i, c in enumerate(comps)]
    nodes += [{"id": "city0", "c": "London", "l": 2, "p": {"name": "London", "population": 8_900_000}}]
    edges = [
        ("p0", "p1", 0), ("p1", "p2", 0), ("p2", "p3", 0), ("p3", "p4", 0), ("p4", "p0", 0),
        ("p0", "c0", 1), ("p1", "c1", 1), ("p2", "c2", 1), ("p3", "c2", 1), ("p4", "c1", 1),
        ("c0", "city0", 2), ("c1", "city0", 2), ("p0", "city0", 2),
    ]
    edges = [{"id": f"e{i}", "s": s, "t": t, "y": y, "p": {"since": 1900 + i}} for i, (s, t, y) in enumerate(edges)]
    nodes[1]["h"] = 1
    nodes[5]["h"] = 1
    return {
        "nodes": nodes,
        "edges": edges,
        "labels": LABELS[:3],
        "types": TYPES[:3],
        "title": "MATCH (p)-[r]->(q) RETURN p, r, q",
        "notes": ["Graph shows 9 of 17 nodes (max_nodes=9); raise max_nodes to see more."],
        "counts": {"nodes": 17, "edges": 20},
    }


def injection_payload():
    nodes, edges = [], []
    for i, s in enumerate(CORPUS):
        nodes.append({"id": f"x{i}", "c": s, "l": i % 3, "L": [s], "p": {s: s, "plain": s, "n": i}})
    for i in range(len(CORPUS)):
        edges.append({"id": f"xe{i}", "s": f"x{i}", "t": f"x{(i + 1) % len(CORPUS)}", "y": i % 3, "p": {s: s for s in CORPUS[:3]}})
    labels = [{"name": CORPUS[0], "color": "#4e79a7"}, {"name": CORPUS[4], "color": "red;background:url(javascript:alert(1))"},
              {"name": CORPUS[2], "color": "javascript:alert(1)"}]
    return {
        "nodes": nodes,
        "edges": edges,
        "labels": labels,
        "types": [CORPUS[1], CORPUS[3], CORPUS[5]],
        "title": CORPUS[2],
        "notes": CORPUS[:6],
        "counts": {"nodes": len(nodes), "edges": len(edges)},
    }


class Page:
    def __init__(self, browser, theme=None, width=940):
        self.refused, self.console_errors, self.dialogs, self.page_errors = [], [], [], []
        self.page = browser.new_page(viewport={"width": width, "height": 900})
        pg = self.page

        def route(r):
            u = r.request.url
            if u.startswith(("file:", "data:", "blob:")):
                r.continue_()
            else:
                self.refused.append(u)
                r.abort()

        pg.route("**/*", route)
        pg.on("console", lambda m: m.type == "error" and self.console_errors.append(m.text[:300]))
        pg.on("pageerror", lambda e: self.page_errors.append(str(e)[:300]))

        def on_dialog(d):
            self.dialogs.append(d.message)
            d.dismiss()

        pg.on("dialog", on_dialog)
        pg.goto(HARNESS.as_uri())
        if theme == "dark":
            pg.evaluate("""() => { const t = document.getElementById('theme'); const s = t.style;
                s.setProperty('--jp-layout-color0', '#111'); s.setProperty('--jp-layout-color1', '#1b1b1b');
                s.setProperty('--jp-layout-color2', '#2a2a2a'); s.setProperty('--jp-layout-color3', '#3a3a3a');
                s.setProperty('--jp-ui-font-color0', '#eee'); s.setProperty('--jp-ui-font-color1', '#ddd');
                s.setProperty('--jp-ui-font-color2', '#aaa'); s.setProperty('--jp-border-color1', '#555');
                s.setProperty('--jp-border-color2', '#333'); s.setProperty('--jp-warn-color3', '#3a2a10');
                s.setProperty('--jp-input-background', '#222');
                document.body.style.background = '#111'; }""")
        h = pg.evaluate("(c) => loadBundle(c)", BUNDLE.read_text())
        self.hash = h

    def mount(self, state, **opts):
        return self.page.evaluate("([s, o]) => mount(s, o)", [json.dumps(state) if state is not None else None, opts])

    def ev(self, js, arg=None):
        return self.page.evaluate(js, arg)

    def hook(self, i, expr, arg=None):
        return self.page.evaluate(f"([i, a]) => {{ const h = hook(i); return {expr}; }}", [i, arg])

    def wait(self, i, what, timeout_s):
        t = time.perf_counter()
        self.page.evaluate(f"([i, ms]) => Promise.race([hook(i).{what}, new Promise((_, rej) => setTimeout(() => rej(new Error('timeout {what}')), ms))])", [i, int(timeout_s * 1000)])
        return time.perf_counter() - t

    def sent(self, kind=None):
        s = self.page.evaluate("() => window.sent")
        return [m for m in s if kind is None or m.get("kind") == kind]

    def clean(self, label):
        check(not self.refused, f"{label}: no outside request ({self.refused[:3]})")
        check(not self.console_errors, f"{label}: no console error ({self.console_errors[:3]})")
        check(not self.page_errors, f"{label}: no page error ({self.page_errors[:3]})")
        check(not self.dialogs, f"{label}: no dialog ({self.dialogs[:3]})")

    def canvas_xy(self, i, node):
        return self.page.evaluate(
            """([i, id]) => { const h = hook(i); const r = h.canvas().getBoundingClientRect(); const p = h.screenPosition(id);
                 return {x: r.left + p.x, y: r.top + p.y}; }""", [i, node])

    def close(self):
        self.page.close()


def size_run(browser, n, timings, shots=None, do_delta=False):
    print(f"\n== {n} nodes, {2 * n} edges")
    payload = make_payload(n)
    p = Page(browser)
    t0 = time.perf_counter()
    i = p.mount({"graph": payload, "height": 520})
    p.wait(i, "ready", 60)
    wall = time.perf_counter() - t0
    first = p.hook(i, "[h.nodesInView(), h.nodesDrawn(), h.edgesDrawn(), h.timings()]")
    inview, drawn, edges, tm = first
    ff = tm["firstFrame"] - tm["start"]
    check(inview == drawn == n, f"first frame: nodesInView {inview} == nodesDrawn {drawn} == {n}")
    check(edges == len(payload["edges"]), f"edgesDrawn {edges} == {len(payload['edges'])}")
    ready = p.sent("ready")
    check(len(ready) == 1 and ready[0]["nodes"] == n, f"one ready message with nodes={n} ({ready[:1]})")
    p.wait(i, "settled", 90)
    inview2, drawn2, tm2, running = p.hook(i, "[h.nodesInView(), h.nodesDrawn(), h.timings(), h.layoutRunning()]")
    st = tm2["settled"] - tm2["start"]
    check(inview2 == drawn2 == n, f"after settling: nodesInView {inview2} == nodesDrawn {drawn2} == {n}")
    check(not running, "layout stopped after settling")
    # positions stay put once settled
    a = p.hook(i, "h.graphPosition('n0')")
    time.sleep(0.5)
    b = p.hook(i, "h.graphPosition('n0')")
    check(a == b, "no drift after settling")
    marks = tm.get("marks") or {}
    print("  marks: " + ", ".join(f"{k} +{v - tm['start']:.0f}" for k, v in marks.items()))
    print(f"  first frame {ff:.0f} ms (JS, render() -> painted), wall incl. payload transfer {wall * 1000:.0f} ms; settled {st:.0f} ms")
    timings[n] = {"first_frame_ms": round(ff), "settled_ms": round(st), "wall_ms": round(wall * 1000)}
    if shots:
        p.page.screenshot(path=str(Path(shots) / f"canvas-{n}-light.png"))
        if n == 1000:
            ids = [f"n{k}" for k in range(0, 1000, 67)]
            p.ev("([i, m]) => views[i].model.push(m)", [i, {"kind": "delta", "revision": 1, "ops": [{"op": "highlight", "ids": ids, "only": True}]}])
            time.sleep(0.5)
            check(p.hook(i, "h.nodesInView()") == n, "highlight keeps every node in view")
            p.page.screenshot(path=str(Path(shots) / f"canvas-{n}-highlight-light.png"))
    if do_delta:
        delta_checks(p, i, n)
    p.clean(f"{n} nodes")
    p.close()


def delta_checks(p, i, n):
    print(f"  -- deltas on {n}")
    sid = p.hook(i, "h.sigmaInstanceId()")
    old = p.ev("(i) => { const h = hook(i); const o = {}; for (let k = 0; k < %d; k++) o['n' + k] = h.graphPosition('n' + k); return o; }" % n, i)
    anchor = "n0"
    add = {"kind": "delta", "revision": 1, "anchor": anchor, "undoable": True, "ops": [{
        "op": "add",
        "nodes": [{"id": f"new{k}", "c": f"New {k}", "l": 1, "p": {"k": k}} for k in range(3)],
        "edges": [{"id": f"ne{k}", "s": anchor, "t": f"new{k}", "y": 0} for k in range(3)] + [{"id": "ne9", "s": "new0", "t": "new1", "y": 1}],
    }]}
    t = time.perf_counter()
    p.ev("([i, m]) => views[i].model.push(m)", [i, add])
    dt = (time.perf_counter() - t) * 1000
    time.sleep(0.6)  # a possible camera refit animation
    rev, drawn, inview, sid2 = p.hook(i, "[h.revision(), h.nodesDrawn(), h.nodesInView(), h.sigmaInstanceId()]")
    check(rev == 1, f"delta applied: revision {rev} == 1 (took {dt:.0f} ms)")
    check(drawn == n + 3, f"nodesDrawn {drawn} == {n + 3}")
    check(inview == n + 3, f"nodesInView {inview} == {n + 3} after add")
    check(sid2 == sid, f"sigmaInstanceId unchanged ({sid} -> {sid2})")
    new = p.ev("(i) => { const h = hook(i); const o = {}; for (let k = 0; k < %d; k++) o['n' + k] = h.graphPosition('n' + k); return o; }" % n, i)
    moved = [k for k in old if old[k] != new[k]]
    check(not moved, f"no old node moved ({len(moved)} moved, e.g. {moved[:3]})")
    pos = [p.hook(i, "h.graphPosition(a)", f"new{k}") for k in range(3)]
    xs = [v["x"] for v in old.values()]
    ys = [v["y"] for v in old.values()]
    ext = max(max(xs) - min(xs), max(ys) - min(ys))
    far = [math.hypot(q["x"] - old[anchor]["x"], q["y"] - old[anchor]["y"]) / ext for q in pos]
    check(all(f < 0.25 for f in far), f"new nodes placed next to the anchor (distance/extent {[round(f, 3) for f in far]})")
    # remove
    p.ev("([i, m]) => views[i].model.push(m)", [i, {"kind": "delta", "revision": 2, "ops": [{"op": "remove", "ids": ["new2", "n1", "ne9"]}]}])
    rev, drawn, sid3 = p.hook(i, "[h.revision(), h.nodesDrawn(), h.sigmaInstanceId()]")
    check(rev == 2 and drawn == n + 1 and sid3 == sid, f"remove: revision {rev}, nodesDrawn {drawn} == {n + 1}")
    # highlight
    p.ev("([i, m]) => views[i].model.push(m)", [i, {"kind": "delta", "revision": 3, "ops": [{"op": "highlight", "ids": ["n2", "n3", "e4"], "only": True}]}])
    a2, a5 = p.hook(i, "[h.nodeAttributes('n2'), h.nodeAttributes('n5')]")
    check(a2["h"] == 1 and a2["type"] == "ring" and a5["h"] == 0, f"highlight only: n2 {a2['h']}/{a2['type']}, n5 {a5['h']}")
    # fit after zooming in
    p.ev("(i) => { const h = hook(i); }", i)
    p.ev("(i) => views[i].el.querySelector('.gc-sigma')", i)
    p.ev("([i, m]) => views[i].model.push(m)", [i, {"kind": "delta", "revision": 4, "ops": [{"op": "fit"}]}])
    time.sleep(0.5)
    rev, inview, drawn = p.hook(i, "[h.revision(), h.nodesInView(), h.nodesDrawn()]")
    check(rev == 4 and inview == drawn, f"fit: revision {rev}, all {drawn} in view ({inview})")
    # missed revision -> sync
    before = len(p.sent("sync"))
    p.ev("([i, m]) => views[i].model.push(m)", [i, {"kind": "delta", "revision": 6, "ops": [{"op": "highlight", "ids": ["n4"], "only": False}]}])
    syncs = p.sent("sync")
    check(len(syncs) == before + 1 and syncs[-1]["have"] == 4, f"missed revision -> sync have=4 ({syncs[-1:]})")
    check(p.hook(i, "h.revision()") == 4, "out-of-order delta not applied")
    p.ev("([i, m]) => views[i].model.push(m)", [i, {"kind": "delta", "revision": 5, "ops": []}])
    p.ev("([i, m]) => views[i].model.push(m)", [i, {"kind": "delta", "revision": 6, "ops": [{"op": "highlight", "ids": ["n4"], "only": False}]}])
    check(p.hook(i, "h.revision()") == 6 and p.hook(i, "h.nodeAttributes('n4').h") == 1, "re-sent deltas applied in order")
    # undo of a Python delta
    p.ev("(i) => { const b = [...views[i].el.querySelectorAll('.gc-bar button')].find(b => b.textContent === 'Undo'); b.click(); }", i)
    check(len(p.sent("undo")) == 1, "Undo after an undoable Python delta sends {kind: 'undo'}")
    # a big addition (2,000 nodes) in one delta stays bounded and in view
    big = {"kind": "delta", "revision": 7, "anchor": "n10", "ops": [{"op": "add",
           "nodes": [{"id": f"b{k}", "c": f"Big {k}", "l": 2} for k in range(2000)],
           "edges": [{"id": f"be{k}", "s": f"n{10 + k % 50}", "t": f"b{k}", "y": 1} for k in range(2000)]}]}
    t = time.perf_counter()
    p.ev("([i, m]) => views[i].model.push(m)", [i, big])
    dt = (time.perf_counter() - t) * 1000
    time.sleep(0.6)
    drawn, inview, sid4 = p.hook(i, "[h.nodesDrawn(), h.nodesInView(), h.sigmaInstanceId()]")
    check(drawn == inview == n + 2001 and sid4 == sid, f"2,000 nodes added in one delta: {drawn} drawn, {inview} in view, {dt:.0f} ms")


def interaction_run(browser, shots):
    print("\n== interactions (9 nodes)")
    p = Page(browser)
    i = p.mount({"graph": small_payload(), "height": 420, "settings": {"expandable": True}})
    p.wait(i, "ready", 30)
    check(p.hook(i, "h.nodesInView()") == 9 == p.hook(i, "h.nodesDrawn()"), "9 nodes in view on the first frame")
    p.wait(i, "settled", 30)
    check(p.hook(i, "h.nodesInView()") == 9, "9 nodes in view after settling")
    xy = p.canvas_xy(i, "p2")
    p.page.mouse.move(xy["x"], xy["y"])
    time.sleep(0.3)
    tip = p.ev("(i) => { const t = views[i].el.querySelector('.gc-tip'); return t.hidden ? null : t.textContent; }", i)
    check(tip is not None and "Grace Hopper" in tip, f"hover shows a tooltip ({tip!r})")
    p.page.mouse.click(xy["x"], xy["y"])
    time.sleep(0.4)
    clicks = p.sent("click")
    sel = p.ev("(i) => views[i].model.get('selected')", i)
    check(clicks and clicks[-1]["id"] == "p2", f"click sends {{kind: 'click', id: 'p2'}} ({clicks[-1:]})")
    check(sel == ["p2"], f"click sets selected ({sel})")
    check(p.ev("() => window.saved.length") >= 1, "save_changes called")
    panel = p.ev("(i) => views[i].el.querySelector('.gc-panel').textContent", i)
    check("Grace Hopper" in panel and "born" in panel, "panel shows the selected node's properties")
    before = [p.hook(i, "h.screenPosition(a)", k) for k in ("p0", "c1")]
    cam = p.hook(i, "h.cameraState()")
    xy = p.canvas_xy(i, "p3")
    p.page.mouse.dblclick(xy["x"], xy["y"])
    time.sleep(0.8)
    d = p.sent("dblclick")
    check(d and d[-1]["id"] == "p3", f"double-click sends {{kind: 'dblclick', id: 'p3'}} ({d[-1:]})")
    after = [p.hook(i, "h.screenPosition(a)", k) for k in ("p0", "c1")]
    cam2 = p.hook(i, "h.cameraState()")
    check(before == after and cam == cam2, f"double-click does not zoom (camera {cam} -> {cam2})")
    status = p.ev("(i) => views[i].el.querySelector('.gc-status').textContent", i)
    check("expanding" in status, f"double-click shows 'expanding…' ({status!r})")
    # Python sets selected
    p.ev("(i) => views[i].model.pyset('selected', ['c0'])", i)
    panel = p.ev("(i) => views[i].el.querySelector('.gc-panel').textContent", i)
    check("Analytical Engines" in panel and p.hook(i, "h.selected()") == ["c0"], "selected set from Python shows in the panel")
    # status message
    p.ev("(i) => views[i].model.push({kind: 'status', text: 'Expanded Ada: 3 new nodes', level: 'info'})", i)
    # hide / undo / pin via toolbar
    def button(name):
        p.ev("([i, n]) => [...views[i].el.querySelectorAll('.gc-bar button')].find(b => b.textContent === n).click()", [i, name])
    button("Hide")
    check(p.hook(i, "h.nodesDrawn()") == 8, "Hide selected hides one node")
    button("Undo")
    check(p.hook(i, "h.nodesDrawn()") == 9, "Undo brings it back")
    p.ev("(i) => views[i].model.pyset('selected', ['p0'])", i)
    button("Pin")
    check(p.hook(i, "h.nodeAttributes('p0').fixed") is True, "Pin pins the selected node")
    button("Undo")
    check(p.hook(i, "h.nodeAttributes('p0').fixed") is False, "Undo unpins")
    # search
    p.page.fill(".gc-search input", "turing")
    time.sleep(0.4)
    res = p.ev("(i) => [...views[i].el.querySelectorAll('.gc-results li')].map(l => l.textContent)", i)
    check(res and "Alan Turing" in res[0], f"search lists matches ({res})")
    p.ev("(i) => views[i].el.querySelector('.gc-results li').click()", i)
    check(p.hook(i, "h.selected()") == ["p1"], "picking a search result selects it")
    time.sleep(0.6)
    check(p.hook(i, "h.nodesInView()") >= 1, "search result centred")
    count = p.ev("(i) => views[i].el.querySelector('.gc-count').textContent", i)
    check("9 of 17 nodes" in count, f"count agrees with the cut ({count!r})")
    p.ev("(i) => views[i].model.pyset('selected', [])", i)
    p.page.fill(".gc-search input", "")
    p.ev("(i) => { const h = hook(i); }", i)
    button("Fit")
    time.sleep(0.5)
    if shots:
        p.page.screenshot(path=str(Path(shots) / "canvas-9-light.png"))
    # expansion: 3 new nodes around Ada
    p.ev("([i, m]) => views[i].model.push(m)", [i, {"kind": "delta", "revision": 1, "anchor": "p0", "undoable": True, "ops": [{
        "op": "add",
        "nodes": [{"id": f"q{k}", "c": c, "l": 3, "h": 1, "p": {"name": c}} for k, c in enumerate(["Difference Engine", "Notes on the Engine", "Bernoulli program"])],
        "edges": [{"id": f"qe{k}", "s": "p0", "t": f"q{k}", "y": 3} for k in range(3)],
        "labels": LABELS, "types": TYPES}]}])
    time.sleep(0.7)
    check(p.hook(i, "h.nodesInView()") == 12 == p.hook(i, "h.nodesDrawn()"), "12 nodes in view after the expansion")
    if shots:
        p.page.screenshot(path=str(Path(shots) / "canvas-9-expanded-light.png"))
    # two views of one model, then cleanup removes every listener
    base = p.ev("(i) => views[i].model.listenerCount()", i)
    p.ev("(i) => views[i].model.pyset('revision', 1)", i)  # as Python does after sending delta 1
    j = p.mount(None, model=i)
    p.wait(j, "ready", 30)
    check(p.hook(j, "h.nodesDrawn()") == 9 and p.hook(j, "h.sigmaInstanceId()") != p.hook(i, "h.sigmaInstanceId()"), "second view of the same model is independent")
    syncs = [m for m in p.sent("sync") if m["_model"] == "m0"]
    check(syncs and syncs[-1]["have"] == 0, f"a view started at revision>0 asks for sync have=0 ({syncs[-1:]})")
    left = p.ev("(j) => unmount(j)", j)
    check(left == base, f"cleanup removes the view's listeners ({left} == {base})")
    # full rebuild on a new graph
    sid = p.hook(i, "h.sigmaInstanceId()")
    p.ev("([i, g]) => views[i].model.pyset('graph', g)", [i, make_payload(30)])
    p.wait(i, "ready", 30)
    check(p.hook(i, "h.sigmaInstanceId()") != sid and p.hook(i, "h.nodesInView()") == 30, "a new graph trait rebuilds (new sigma instance, 30 in view)")
    # edge hover shows the relationship type; clicking it shows it in the panel
    p.ev("(i) => views[i].model.pyset('graph', %s)" % json.dumps(small_payload()), i)
    p.wait(i, "ready", 30)
    p.wait(i, "settled", 30)
    a, b = p.canvas_xy(i, "p0"), p.canvas_xy(i, "c0")
    mid = {"x": a["x"] * 0.45 + b["x"] * 0.55, "y": a["y"] * 0.45 + b["y"] * 0.55}
    p.page.mouse.move(mid["x"], mid["y"], steps=4)
    p.page.mouse.move(mid["x"] + 0.5, mid["y"] + 0.5)  # sigma checks edges on the move after leaving a node
    time.sleep(0.4)
    tip = p.ev("(i) => { const t = views[i].el.querySelector('.gc-tip'); return t.hidden ? null : t.textContent; }", i)
    check(tip is not None and "WORKS_AT" in tip, f"edge hover shows its type ({tip!r})")
    p.page.mouse.click(mid["x"], mid["y"])
    time.sleep(0.3)
    panel = p.ev("(i) => views[i].el.querySelector('.gc-panel').textContent", i)
    check("WORKS_AT" in panel and "Ada Lovelace" in panel, f"edge click shows type and endpoints in the panel ({panel[:60]!r})")
    # empty graph, one node, self-loop and parallel edges
    for g in ({"nodes": [], "edges": []},
              {"nodes": [{"id": "a", "c": "A", "l": 0}], "edges": [{"id": "s", "s": "a", "t": "a", "y": 0}], "labels": LABELS, "types": TYPES},
              {"nodes": [{"id": "a", "c": "A", "l": 0}, {"id": "b", "c": "B", "l": 1}],
               "edges": [{"id": "1", "s": "a", "t": "b", "y": 0}, {"id": "2", "s": "a", "t": "b", "y": 1}, {"id": "3", "s": "b", "t": "a", "y": 2}],
               "labels": LABELS, "types": TYPES}):
        k = p.mount({"graph": g, "height": 200})
        p.wait(k, "ready", 10)
        p.wait(k, "settled", 10)
        n = len(g["nodes"])
        check(p.hook(k, "[h.nodesInView(), h.nodesDrawn()]") == [n, n], f"{n}-node graph ({len(g['edges'])} edges) draws, in view")
    # rendered into an element that is not in the page yet (as a notebook may do)
    k = p.ev("""(g) => { const model = new FakeModel({graph: JSON.parse(g), height: 300}, 'det'); const el = document.createElement('div');
        const cleanup = window.mod.render({model, el}); views.push({model, el, cleanup});
        setTimeout(() => document.getElementById('out').appendChild(el), 400); return views.length - 1; }""", json.dumps(small_payload()))
    p.wait(k, "ready", 10)
    check(p.hook(k, "h.nodesInView()") == 9, "a view rendered while detached draws once attached (9 in view)")
    # restyled (theme switch, selection, highlight) while hidden, before its first frame, then resized into view
    # (JupyterLab: "Sigma: edge ... can't be repaint" from restyleAll in a ResizeObserver callback)
    k = p.ev("""(g) => { const box = document.createElement('div'); box.style.display = 'none'; document.getElementById('out').appendChild(box);
        const model = new FakeModel({graph: JSON.parse(g), height: 300}, 'hid'); const el = document.createElement('div'); box.appendChild(el);
        const cleanup = window.mod.render({model, el}); views.push({model, el, cleanup});
        document.body.setAttribute('data-jp-theme-light', 'false'); document.getElementById('theme').style.setProperty('--jp-layout-color0', '#222');
        setTimeout(() => { model.pyset('selected', ['p1']); model.push({kind: 'delta', revision: 1, ops: [{op: 'highlight', ids: ['p2', 'e1'], only: true}]});
          el.gestaltCanvas.refreshTheme(); }, 50);
        setTimeout(() => { document.getElementById('theme').style.removeProperty('--jp-layout-color0'); document.body.setAttribute('data-jp-theme-light', 'true'); }, 150);
        setTimeout(() => { box.style.display = 'block'; }, 400); return views.length - 1; }""", json.dumps(small_payload()))
    p.wait(k, "ready", 10)
    check(p.hook(k, "h.nodesInView()") == 9 and not p.page_errors, f"restyled while hidden before the first frame: draws, no page error ({p.page_errors[:1]})")
    p.clean("interactions")
    p.close()


def theme_shots(browser, shots):
    print("\n== dark theme screenshots")
    for name, payload in (("9", small_payload()), ("1000", make_payload(1000))):
        p = Page(browser, theme="dark")
        i = p.mount({"graph": payload, "height": 460})
        p.wait(i, "ready", 30)
        p.wait(i, "settled", 60)
        if name == "9":
            p.ev("(i) => views[i].model.pyset('selected', ['p2'])", i)
            p.ev("([i, m]) => views[i].model.push(m)", [i, {"kind": "delta", "revision": 1, "anchor": "p0", "undoable": True, "ops": [{
                "op": "add",
                "nodes": [{"id": f"q{k}", "c": c, "l": 3, "h": 1} for k, c in enumerate(["Difference Engine", "Notes on the Engine", "Bernoulli program"])],
                "edges": [{"id": f"qe{k}", "s": "p0", "t": f"q{k}", "y": 3} for k in range(3)],
                "labels": LABELS, "types": TYPES}]}])
            time.sleep(0.7)
        if name == "9":
            # switching the theme at runtime (JupyterLab flips data-jp-theme-light on <body>)
            p.ev("() => { document.getElementById('theme').style.setProperty('--jp-layout-color0', '#fff'); document.body.setAttribute('data-jp-theme-light', 'true'); }")
            time.sleep(0.3)
            light = p.hook(i, "h.nodeAttributes('p0')")
            p.ev("() => { document.getElementById('theme').style.setProperty('--jp-layout-color0', '#111'); document.body.setAttribute('data-jp-theme-light', 'false'); }")
            time.sleep(0.3)
            check(light is not None, "theme switch at runtime applied without error")
        bg = p.ev("() => getComputedStyle(document.querySelector('.gc-sigma')).backgroundColor")
        check(bg in ("rgb(17, 17, 17)",), f"dark background from --jp-layout-color0 ({bg})")
        p.page.screenshot(path=str(Path(shots) / f"canvas-{name}-dark.png"))
        p.clean(f"dark {name}")
        p.close()


def injection_run(browser, shots):
    print("\n== injection corpus")
    p = Page(browser)
    i = p.mount({"graph": injection_payload(), "height": 420})
    p.wait(i, "ready", 30)
    p.wait(i, "settled", 30)
    n = len(CORPUS)
    check(p.hook(i, "h.nodesInView()") == n, f"{n} corpus nodes in view")
    # search for each string, pick the result, hover each node, click each edge
    for k, s in enumerate(CORPUS[:-1]):
        p.page.fill(".gc-search input", s[:40])
        time.sleep(0.25)
        res = p.ev("(i) => [...views[i].el.querySelectorAll('.gc-results li')].map(l => l.textContent)", i)
        check(any(s[:40] in r for r in res), f"search finds corpus[{k}] as text")
        p.ev("(i) => { const li = views[i].el.querySelector('.gc-results li[data-k]'); if (li) li.click(); }", i)
        panel = p.ev("(i) => views[i].el.querySelector('.gc-panel').textContent", i)
        check(s in panel, f"panel shows corpus[{k}] as text")
    for k in range(n):
        xy = p.canvas_xy(i, f"x{k}")
        p.page.mouse.move(xy["x"], xy["y"])
        time.sleep(0.15)
        p.page.mouse.click(xy["x"], xy["y"])
        time.sleep(0.1)
    # hover an edge: midpoint between two nodes
    a, b = p.canvas_xy(i, "x0"), p.canvas_xy(i, "x1")
    p.page.mouse.move((a["x"] + b["x"]) / 2, (a["y"] + b["y"]) / 2)
    time.sleep(0.3)
    p.page.mouse.click((a["x"] + b["x"]) / 2, (a["y"] + b["y"]) / 2)
    time.sleep(0.3)
    p.ev("(i) => views[i].model.push({kind: 'status', text: %s, level: 'error'})" % json.dumps(CORPUS[0]), i)
    p.ev("(i) => views[i].model.push({kind: 'delta', revision: 1, ops: [{op: 'add', nodes: [{id: %s, c: %s, l: 0, p: {k: %s}}], edges: []}]})"
         % (json.dumps(CORPUS[4]), json.dumps(CORPUS[2]), json.dumps(CORPUS[3])), i)
    time.sleep(0.3)
    root_text = p.ev("(i) => views[i].el.querySelector('[data-gestalt-canvas]').textContent", i)
    for k, s in enumerate(CORPUS[:5]):
        check(s in root_text, f"corpus[{k}] appears as text in the widget")
    bad = p.ev("(i) => views[i].el.querySelectorAll('img, svg, script, iframe, object, embed, a[href]').length", i)
    check(bad == 0, f"no element injected ({bad})")
    check(p.ev("() => window.__pwned === undefined"), "no handler ran")
    inline = p.ev("(i) => [...views[i].el.querySelectorAll('[style]')].map(e => e.getAttribute('style')).filter(s => /url|javascript|expression/i.test(s))", i)
    check(not inline, f"no data in style attributes ({inline[:2]})")
    if shots:
        p.page.screenshot(path=str(Path(shots) / "canvas-injection.png"))
    p.clean("injection")
    p.close()


def no_worker_run(browser):
    print("\n== no Worker available (main-thread fallback)")
    p = Page(browser)
    p.ev("() => { window.Worker = undefined; }")
    i = p.mount({"graph": make_payload(1000), "height": 400})
    p.wait(i, "ready", 30)
    p.wait(i, "settled", 60)
    tm = p.hook(i, "h.timings()")
    check(p.hook(i, "[h.nodesInView(), h.nodesDrawn()]") == [1000, 1000] and tm.get("iterations", 0) > 0,
          f"layout ran on the main thread and stopped ({tm.get('iterations')} iterations, {tm['settled'] - tm['start']:.0f} ms)")
    p.clean("no worker")
    p.close()


def many_outputs_run(browser, count=10):
    print(f"\n== {count} outputs on one page (WebGL context budget)")
    p = Page(browser)
    warnings = []
    p.page.on("console", lambda m: "Too many active WebGL contexts" in m.text and warnings.append(m.text))
    for _ in range(count):
        p.mount({"graph": small_payload(), "height": 480})
    for k in range(count):
        p.wait(k, "ready", 30)
    p.page.mouse.wheel(0, 20000)
    time.sleep(0.8)
    p.page.mouse.wheel(0, -8000)
    time.sleep(0.8)
    inview = [p.hook(k, "h.nodesInView()") for k in range(count)]
    check(inview == [9] * count, f"every output reports its 9 nodes in view ({inview})")
    lost = p.ev("""() => views.filter(v => [...v.el.querySelectorAll('canvas')].some(c => {
        const g = c.getContext('webgl2') || c.getContext('webgl'); return g && g.isContextLost(); })).length""")
    live = p.ev("() => views.filter(v => v.el.querySelector('canvas')).length")
    check(lost == 0 and not warnings, f"no WebGL context lost ({lost} lost, {len(warnings)} warnings, {live} renderers live)")
    p.clean("many outputs")
    p.close()


NOTEBOOK_PAYLOADS = HERE / "notebook_payloads.json"


def notebook_shots(browser, shots, prefix):
    """Screenshots of the demo notebooks' graphs (payloads taken from the kernel) for a person to look at."""
    print(f"\n== notebook-like screenshots ({prefix}-*.png)")
    payloads = json.loads(NOTEBOOK_PAYLOADS.read_text())
    quality = {}
    for theme in ("light", "dark"):
        for name, payload in payloads.items():
            if theme == "dark" and name not in ("quickstart", "retrieval"):
                continue
            p = Page(browser, theme=theme)
            i = p.mount({"graph": payload, "height": 480})
            p.wait(i, "ready", 30)
            p.wait(i, "settled", 30)
            time.sleep(0.3)
            n = len(payload["nodes"])
            check(p.hook(i, "h.nodesInView()") == n, f"{name} ({theme}): {n} nodes in view")
            # how much of the canvas the drawing uses: bounding box of node centres / canvas
            fill = p.ev("""(i) => { const h = hook(i); const c = h.canvas(); const W = c.clientWidth, H = c.clientHeight;
                const ids = views[i].model.get('graph').nodes.map(n => n.id); let x0 = 1e9, x1 = -1e9, y0 = 1e9, y1 = -1e9, dmin = 1e9;
                const ps = ids.map(id => h.screenPosition(id));
                for (const q of ps) { x0 = Math.min(x0, q.x); x1 = Math.max(x1, q.x); y0 = Math.min(y0, q.y); y1 = Math.max(y1, q.y); }
                for (let a = 0; a < ps.length; a++) for (let b = a + 1; b < ps.length; b++) dmin = Math.min(dmin, Math.hypot(ps[a].x - ps[b].x, ps[a].y - ps[b].y));
                return {w: (x1 - x0) / W, h: (y1 - y0) / H, minGap: dmin, W, H}; }""", i)
            quality[f"{name}-{theme}"] = fill
            print(f"  {name} {theme}: bbox {fill['w']:.2f} x {fill['h']:.2f} of the canvas, closest pair {fill['minGap']:.0f} px")
            if name in ("quickstart", "retrieval"):
                first = payload["nodes"][0]["id"] if name == "retrieval" else "dev"
                p.ev("([i, s]) => views[i].model.pyset('selected', [s])", [i, first])
                time.sleep(0.3)
                widths = p.ev("(i) => [...views[i].el.querySelectorAll('.gc-panel .gc-key')].map(d => [d.textContent, Math.round(d.getBoundingClientRect().height)])", i)
                lines = max(h for _, h in widths) if widths else 0
                check(lines <= 20, f"{name} ({theme}): panel keys on one line (tallest key {lines} px: {widths})")
                other = payload["nodes"][1]["id"]
                xy = p.canvas_xy(i, other)
                p.page.mouse.move(xy["x"], xy["y"])
                time.sleep(0.3)
            el = p.page.locator(".cell").nth(i)
            el.screenshot(path=str(Path(shots) / f"{prefix}-{name}-{theme}.png"))
            p.clean(f"{name} {theme}")
            p.close()
    # the panel at a 900 px notebook (narrow output: the page is 900 px, the output a bit less)
    for theme in ("light", "dark"):
        p = Page(browser, theme=theme, width=760)
        p.ev("() => { document.getElementById('out').style.width = '740px'; }")
        i = p.mount({"graph": payloads["quickstart"], "height": 360})
        p.wait(i, "ready", 30)
        p.ev("(i) => views[i].model.pyset('selected', ['dev'])", i)
        time.sleep(0.3)
        widths = p.ev("(i) => [...views[i].el.querySelectorAll('.gc-panel .gc-key')].map(d => Math.round(d.getBoundingClientRect().height))", i)
        check(widths and max(widths) <= 20, f"narrow ({theme}): panel keys on one line ({widths})")
        p.page.locator(".cell").nth(i).screenshot(path=str(Path(shots) / f"{prefix}-narrow-{theme}.png"))
        p.clean(f"narrow {theme}")
        p.close()
    print("QUALITY " + json.dumps(quality))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="9,1000,5000,10000,50000")
    ap.add_argument("--shots", default=str(Path(tempfile.gettempdir()) / "gestalt-shots"))
    ap.add_argument("--only", default="interactions,injection,theme,notebooks,many,noworker,sizes")
    ap.add_argument("--prefix", default="fix", help="file name prefix of the notebook-like screenshots")
    ap.add_argument("--repeat", type=int, default=1, help="runs per size; medians are reported")
    args = ap.parse_args()
    only = set(args.only.split(","))
    Path(args.shots).mkdir(parents=True, exist_ok=True)
    timings = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run"],
        )
        print("bundle", BUNDLE, BUNDLE.stat().st_size, "bytes")
        if "interactions" in only:
            interaction_run(browser, args.shots)
        if "injection" in only:
            injection_run(browser, args.shots)
        if "theme" in only:
            theme_shots(browser, args.shots)
        if "notebooks" in only:
            notebook_shots(browser, args.shots, args.prefix)
        if "many" in only:
            many_outputs_run(browser)
        if "noworker" in only:
            no_worker_run(browser)
        if "sizes" in only:
            runs = {}
            for r in range(args.repeat):
                for n in [int(x) for x in args.sizes.split(",") if x]:
                    one = {}
                    first = r == 0
                    size_run(browser, n, one, shots=args.shots if first and n in (1000, 5000) else None, do_delta=first and n == 5000)
                    runs.setdefault(n, []).append(one[n])
            for n, rs in runs.items():
                med = lambda key: sorted(x[key] for x in rs)[len(rs) // 2]
                timings[n] = {"first_frame_ms": med("first_frame_ms"), "settled_ms": med("settled_ms"), "wall_ms": med("wall_ms"),
                              "runs": [[x["first_frame_ms"], x["settled_ms"]] for x in rs]}
        browser.close()
    if timings:
        print("\nsize      first frame   settled     (medians of %d run(s); runs: [first frame, settled])" % args.repeat)
        for n, t in timings.items():
            print(f"{n:>6}    {t['first_frame_ms']:>7} ms   {t['settled_ms']:>7} ms   {t['runs']}")
        print("targets: 5k first frame <= 1000 ms, 10k <= 2000 ms, 50k drawn <= 10000 ms")
        print("TIMINGS " + json.dumps(timings))
    print(f"\n{len(FAILURES)} failure(s)")
    for f in FAILURES:
        print("  - " + f)
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()
