"""The Cypher editor (js/labextension) in real JupyterLab 4 and Notebook 7 (headless Chromium, offline).

A notebook connects to the demo graph; its %%gcypher cell is typed into: the words get Cypher's
classHighlighter classes while the Python cell beside it keeps Python; a missing `)` is underlined
by the kernel's parser (with the message the cell shows when run) and the mark goes when fixed; an
untyped relationship gets a warning mark; beside jupysql-plugin (installed with the test extra: it
puts Python or SQL into every editor) a %%sql cell stays SQL and a %%gcypher cell stays Cypher, also
after another extension rewrites the cells' types; "Format Cypher" splits a one-line 6-clause query into 6
lines with the same --explain plan; hovering a label shows its count and properties. Hostile text
typed into the cell, and a hostile label from the schema shown on hover, execute nothing and stay
text. No request leaves the local server; no console error comes from our code. Screenshots (light
and dark) go to $GESTALT_SHOTS (default: gestalt-shots in the temp folder).
"""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from pathlib import Path

import pytest

from .jupyter_page import CHROMIUM, NOTEBOOK, SHOTS, JupyterPage, JupyterServer, browser

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
pytest.importorskip("jupyterlab", reason="JupyterLab 4 is not installed (pip install 'jupyterlab>=4')")
pytest.importorskip("notebook", reason="Notebook 7 is not installed (pip install 'notebook>=7,<8')")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed: apt-get install -y chromium")

FRONTENDS = [name for name in os.environ.get("GESTALT_FRONTENDS", "lab,notebook").split(",") if name]
HOSTILE_LABEL = '<img src=x onerror="window.__pwned=1">'
SETUP = (
    "%load_ext gestalt_nb\n%gestalt demo demo_graph\n"
    "%config GestaltMagic.rewrite_untyped = False\n"  # untyped patterns as written: the warning mark is what is tested
    "from gestaltdb.graphdb import Node as _Node\nimport gestalt_nb as _g\n"
    f"with _g.connection().db.transaction() as _tx:\n    _tx.put_nodes([_Node('hostile', labels=[{HOSTILE_LABEL!r}], properties={{'name': 'x'}})])\n"
    "_g.connection().graph.refresh_schema()"
)
PYTHON_CELL = "x = 'MATCH (n)'  # a Python string\ndef f(n):\n    return n + 42"
SQL_CELL = "%%sql\nSELECT name FROM people WHERE age > 42 LIMIT 5 -- a note"
SIX_CLAUSES = ("match (a:Person)-[:KNOWS]->(b:Person) where a.name <> 'x' with a, count(b) as friends "
               "order by friends desc limit 5 return a.name as name, friends")

CODE_CELLS = f"{NOTEBOOK} .jp-Cell.jp-CodeCell"
TOKENS_JS = """(n) => Array.from(document.querySelectorAll('""" + CODE_CELLS + """')[n].querySelectorAll('.cm-content .cm-line span'))
  .map(span => [span.textContent, span.className])"""
SOURCE_JS = """(n) => Array.from(document.querySelectorAll('""" + CODE_CELLS + """')[n].querySelectorAll('.cm-content .cm-line'))
  .map(line => line.textContent).join('\\n')"""


def editor_notebook(root: Path) -> str:
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(SETUP), nbformat.v4.new_code_cell("%%gcypher --explain\nMATCH (n) RETURN n LIMIT 1"),
                      nbformat.v4.new_code_cell(PYTHON_CELL), nbformat.v4.new_code_cell(SQL_CELL)]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, str(root / "editor.ipynb"))
    return "editor.ipynb"


def ours(page: JupyterPage) -> list[str]:
    marks = ("gestalt", "gcypher", "labextension", "lint", "codemirror")
    lines = [f"{line['text']} @ {line['url']}" for line in page.console_errors()]
    return [line for line in lines + page.errors if any(mark in line.lower() for mark in marks)]


@pytest.fixture(scope="module")
def chromium():
    with browser() as instance:
        yield instance


class ExposedServer(JupyterServer):
    """A server whose page keeps the app as ``window.jupyterapp`` (to rewrite a cell's type as an extension would)."""

    def command(self) -> list[str]:
        return super().command() + ["--LabServerApp.expose_app_in_browser=True"]


@contextmanager
def editor_page(frontend: str, chromium):
    server = ExposedServer(frontend).start()
    name = editor_notebook(server.root)
    page = JupyterPage(chromium, server)
    page.open(name)
    page.run_all(timeout=120)
    page.frontend = frontend
    yield page
    assert page.page.evaluate("() => window.__pwned === undefined"), "hostile text executed in the page"
    page.close()
    server.cleanup()


@pytest.fixture(scope="module", params=FRONTENDS)
def editor(request, chromium):
    with editor_page(request.param, chromium) as page:
        yield page


@pytest.fixture(params=FRONTENDS)
def lone_editor(request, chromium):
    """A page and kernel of its own, for a test that shuts its kernel down: the module's other tests share one page,
    and in a shuffled order they would come after it without a kernel."""
    with editor_page(request.param, chromium) as page:
        yield page


def cell(page: JupyterPage, n: int):
    return page.page.locator(CODE_CELLS).nth(n)


def type_into(page: JupyterPage, n: int, text: str, last: str = "") -> None:
    """Replace the n-th code cell's text: ``text`` pasted in one input, then ``last`` typed key by key."""
    focus(page, n)
    page.page.keyboard.press("Control+a")
    page.page.keyboard.insert_text(text)
    if last:
        page.page.keyboard.type(last)


def focus(page: JupyterPage, n: int) -> None:
    """Click into the n-th code cell's editor and wait until it has the keyboard (on a busy machine the click's focus
    can come after the next key, which then goes to the notebook instead)."""
    cell(page, n).locator(".cm-content").click()
    page.page.wait_for_function("(n) => document.querySelectorAll('" + CODE_CELLS + "')[n].querySelector('.cm-editor.cm-focused') !== null",
                                arg=n, timeout=15_000)


def token_classes(page: JupyterPage, n: int) -> dict[str, str]:
    return {text: classes for text, classes in page.page.evaluate(TOKENS_JS, n)}


def wait_mark(page: JupyterPage, n: int, kind: str, timeout: float = 15.0):  # the kernel's answer, on a busy machine
    selector = f".cm-lintRange-{kind}"
    mark = cell(page, n).locator(selector).first
    mark.wait_for(state="attached", timeout=timeout * 1000)
    return mark


def lint_message(page: JupyterPage, mark) -> str:
    mark.hover()
    tip = page.page.locator(".cm-tooltip-lint .cm-diagnostic").first
    tip.wait_for(timeout=15_000)
    text = tip.inner_text()
    page.page.mouse.move(5, 5)
    return text


def shot(page: JupyterPage, n: int, name: str, through: int | None = None) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"editor-{page.frontend}-{name}.png"
    cell(page, n).scroll_into_view_if_needed()
    page.pause(0.2)
    top, bottom = cell(page, n).bounding_box(), cell(page, through if through is not None else n + 1).bounding_box()
    height = min(bottom["y"] + bottom["height"] - top["y"] + 90, 700)  # room for a tooltip below
    page.page.screenshot(path=str(path), clip={"x": top["x"], "y": max(top["y"] - 60, 0), "width": top["width"], "height": height + 60})
    return path


def test_cypher_cell_gets_cypher_classes_and_python_keeps_python(editor):
    page = editor
    query = "MATCH (n:Person {name: 'Ada'})-[r:KNOWS]->(m) // a note\nWHERE n.born > 1900 RETURN m.name, $who LIMIT 42"
    type_into(page, 1, "%%gcypher --limit 5\n" + query)
    page.page.wait_for_function("(n) => document.querySelectorAll('" + CODE_CELLS + "')[n].querySelector('.tok-typeName')", arg=1)
    classes = token_classes(page, 1)
    expected = {"MATCH": "tok-keyword", "WHERE": "tok-keyword", "RETURN": "tok-keyword", "LIMIT": "tok-keyword",
                "Person": "tok-typeName", "KNOWS": "tok-typeName", "'Ada'": "tok-string", "42": "tok-number",
                "// a note": "tok-comment", "born": "tok-propertyName", "n": "tok-variableName", "m": "tok-variableName"}
    for word, name in expected.items():
        assert name in classes.get(word, ""), f"{page.frontend}: {word!r} has {classes.get(word)!r}, not {name}"
    assert "tok-variableName" in classes.get("$who", "")
    assert not any("tok-keyword" in found for text, found in classes.items() if text.startswith("%%gcypher")), classes
    python = token_classes(page, 2)
    assert python and not any("tok-" in found for found in python.values()), f"the Python cell got Cypher classes: {python}"
    assert python.get("def") and python.get("'MATCH (n)'"), f"the Python cell lost Python highlighting: {python}"
    # changing the first line switches either way
    type_into(page, 1, "print('MATCH')\n" + query)
    page.page.wait_for_function("(n) => !document.querySelectorAll('" + CODE_CELLS + "')[n].querySelector('.tok-typeName')", arg=1)
    type_into(page, 2, "%gcypher MATCH (p:Person) RETURN p")
    page.page.wait_for_function("(n) => document.querySelectorAll('" + CODE_CELLS + "')[n].querySelector('.tok-typeName')", arg=2)
    line = token_classes(page, 2)
    assert "tok-keyword" in line["MATCH"] and "tok-typeName" in line["Person"]
    type_into(page, 2, PYTHON_CELL)
    page.page.wait_for_function("(n) => !document.querySelectorAll('" + CODE_CELLS + "')[n].querySelector('[class*=tok-]')", arg=2)
    type_into(page, 1, "%%gcypher --limit 5\n" + query)
    page.page.wait_for_function("(n) => document.querySelectorAll('" + CODE_CELLS + "')[n].querySelector('.tok-typeName')", arg=1)
    cell(page, 2).locator(".cm-content").click()
    print(f"\n{page.frontend}: light → {shot(page, 1, 'light')}")
    assert ours(page) == [] and page.remote == []


MIME_TYPES_JS = """(pairs) => {
  const cells = window.jupyterapp.shell.currentWidget.content.model.cells;
  for (const [i, type] of pairs) cells.get(i).mimeType = type;
  return Array.from({length: cells.length}, (_, i) => cells.get(i).mimeType);
}"""


def test_beside_jupysql_sql_stays_sql_python_stays_python_and_cypher_stays_cypher(editor):
    import jupysql_plugin  # noqa: F401  (the test extra installs it: this test is about living beside it)

    page = editor
    type_into(page, 2, PYTHON_CELL + "  # a note\nok = 1 if x else None")
    type_into(page, 3, SQL_CELL)
    type_into(page, 1, "%%gcypher\nMATCH (n:Person RETURN n.name", " ")
    wait_mark(page, 1, "error")  # linted by the kernel
    assert "tok-typeName" in token_classes(page, 1).get("Person", "")

    def sql_is_sql() -> None:
        python, sql = token_classes(page, 2), token_classes(page, 3)
        keyword, comment = python["if"], python["# a note"]  # the theme's classes for a keyword, a comment
        assert [sql.get(word) for word in ("SELECT", "FROM", "WHERE", "LIMIT")] == [keyword] * 4, sql
        assert sql.get("-- a note") == comment, sql
        assert not any("tok-" in found for found in [*python.values(), *sql.values()]), (python, sql)

    sql_is_sql()
    # another extension gives the cells its types: ours comes back on the %%gcypher cell, theirs stays on %%sql
    types = page.page.evaluate(MIME_TYPES_JS, [[1, "text/x-ipython"], [3, "text/x-sql"]])
    page.pause(0.5)
    types = page.page.evaluate(MIME_TYPES_JS, [])
    assert types[1] == "text/x-gcypher" and types[3] == "text/x-sql" and types[2] != "text/x-gcypher", types
    type_into(page, 1, "%%gcypher\nMATCH (a:Person)-[r]->(b) RETURN a.name", " ")
    assert "-[r]->" in wait_mark(page, 1, "warning").inner_text()
    type_into(page, 3, SQL_CELL + "\n")
    page.pause(0.5)
    sql_is_sql()
    assert page.page.evaluate(MIME_TYPES_JS, [])[3] == "text/x-sql"
    cell(page, 3).locator(".cm-content").click()
    print(f"\n{page.frontend}: %%gcypher beside %%sql → {shot(page, 1, 'beside-sql', through=3)}")
    assert ours(page) == [] and page.remote == []


def test_missing_paren_is_underlined_with_the_cells_message_then_cleared(editor):
    page = editor
    type_into(page, 1, "%%gcypher\nMATCH (n:Person RETURN n.name", " ")
    mark = wait_mark(page, 1, "error")
    assert mark.inner_text().startswith("(")  # at the ( never closed
    message = lint_message(page, mark)
    page.page.keyboard.press("Control+Enter")  # run it: the cell's own error (nothing runs: it does not parse)
    output = cell(page, 1).locator(".jp-OutputArea-output").first
    output.wait_for(timeout=30_000)
    page.wait_kernel_idle(timeout=30)
    shown = cell(page, 1).locator(".jp-OutputArea").inner_text()
    assert message.splitlines()[0] in shown and "line 1, column 7" in message, (message, shown)
    cell(page, 1).locator(".cm-content").click()
    page.page.keyboard.press("Control+End")
    page.page.keyboard.press("Control+a")
    page.page.keyboard.insert_text("%%gcypher\nMATCH (n:Person) RETURN n.name")
    page.page.keyboard.type(" ")
    cell(page, 1).locator(".cm-lintRange-error").first.wait_for(state="detached", timeout=15_000)
    page.pause(0.6)
    assert cell(page, 1).locator(".cm-lintRange").count() == 0  # a valid query shows nothing
    assert ours(page) == [] and page.remote == []


def test_untyped_relationship_gets_a_warning(editor):
    page = editor
    type_into(page, 1, "%%gcypher\nMATCH (a:Person)-[r]->(b) RETURN a.name, b.name", " ")
    mark = wait_mark(page, 1, "warning")
    assert "-[r]->" in mark.inner_text()
    assert "untyped relationship" in lint_message(page, mark)
    print(f"\n{page.frontend}: warning → {shot(page, 1, 'warning')}")


def test_format_cypher_gives_six_lines_and_the_same_plan(editor):
    page = editor
    type_into(page, 1, "%%gcypher\n" + SIX_CLAUSES)
    if page.frontend == "lab":  # the command is in the palette ...
        page.page.keyboard.press("Control+Shift+c")
        page.page.keyboard.type("Format Cypher")
        assert page.page.locator(".lm-CommandPalette-item", has_text="Format Cypher").count() >= 1
        page.page.keyboard.press("Escape")
    cell(page, 1).locator(".cm-content").click(button="right")  # ... and the cell's context menu
    assert page.page.locator(".lm-Menu-item", has_text="Format Cypher").count() >= 1
    page.page.keyboard.press("Escape")
    focus(page, 1)
    page.page.keyboard.press("Shift+Alt+F")  # ... and a shortcut
    page.page.wait_for_function("(n) => document.querySelectorAll('" + CODE_CELLS + "')[n].querySelectorAll('.cm-line').length === 7", arg=1,
                                timeout=30_000)  # the kernel answers Format Cypher (it waits up to 15 s on a busy machine)
    formatted = page.page.evaluate(SOURCE_JS, 1)
    lines = formatted.split("\n")[1:]
    assert [line.split()[0] for line in lines] == ["MATCH", "WHERE", "WITH", "ORDER", "LIMIT", "RETURN"], lines
    plans = page.kernel_json(
        "import json\nfrom gestalt_nb.cypher.explain import explain as _explain\n"
        f"_a, _b = _explain(_g.connection(), {SIX_CLAUSES!r}), _explain(_g.connection(), {formatted.split(chr(10), 1)[1]!r})\n"
        "print(json.dumps([_a.tree == _b.tree, _a.columns == _b.columns, len(_a.tree)]))")
    assert plans[:2] == [True, True] and plans[2] > 3


def test_hover_shows_count_and_properties_as_text(editor):
    page = editor
    type_into(page, 1, f"%%gcypher\nMATCH (n:Person)-[r:KNOWS]->(h:`{HOSTILE_LABEL}`) RETURN n")
    label = cell(page, 1).locator(".tok-typeName", has_text="Person").first
    label.wait_for()
    label.hover()
    tip = page.page.locator(".gestalt-hover").first
    tip.wait_for(timeout=15_000)
    assert ":Person (label) — 6 nodes; properties:" in tip.inner_text() and "name" in tip.inner_text()
    page.page.mouse.move(5, 5)
    tip.wait_for(state="detached", timeout=15_000)
    hostile = cell(page, 1).locator(".tok-typeName", has_text="onerror").first
    hostile.hover()
    tip.wait_for(timeout=15_000)
    assert HOSTILE_LABEL in tip.inner_text()
    assert page.page.locator(".gestalt-hover *").count() == 0  # text only: no element made from the name
    print(f"\n{page.frontend}: hover → {shot(page, 1, 'hover')}")
    page.page.mouse.move(5, 5)
    assert page.page.evaluate("() => window.__pwned === undefined")


def test_injection_corpus_typed_executes_nothing(editor):
    from .test_browser import PAYLOADS

    page = editor
    for payload in PAYLOADS:
        text = payload.replace("`", "'")[:300]
        query = f"%%gcypher\n// {text}\nMATCH (n:`{text}` {{name: '{text}'}}) RETURN n /* {text} */"
        type_into(page, 1, query, " ")
        page.pause(0.4)
        assert page.page.evaluate("() => window.__pwned === undefined"), payload
        made = page.page.evaluate("(n) => document.querySelectorAll('" + CODE_CELLS + "')[n].querySelectorAll('.cm-content img:not(.cm-widgetBuffer), .cm-content script, .cm-content iframe, .cm-content svg, .cm-content a').length", 1)
        assert made == 0, payload
    assert ours(page) == [] and page.remote == []


def test_dark_theme_screenshot(editor):
    page = editor
    type_into(page, 1, "%%gcypher\nMATCH (a:Person)-[r]->(b) // untyped\nWHERE a.name STARTS WITH 'A' RETURN a.name, b, $p LIMIT 3", " ")
    wait_mark(page, 1, "warning")
    page.menu("Settings", "Theme", "JupyterLab Dark")
    page.page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'", timeout=15_000)
    page.pause(0.5)
    colours = page.page.evaluate("(n) => Object.fromEntries(['tok-keyword', 'tok-typeName', 'tok-string', 'tok-comment'].map(c => [c, getComputedStyle(document.querySelectorAll('" + CODE_CELLS + "')[n].querySelector('.' + c)).color]))", 1)
    print(f"\n{page.frontend}: dark {json.dumps(colours)} → {shot(page, 1, 'dark')}")
    assert len(set(colours.values())) >= 3  # keywords, names, strings and comments told apart
    page.menu("Settings", "Theme", "JupyterLab Light")
    page.page.wait_for_function("() => document.body.dataset.jpThemeLight === 'true'", timeout=15_000)
    assert ours(page) == [] and page.remote == []


def test_a_busy_kernel_gives_no_marks_and_no_waiting(editor):
    page = editor
    type_into(page, 2, "import time\ntime.sleep(4)")
    page.page.keyboard.press("Control+Enter")
    page.page.wait_for_function("(n) => document.querySelectorAll('" + CODE_CELLS + "')[n].querySelector('.jp-InputPrompt').textContent.includes('*')", arg=2)
    started = page.page.evaluate("() => performance.now()")
    type_into(page, 1, "%%gcypher\nMATCH (n:Person RETURN n", " ")
    typed = page.page.evaluate("(t) => performance.now() - t", started)
    page.pause(1.0)
    assert page.kernel_state() == "busy" and cell(page, 1).locator(".cm-lintRange").count() == 0
    assert typed < 2000  # typing never waits for the kernel
    page.wait_kernel_idle(timeout=30)
    type_into(page, 2, PYTHON_CELL)
    assert ours(page) == []


def test_no_kernel_gives_no_marks_and_no_errors(lone_editor):
    page = lone_editor
    page.close_notebook()  # the kernel is shut down; the page stays
    page.pause(1.0)
    type_into(page, 1, "%%gcypher\nMATCH (a:Person)-[r]->(b RETURN a", " ")
    page.pause(1.5)
    assert cell(page, 1).locator(".cm-lintRange").count() == 0
    assert "tok-typeName" in token_classes(page, 1).get("Person", "")  # highlighting needs no kernel
    assert ours(page) == [] and page.remote == []  # (Notebook 7 itself throws on the deleted session: not ours)
