"""The time slider in real JupyterLab 4 (headless Chromium, offline): ``gestalt_nb.timeline`` at 5 moments of a history
of 1,000 nodes (950 people, 50 companies). A person steps it with its buttons, drags it with the mouse and plays it; each time the canvas shows
exactly that moment's nodes (those just gone faded, as ghosts, for one step), the moment is written on the canvas, and
a node present at two moments stands in the same place on the screen. Each step's time to sigma's next frame is
measured and printed (a measurement, not an assert: ``python -m pytest tests/test_timeline_jupyter.py -s``); the data
file's hash is the same after it all."""

from __future__ import annotations

import statistics
from contextlib import contextmanager

import nbformat
import pytest

from gestalt_nb.temporal.diff import CHANGE_COLOURS

from .jupyter_page import ARGS, CHROMIUM, SHOTS, JupyterPage, JupyterServer, contrast

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed: apt-get install -y chromium")

FIVE = ["2020-06-01", "2021-03-01", "2022-07-01", "2023-11-01", "2024-09-01"]
SETUP = """
%load_ext gestalt_nb
import hashlib, random, pathlib, json
import pandas as pd
import gestalt_nb
%gestalt create @PATH@
rnd = random.Random(11)
people, jobs = [], []
for n in range(950):
    change = f"202{rnd.randrange(0, 5)}-0{rnd.randrange(1, 10)}-01"
    people.append({"id": f"p{n}", "name": f"Person {n}", "role": "engineer", "from": "2019-01-01", "to": change})
    people.append({"id": f"p{n}", "name": f"Person {n}", "role": rnd.choice(["lead", "manager"]), "from": change, "to": None})
    start = f"20{rnd.randrange(19, 24)}-{rnd.randrange(1, 13):02d}-01"
    end = f"20{int(start[2:4]) + rnd.randrange(2, 4)}-{start[5:7]}-01"  # two years or more: at one moment at least
    jobs.append({"job": f"j{n}", "person": f"p{n}", "company": f"c{rnd.randrange(50)}", "from": start, "to": end})
companies = pd.DataFrame([{"id": f"c{n}", "name": f"Company {n}", "from": None, "to": None} for n in range(50)])
gestalt_nb.load_nodes(pd.DataFrame(people), id="id", label="Person", valid_from="from", valid_to="to")
gestalt_nb.load_nodes(companies, id="id", label="Company", valid_from="from", valid_to="to")
gestalt_nb.load_edges(pd.DataFrame(jobs), source="person", target="company", type="WORKS_AT", id="job", valid_from="from", valid_to="to")
data = next(pathlib.Path("@PATH@").rglob("data.mdb"))
digest = lambda: hashlib.sha256(data.read_bytes()).hexdigest()
before = digest()
"""
SHOW = "t = gestalt_nb.timeline('MATCH (p:Person)-[r:WORKS_AT]->(c:Company) RETURN p, r, c', {five!r}, limit=20000)\nt"
FRAMES = "print(json.dumps({'frames': [sorted(map(str, f.nodes)) for f in t.frames], 'all': len(t.subgraph.nodes), 'same': digest() == before}))"
CANVAS = "document.querySelector('[data-gestalt-canvas]')"
HOOK = "([expr]) => { const h = " + CANVAS + ".gestaltCanvas; return eval(expr); }"


def hook(page, expr):
    return page.page.evaluate(HOOK, [expr])


def wait_frame(page, frame, steps):
    """Until the slider shows ``frame`` and sigma has drawn ``steps`` steps."""
    page.page.wait_for_function(
        "([f, n]) => { const s = " + CANVAS + ".gestaltCanvas.timeline(); return s && s.frame === f && s.steps.length >= n; }",
        arg=[frame, steps], timeout=30_000)


def still(page, selector):
    """The element's box once it has stopped moving (the notebook may still be scrolling to the cells run last), and the
    element is what the mouse would reach at its middle."""
    box = None
    for _ in range(50):
        page.page.wait_for_timeout(100)
        now = page.page.locator(selector).first.bounding_box()
        hit = page.page.evaluate("([s, x, y]) => document.elementFromPoint(x, y) === document.querySelector(s)",
                                 [selector, now["x"] + now["width"] / 2, now["y"] + now["height"] / 2])
        if now == box and hit:
            return now
        box = now
    raise AssertionError(f"{selector} did not stop moving: {box}")


def check_moment(page, frames, frame, ghosts_from=None):
    """What the canvas shows is the moment ``frame``: its nodes drawn (and those gone since ``ghosts_from`` faded), every
    drawn node inside the visible canvas, the moment written on it, in sight."""
    state = hook(page, "h.timeline()")
    present = set(frames[frame])
    assert set(state["present"]) == present
    ghosts = set(state["ghosts"])
    assert ghosts == (set(frames[ghosts_from]) - present if ghosts_from is not None else set())
    positions = hook(page, "h.positions()")
    assert set(positions) == present | ghosts  # what is drawn: this moment's nodes and its ghosts, nothing else
    box = page.page.locator(".gc-sigma").first.bounding_box()
    inside = [key for key, p in positions.items() if p and 0 <= p["x"] <= box["width"] and 0 <= p["y"] <= box["height"]]
    assert len(inside) >= 0.95 * len(positions)
    ringed = set(state["ringed"])
    if ghosts_from is not None:  # new since the moment before: ringed (as are the changed), and the bar counts both marks
        assert present - set(frames[ghosts_from]) <= ringed <= present
        assert f"since {FIVE[ghosts_from]}: {len(ringed):,} new or changed (ringed), {len(ghosts):,} gone (faded)" in state["bar"], state["bar"]
    count = page.page.locator(".gc-count").first.text_content()  # the toolbar counts this moment's nodes, not all moments'
    assert count.startswith(f"{len(present):,} node") and "at this moment" in count, (count, len(present))
    for name, prefix in (("Person", "p"), ("Company", "c")):  # the legend counts this moment's nodes too (not its faded ones)
        shown = page.page.locator(f'[data-gestalt-legend="{name}"] .gc-n').first.text_content().strip()
        assert shown == f"{sum(key.startswith(prefix) for key in present):,}", (name, shown)
    label = page.page.locator("[data-gestalt-moment]").first
    assert label.is_visible() and label.text_content() == f"valid {FIVE[frame]}"
    at = label.bounding_box()
    assert box["x"] <= at["x"] and at["x"] + at["width"] <= box["x"] + box["width"] and box["y"] <= at["y"] <= box["y"] + box["height"]
    if ghosts:
        key = sorted(ghosts)[0]
        faded, normal = hook(page, f"h.nodeStyle({key!r}).color"), hook(page, f"h.nodeStyle({sorted(present)[0]!r}).color")
        assert faded != normal and brightness(faded) > brightness(normal)  # towards the white background
    return positions


@contextmanager
def notebook(name, cells, timeout):
    """JupyterLab with a notebook of ``cells``, run; yields its page once the canvas has drawn and settled."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}
    SHOTS.mkdir(parents=True, exist_ok=True)
    with JupyterServer("lab") as server:
        nbformat.write(nb, server.root / name)
        with sync_api.sync_playwright() as playwright:
            page = JupyterPage(playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS), server)
            try:
                page.open(name)
                page.run_all(timeout=timeout)
                page.page.wait_for_function("() => { const el = " + CANVAS + "; return el && el.gestaltCanvas && el.gestaltCanvas.ready; }", timeout=120_000)
                page.page.evaluate("() => " + CANVAS + ".gestaltCanvas.whenSettled()")
                yield page
                assert not page.errors, page.errors
            finally:
                page.close()


def brightness(colour):
    colour = colour.lstrip("#")
    return sum(int(colour[i:i + 2], 16) for i in (0, 2, 4))


def test_the_slider_steps_drags_and_plays_through_five_moments_in_place(tmp_path):
    cells = [SETUP.replace("@PATH@", str(tmp_path / "history")), SHOW.format(five=FIVE)]
    with notebook("slider.ipynb", cells, 400) as page:
        known = page.kernel_json(FRAMES, timeout=120)
        frames = known["frames"]
        assert known["all"] == 1000 and len({tuple(f) for f in frames}) == 5
        page.page.locator(".gc-sigma").first.scroll_into_view_if_needed()
        before = check_moment(page, frames, 0)
        page.page.screenshot(path=str(SHOTS / "timeline-0.png"))
        for frame in range(1, 5):  # the Next button, as a person clicks it
            page.page.locator('[data-gestalt-time="next"]').first.click()
            wait_frame(page, frame, frame)
            now = check_moment(page, frames, frame, ghosts_from=frame - 1)
            both = set(frames[frame - 1]) & set(frames[frame])
            assert both and all(now[key] == before[key] for key in both)  # present at both: not moved
            before = now
            if frame == 2:
                page.page.screenshot(path=str(SHOTS / "timeline-2.png"))
        page.page.screenshot(path=str(SHOTS / "timeline-4.png"))
        # the kernel's picture of what the page shows (a saved notebook's picture) follows the moment: its nodes and ghosts
        shown = set(before)
        for _ in range(10):
            reported = page.kernel_json("print(json.dumps(sorted(map(str, t.canvas.shown.nodes)) if t.canvas.shown else []))", timeout=60)
            if set(reported) == shown:
                break
        assert set(reported) == shown
        # dragged back to the start with the mouse, along the valid-time slider
        page.page.locator(".gc-sigma").first.scroll_into_view_if_needed()  # the cells run since took the page down
        slider = still(page, '[data-gestalt-slider="valid"]')
        y = slider["y"] + slider["height"] / 2
        page.page.mouse.move(slider["x"] + slider["width"] - 3, y)
        page.page.mouse.down()
        page.page.mouse.move(slider["x"] + 2, y, steps=12)
        page.page.mouse.up()
        wait_frame(page, 0, 5)
        check_moment(page, frames, 0, ghosts_from=hook(page, "h.timeline().steps.at(-2).frame"))
        page.page.locator('[data-gestalt-time="play"]').first.click()
        wait_frame(page, 1, 6)
        page.page.locator('[data-gestalt-time="play"]').first.click()  # pause
        assert hook(page, "h.timeline().playing") is False
        steps = [step["ms"] for step in hook(page, "h.timeline().steps")[1:5]]  # the four Next clicks
        print(f"\nslider steps at {known['all']:,} nodes (click to sigma's next frame): "
              f"{', '.join(f'{ms:.0f}' for ms in steps)} ms; median {statistics.median(steps):.0f} ms, max {max(steps):.0f} ms")
        # in JupyterLab Dark the bar's line and the moment's label read (screenshot timeline-dark.png, looked at)
        page.menu("Settings", "Theme", "JupyterLab Dark")
        page.page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'", timeout=15_000)
        page.pause(1.0)
        page.page.locator(".gc-sigma").first.scroll_into_view_if_needed()
        page.page.screenshot(path=str(SHOTS / "timeline-dark.png"))
        for selector in ("[data-gestalt-timeline] .gc-axis:last-of-type", "[data-gestalt-moment]"):
            assert contrast(page, selector) >= 4.5, (selector, contrast(page, selector))
        page.menu("Settings", "Theme", "JupyterLab Light")
        page.page.wait_for_function("() => document.body.dataset.jpThemeLight === 'true'", timeout=15_000)
        assert page.kernel_json(FRAMES, timeout=60)["same"]  # the data file: not a byte written

DIFF = """
%load_ext gestalt_nb
import pandas as pd
import gestalt_nb
%gestalt create @PATH@
people = pd.DataFrame({"id": ["a", "a", "b", "c", "d"], "name": ["Ada", "Ada", "Bo", "Cy", "Di"], "role": ["dev", "lead", "dev", "ops", "qa"],
                       "since": ["2020-01-01", "2022-01-01", "2020-01-01", "2023-01-01", "2020-01-01"], "until": ["2022-01-01", None, "2022-06-01", None, None]})
gestalt_nb.load_nodes(people, id="id", label="Person", valid_from="since", valid_to="until")
knows = pd.DataFrame({"id": ["ab", "ac", "ad"], "s": ["a", "a", "a"], "t": ["b", "c", "d"], "since": ["2020-01-01", "2023-02-01", "2020-01-01"], "until": ["2022-06-01", None, None]})
gestalt_nb.load_edges(knows, source="s", target="t", type="KNOWS", id="id", valid_from="since", valid_to="until")
d = gestalt_nb.diff("MATCH (p:Person) OPTIONAL MATCH (p)-[k:KNOWS]->(q:Person) RETURN p, k, q", "2021-01-01", "2024-01-01")
d
"""


def test_a_diff_shows_ghosts_relationships_by_change_a_legend_filter_and_old_to_new_and_recorded_time_has_its_slider(tmp_path):
    cells = [DIFF.replace("@PATH@", str(tmp_path / "diffed")), TWO_AXES]
    with notebook("diff.ipynb", cells, 200) as page:
        colour = {key: hook(page, f"h.nodeStyle({key!r}).color") for key in "abcd"}
        assert brightness(colour["b"]) > brightness(colour["c"]) + 100  # removed: a ghost, faded to the background
        # each change in its own colour, the same in every diff: Cy added, Ada changed, Di the same
        assert (colour["c"], colour["a"], colour["d"]) == (CHANGE_COLOURS["added"], CHANGE_COLOURS["changed"], CHANGE_COLOURS["same"]), colour
        edges = hook(page, "h.elements().edges")
        assert len({edges[key]["a"]["color"] for key in ("ab", "ac", "ad")}) == 3  # removed / added / same: three colours
        page.page.screenshot(path=str(SHOTS / "diff-ghosts.png"))
        page.page.locator('[data-gestalt-legend="removed"]').first.click()  # the legend filters by change
        assert set(hook(page, "h.positions()")) == {"a", "c", "d"}
        assert "ab" not in {key for key, edge in hook(page, "h.elements().edges").items() if not edge["a"].get("hidden")}
        page.page.locator('[data-gestalt-legend="removed"]').first.click()
        box = page.page.locator(".gc-sigma").first.bounding_box()
        at = hook(page, "h.screenPosition('a')")
        page.page.mouse.click(box["x"] + at["x"], box["y"] + at["y"])
        page.page.wait_for_function("() => document.querySelector('.gc-panel').textContent.includes('dev → lead')", timeout=10_000)
        page.page.locator("[data-gestalt-canvas]").first.screenshot(path=str(SHOTS / "diff-panel.png"))
        recorded_time_is_its_own_axis(page)


TWO_AXES = "gestalt_nb.timeline('MATCH (p:Person) RETURN p', ['2021-01-01', '2024-01-01'], known_at=['2000-01-01', '2030-01-01'])"
SECOND = "document.querySelectorAll('[data-gestalt-canvas]')[1]"


def recorded_time_is_its_own_axis(page):
    """The second canvas: valid × recorded time. Nothing was recorded by 2000; by 2030 the people valid then."""
    page.page.wait_for_function("() => { const el = " + SECOND + "; return el && el.gestaltCanvas && el.gestaltCanvas.ready; }", timeout=60_000)
    second = page.page.locator("[data-gestalt-canvas]").nth(1)
    second.scroll_into_view_if_needed()
    state = lambda: page.page.evaluate("() => " + SECOND + ".gestaltCanvas.timeline()")
    label = second.locator("[data-gestalt-moment]")
    assert state()["present"] == [] and label.text_content() == "valid 2021-01-01 · recorded 2000-01-01"
    second.locator('[data-gestalt-slider="recorded"]').focus()
    page.page.keyboard.press("ArrowRight")
    page.page.wait_for_function("() => " + SECOND + ".gestaltCanvas.timeline().known === 1", timeout=10_000)
    assert set(state()["present"]) == {"a", "b", "d"} and label.text_content() == "valid 2021-01-01 · recorded 2030-01-01"
    second.locator('[data-gestalt-time="next"]').click()
    page.page.wait_for_function("() => " + SECOND + ".gestaltCanvas.timeline().valid === 1", timeout=10_000)
    assert set(state()["present"]) == {"a", "c", "d"} and state()["ghosts"] == ["b"] and state()["known"] == 1
    assert label.is_visible() and label.text_content() == "valid 2024-01-01 · recorded 2030-01-01"
    second.screenshot(path=str(SHOTS / "timeline-two-axes.png"))
