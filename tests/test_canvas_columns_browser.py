"""The base payload's relationships in columns (``ec``) build exactly the graph the dict-per-relationship payload
builds, in a real page (``to_html``'s document from file://, headless Chromium, offline): the same nodes and
relationships, ends, data, what sigma draws and the order they were added in, for none / some / every
relationship highlighted; and a payload whose columns do not line up adds none of them."""

from __future__ import annotations

import json
import re

import pytest

from gestalt_nb.canvas.payload import as_rows
from gestalt_nb.canvas.standalone import page as html_page
from gestalt_nb.canvas.standalone import script_json
from gestalt_nb.canvas.widget import GraphCanvas

from .jupyter_page import CHROMIUM, browser
from .test_canvas_payload import mixed_subgraph

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed: apt-get install -y chromium (.ci/run does this)")

DATA = re.compile(r'(<script type="application/json" id="gestalt-data">)(.*?)(</script>)', re.S)
HOOK = "document.querySelector('[data-gestalt-canvas]').gestaltCanvas"


def documents(marked: str, tmp_path) -> dict[str, object]:
    """The same canvas as ``to_html`` writes it (columns), and with its graph turned into dicts (``as_rows``)."""
    canvas = GraphCanvas(mixed_subgraph(marked))
    try:
        text = html_page(canvas)
    finally:
        canvas.close()
    data = json.loads(DATA.search(text).group(2))
    assert data["graph"]["ec"]["id"] and data["graph"]["edges"]  # columns, and the one relationship kept apart
    as_dicts = {**data, "graph": as_rows(data["graph"])}
    broken = {**data, "graph": {**data["graph"], "ec": {**data["graph"]["ec"], "t": data["graph"]["ec"]["t"][:-1]}}}
    paths = {}
    for name, value in (("columns", data), ("dicts", as_dicts), ("broken", broken)):
        path = tmp_path / f"{marked}-{name}.html"
        path.write_text(DATA.sub(lambda match, value=value: match.group(1) + script_json(value) + match.group(3), text), encoding="utf-8")
        paths[name] = path
    return paths


def elements(chromium, path) -> tuple[dict, list[str]]:
    context = chromium.new_context()
    errors: list[str] = []
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(("file:", "data:", "blob:", "about:")) else route.abort())
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(path.resolve().as_uri())
        page.wait_for_function("() => { const el = document.querySelector('[data-gestalt-canvas]'); return el && el.gestaltCanvas && el.gestaltCanvas.ready; }", timeout=20_000)
        page.evaluate(f"() => {HOOK}.ready")
        return page.evaluate(f"() => {HOOK}.elements()"), errors
    finally:
        context.close()


@pytest.fixture(scope="module")
def chromium():
    with browser() as instance:
        yield instance


@pytest.mark.parametrize("marked", ["none", "some", "all"])
def test_columns_build_exactly_the_graph_the_dicts_build(chromium, marked, tmp_path):
    paths = documents(marked, tmp_path)
    columns, errors = elements(chromium, paths["columns"])
    dicts, more = elements(chromium, paths["dicts"])
    assert errors == [] and more == [], (errors, more)
    assert len(columns["nodes"]) == 5 and len(columns["edges"]) == 6  # e5's end is not drawn: left out, as before
    assert columns == dicts
    kinds = {key: edge["d"]["y"] for key, edge in columns["edges"].items()}
    assert columns["edges"]["e2"]["d"]["p"]["since"] == 2001 and columns["edges"]["e6"]["d"]["w"] == 7 and len(set(kinds.values())) == 4
    lit = sorted(key for key, edge in columns["edges"].items() if edge["d"]["h"])
    assert lit == {"none": [], "some": ["e1", "e3", "e7"], "all": sorted(columns["edges"])}[marked]


def test_columns_that_do_not_line_up_add_no_relationship(chromium, tmp_path):
    broken, errors = elements(chromium, documents("some", tmp_path)["broken"])
    assert errors == [] and len(broken["nodes"]) == 5 and broken["edges"] == {}
