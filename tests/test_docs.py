"""The docs site builds offline from this checkout with warnings as errors, and holds what it promises:
every demo notebook executed, a reference entry for every magic and every setting, every guide in the nav.

``mkdocs build --strict`` fails on a broken internal link or anchor (mkdocs.yml's ``validation``), on a
notebook cell that raises (mkdocs-jupyter, ``allow_errors: false``) and on a page left out of the nav.
Every notebook page, served from 127.0.0.1 to headless Chromium with every other request refused and counted,
asks nothing off the machine and shows every drawing as its picture (docs/hooks.py ``offline``).
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("mkdocs_jupyter", reason="the docs site needs the test extra (mkdocs-material, mkdocs-jupyter)")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    shutil.rmtree(ROOT / ".cache" / "mkdocs-jupyter", ignore_errors=True)  # execute every notebook afresh
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})  # not --quiet: it hides the warnings strict counts
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout[-4000:]}\n{done.stderr[-6000:]}"
    return out


def test_every_notebook_is_a_page_with_its_outputs(site):
    notebooks = sorted(path.stem for path in (ROOT / "notebooks").glob("*.ipynb"))
    assert notebooks
    for name in notebooks:
        page = site / "notebooks" / name / "index.html"
        assert page.exists(), f"{name} has no page"
        outputs = page.read_text(encoding="utf-8").count('data-mime-type=')  # one per rendered output
        assert outputs >= 1, f"{name}'s page shows no executed output"


def test_reference_lists_every_magic_and_setting(site, shell):
    from gestalt_nb.magics import GestaltMagic

    magics = (site / "reference" / "magics" / "index.html").read_text(encoding="utf-8")
    ours = {name for kind in ("line", "cell") for name, function in shell.magics_manager.magics[kind].items()
            if type(getattr(function, "__self__", None)).__module__.startswith("gestalt_nb")}
    assert {"gcypher", "gestalt", "gschema", "claims"} <= ours
    for name in ours:
        assert f"%{name}</code>" in magics, f"%{name} has no reference entry"
    settings = (site / "reference" / "settings" / "index.html").read_text(encoding="utf-8")
    for name in GestaltMagic.class_traits(config=True):
        assert f"<code>{name}</code>" in settings, f"setting {name} has no reference entry"


def test_api_reference_shows_real_parameters(site):
    import gestalt_nb

    api = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    for name in gestalt_nb.__all__:
        assert f"<code>{name}</code>" in api, f"gestalt_nb.{name} has no reference entry"
    assert "Connection.run" in api


def test_every_page_is_in_the_nav():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r":\s*([\w./-]+\.(?:md|ipynb))\s*$", config, flags=re.MULTILINE))
    pages = {str(path.relative_to(ROOT / "docs")) for path in (ROOT / "docs").rglob("*.md")
             if path.relative_to(ROOT / "docs").parts[0] not in ("reference", "notebooks")}
    assert pages - listed == set(), f"pages missing from mkdocs.yml's nav: {sorted(pages - listed)}"


# Per gestalt-nb view (its picture output): is the picture shown, how many drawings (<img>/<svg>) it holds and
# how many of those are shown with a nonzero size (an <img> decoded).
PICTURES_JS = """() => Array.from(document.querySelectorAll('.jp-Cell .gestalt-picture')).map(picture => {
  const shown = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && e.checkVisibility(); };
  const drawings = Array.from(picture.querySelectorAll('img, svg'));
  return {shown: shown(picture), drawings: drawings.length,
          drawn: drawings.filter(e => shown(e) && (e.tagName !== 'IMG' || e.naturalWidth > 0)).length};
})"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def test_notebook_pages_show_every_drawing_offline(site):
    """Served from 127.0.0.1, each notebook page asks nothing else (before docs/hooks.py's ``offline``, each
    asked unpkg.com for the widget manager) and every drawing of every view shows, as its picture."""
    from .jupyter_page import CHROMIUM, SHOTS, browser

    pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed: apt-get install -y chromium")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    pages = sorted(path.parent.name for path in (site / "notebooks").glob("*/index.html"))
    found, remote = {}, []
    try:
        with browser() as chromium:
            context = chromium.new_context(viewport={"width": 1200, "height": 900}, service_workers="block")
            context.route("**/*", lambda route: route.continue_() if route.request.url.startswith((base + "/", "data:", "blob:"))
                          else (remote.append(route.request.url), route.abort()))
            page = context.new_page()
            for name in pages:
                page.goto(f"{base}/notebooks/{name}/", wait_until="load")
                page.wait_for_timeout(500)  # nbconvert's widget loader would ask after DOMContentLoaded
                found[name] = page.evaluate(PICTURES_JS)
                if name == pages[0]:
                    page.locator(".gestalt-picture").first.scroll_into_view_if_needed()
                    SHOTS.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(SHOTS / f"docs-offline-{name}.png"))
            context.close()
    finally:
        server.shutdown()
    assert len(pages) == len(list((ROOT / "notebooks").glob("*.ipynb")))
    assert remote == [], remote
    for name, views in found.items():
        print(name, [(view["drawn"], view["drawings"]) for view in views])
        assert views, f"{name}'s page shows no gestalt-nb view"
        assert all(view["shown"] and view["drawn"] == view["drawings"] for view in views), (name, views)
        assert "widget-state+json" not in (site / "notebooks" / name / "index.html").read_text(encoding="utf-8")
    assert sum(view["drawings"] for views in found.values() for view in views) >= len(pages)
