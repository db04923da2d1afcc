"""The canvas in a real ``marimo run`` app (examples/marimo_app.py) in headless Chromium, offline.

``marimo run`` serves the example on 127.0.0.1; every request a page makes elsewhere is refused and
recorded. Every browser session draws both canvases (``mo.ui.anywidget(result.canvas)`` and
``gestalt_nb.show(result)``): the first tab, a second tab and a reload of the first (a model shared
per process left later sessions at "Loading the graph canvas…"). A click reaches Python: the cell
that reads ``canvas.value["selected"]`` re-runs and names the node. A double-click draws the node's
neighbours from the database. Screenshots go to $GESTALT_SHOTS (default: gestalt-shots in the temp folder).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from .jupyter_page import ARGS, CHROMIUM, SHOTS, free_port

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
pytest.importorskip("marimo", reason="marimo is not installed (pip install -e '.[test]')")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed: apt-get install -y chromium")

APP = Path(__file__).resolve().parents[1] / "examples" / "marimo_app.py"
CANVASES_JS = """() => {
  const found = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.hasAttribute('data-gestalt-canvas')) found.push(el);
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document);
  return found;
}"""
DRAWN_JS = f"""() => ({CANVASES_JS})().map((el) => {{
  try {{ return el.gestaltCanvas ? el.gestaltCanvas.nodesDrawn() : -1; }} catch (e) {{ return -1; }}
}})"""
NODE_AT_JS = f"""([n, id]) => {{
  const el = ({CANVASES_JS})()[n];
  const h = el.gestaltCanvas;
  const surface = (h.canvas && h.canvas()) || el.querySelector('canvas');
  const box = surface.getBoundingClientRect();
  const p = h.screenPosition(id);
  return p && {{x: box.left + p.x, y: box.top + p.y}};
}}"""
IDS_JS = f"""(n) => {{ const h = ({CANVASES_JS})()[n].gestaltCanvas; return h.nodeIds ? h.nodeIds() : null; }}"""


@pytest.fixture(scope="module")
def app():
    scratch = Path(tempfile.mkdtemp(prefix="gestalt-marimo-"))
    env = {**os.environ, "HOME": str(scratch), "XDG_CONFIG_HOME": str(scratch / "config"), "XDG_CACHE_HOME": str(scratch / "cache"),
           "XDG_STATE_HOME": str(scratch / "state"), "MARIMO_SKIP_UPDATE_CHECK": "1", "PYTHONUNBUFFERED": "1"}
    port = free_port()
    log = open(scratch / "marimo.log", "wb")
    process = subprocess.Popen([sys.executable, "-m", "marimo", "run", str(APP), "--headless", "--no-token", "--host", "127.0.0.1",
                                "--port", str(port)], env=env, cwd=str(scratch), stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"marimo run exited ({process.returncode}): {(scratch / 'marimo.log').read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            time.sleep(0.3)
    else:
        process.kill()
        raise RuntimeError("marimo run did not answer within 60 s")
    yield url
    process.terminate()
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)
    log.close()


@pytest.fixture(scope="module")
def context(app):
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        context = chromium.new_context(viewport={"width": 1200, "height": 1000})
        context.remote = []
        context.errors = []

        def route(request_route):
            url = request_route.request.url
            if url.startswith(("http://127.0.0.1", "ws://127.0.0.1", "blob:", "data:")):
                request_route.continue_()
            else:
                context.remote.append(url)
                request_route.abort()

        context.route("**/*", route)
        yield context
        context.close()
        chromium.close()


def open_page(context, url: str):
    page = context.new_page()
    page.on("pageerror", lambda error: context.errors.append(str(error)))
    page.goto(url)
    return page


def wait_drawn(page, count: int = 2, timeout: float = 60) -> list[int]:
    """The nodes drawn by each canvas, once ``count`` canvases each drew some."""
    deadline = time.monotonic() + timeout
    drawn: list[int] = []
    while time.monotonic() < deadline:
        drawn = page.evaluate(DRAWN_JS)
        if len(drawn) >= count and all(number > 0 for number in drawn[:count]):
            return drawn
        page.wait_for_timeout(300)
    text = page.evaluate("() => document.body.innerText")[:1500]
    raise AssertionError(f"canvases drawn: {drawn} after {timeout} s; the page says: {text}")


def shot(page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"marimo-{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def node_spot(page, n: int, node_id: str) -> dict:
    spot = page.evaluate(NODE_AT_JS, [n, node_id])
    assert spot, f"{node_id} is not drawn on canvas {n}"
    return spot


def test_every_browser_session_draws_both_canvases(app, context):
    first = open_page(context, app)
    drawn = wait_drawn(first)
    assert drawn[0] == 6 and drawn[1] >= 4, drawn  # the demo's KNOWS people; WORKS_FOR people and companies
    second = open_page(context, app)  # a second tab: its own marimo session
    assert wait_drawn(second)[:2] == drawn[:2]
    first.reload()  # and the first again, as a new session
    assert wait_drawn(first)[:2] == drawn[:2]
    print(f"\nmarimo: 3 sessions drew {drawn[:2]} nodes → {shot(second, 'second-session')}")
    shown = second.evaluate_handle(f"() => ({CANVASES_JS})()[1]").as_element()  # gestalt_nb.show(result)
    shown.scroll_into_view_if_needed()
    second.wait_for_timeout(1500)
    assert second.evaluate(f"() => ({CANVASES_JS})()[1].gestaltCanvas.nodesInView()") == drawn[1], "every node in view"
    SHOTS.mkdir(parents=True, exist_ok=True)
    shown.screenshot(path=str(SHOTS / "marimo-show.png"))
    second.close()
    first.close()
    assert context.remote == [] and context.errors == [], (context.remote, context.errors)


def test_a_click_reaches_python_and_a_double_click_expands(app, context):
    page = open_page(context, app)
    drawn = wait_drawn(page)
    page.wait_for_timeout(1500)  # let the layout settle a little before clicking
    spot = node_spot(page, 0, "alice")
    page.mouse.click(spot["x"], spot["y"])
    page.get_by_text("Selected: alice").first.wait_for(timeout=20_000)  # the cell reading canvas.value re-ran
    assert "Alice Chen" in page.evaluate("() => document.body.innerText")
    spot = node_spot(page, 0, "alice")
    page.mouse.dblclick(spot["x"], spot["y"])
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and page.evaluate(DRAWN_JS)[0] <= drawn[0]:
        page.wait_for_timeout(300)
    after = page.evaluate(DRAWN_JS)[0]
    assert after > drawn[0], f"double-click drew nothing new: {drawn[0]} → {after}"
    print(f"\nmarimo: click → selection cell re-ran; double-click {drawn[0]} → {after} nodes → {shot(page, 'clicked-expanded')}")
    page.close()
    assert context.remote == [] and context.errors == [], (context.remote, context.errors)
