"""What a person sees, checked in headless Chromium (Debian's), offline.

Each page is the HTML our views put in front of a browser: every tab's content (graph iframes
included, as ``srcdoc`` exactly as the widgets embed them) plus the static fallback. Every request
outside ``file:``/``data:``/``blob:`` is blocked and recorded; none may be attempted. Graph text is
hostile in the injection tests: nothing may execute, and it must show up as text.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from gestaltdb.graphdb import Edge, Node
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, HumanMessage
from langchain_gestaltdb import GestaltDBGraph, GraphDocument, GraphNode

import gestalt_nb
from gestalt_nb.agents import ScriptedChatModel, build_graph_agent, tool_call
from gestalt_nb.claims import ClaimAPI
from gestalt_nb.graph.explorer import Explorer
from gestalt_nb.views.explorer_view import ExplorerView

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed: apt-get install -y chromium (.ci/run does this)"
)
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-default-apps"]


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield instance
        instance.close()


class Visit:
    """One page load: requests attempted outside file/data/blob, console lines, dialogs."""

    def __init__(self, browser, tmp_path: Path, body: str, name: str = "page") -> None:
        path = tmp_path / f"{name}.html"
        path.write_text(f"<!doctype html><html><head><meta charset='utf-8'></head><body>{body}</body></html>", encoding="utf-8")
        self.page = browser.new_page()
        self.remote: list[str] = []
        self.local: list[str] = []
        self.console: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("console", lambda message: self.console.append(message.text))
        self.page.on("dialog", lambda dialog: (self.dialogs.append(dialog.message), dialog.dismiss()))
        self.page.route("**/*", self._route)
        self.page.goto(path.as_uri())
        self.page_url = path.as_uri()

    def _route(self, route) -> None:
        url = route.request.url
        if url.split(":", 1)[0] in ("file", "data", "blob", "about"):
            self.local.append(url)
            route.continue_()
        else:
            self.remote.append(url)
            route.abort()

    def graph_frames(self):
        return [frame for frame in self.page.frames if frame != self.page.main_frame]

    def node_counts(self) -> list[int]:
        counts = []
        for frame in self.graph_frames():
            frame.wait_for_selector("g.node, #graph", state="attached", timeout=15_000)
            counts.append(frame.evaluate(
                "() => window.gestaltNetwork ? window.gestaltNetwork.body.data.nodes.length : document.querySelectorAll('g.node').length"
            ))
        return counts

    def pwned(self) -> list:
        return [frame.evaluate("() => window.__pwned === undefined ? null : window.__pwned") for frame in self.page.frames]

    def click_every_link(self) -> None:
        for frame in self.page.frames:
            frame.evaluate("() => document.querySelectorAll('a').forEach(a => a.click())")

    def unexpected_files(self) -> list[str]:
        """file: requests other than the page itself: an injected <img src=x> would make one."""
        return [url for url in self.local if url.startswith("file:") and url != self.page_url]

    def close(self) -> None:
        self.page.close()


def page_html(page) -> str:
    """A tab page's HTML: text, an HTML widget's value, or a box's HTML children (canvases are checked
    in JupyterLab by test_canvas_browser.py)."""
    if isinstance(page, str):
        return page
    if hasattr(page, "children"):
        return "".join(page_html(child) for child in page.children)
    return getattr(page, "value", "") if isinstance(getattr(page, "value", None), str) else ""


def page_of(view) -> str:
    """What a browser gets from a view: every tab's content, then the static fallback."""
    tabs = "".join(f"<section>{page_html(make())}</section>" for _, make in view.tabs()) if hasattr(view, "tabs") else ""
    return tabs + view._repr_mimebundle_()["text/html"]


# -- rendering ------------------------------------------------------------------------
def test_views_draw_the_expected_nodes_offline(browser, tmp_path, demo):
    result = gestalt_nb.run("MATCH (p:Person)-[r:WORKS_FOR]->(c:Company) RETURN p, r, c")
    schema = gestalt_nb.schema()
    claims = ClaimAPI(demo)
    claim_id = claims.search(predicate="BASED_IN", subject="bob", valid_time="2024-01-01T00:00:00Z").df.iloc[0]["claim_id"]
    explanation = claims.explain(claim_id, valid_time="2024-01-01T00:00:00Z")
    retrieval = gestalt_nb.show_retrieval(demo.retriever(seed_ids=("alice",), hops=[{"edge_type": "KNOWS"}]), "alice")
    pyvis_view = result.show(renderer="pyvis")
    viz = {"renderer": "gestaltdb"}
    cases = [
        ("query", result.show(**viz), len(result.subgraph.nodes)),
        ("schema", schema.show(**viz), len(schema.subgraph.nodes)),
        ("explanation", explanation.show(**viz), len(explanation.subgraph.nodes)),
        ("retrieval", retrieval.show(**viz), len(retrieval.subgraph.nodes)),
        ("pyvis", pyvis_view, len(result.subgraph.nodes)),
    ]
    for name, view, expected in cases:
        visit = Visit(browser, tmp_path, page_of(view), name)
        try:
            assert visit.node_counts() == [expected], name
            assert visit.remote == [], f"{name} tried the network: {visit.remote}"
            assert visit.unexpected_files() == [], name
            assert visit.page.locator("img[src^='data:image/svg+xml']").count() == 1, name  # the static picture
            isolated = visit.graph_frames()[0].evaluate(
                "() => { try { return window.parent.document.title + ' reachable' } catch (e) { return e.name } }"
            )
            assert isolated == "SecurityError", name  # the sandboxed viewer cannot touch the notebook page
        finally:
            visit.close()


# -- injection ------------------------------------------------------------------------
PAYLOADS = [
    '<script>window.__pwned=1;console.log("PWNED")</script>',
    '<img src=x onerror="window.__pwned=2;console.log(\'PWNED\')">',
    "</script><script>window.__pwned=3</script>",
    "javascript:window.__pwned=4",
    '"><svg onload="window.__pwned=5">',
    "' onmouseover='window.__pwned=6' x='",
    '<iframe src="javascript:parent.__pwned=7"></iframe>',
    '<a href="javascript:window.__pwned=8">click me</a>',
    "\u202egnp.exe\u202c and \u200fRTL\u200e marks",
    "{{constructor.constructor('window.__pwned=9')()}}",
    "<style>body{display:none}</style>" + "y" * 5000,
]


@pytest.fixture
def hostile(shell, tmp_path):
    """A graph whose labels, keys, values, types, sources and claims all carry payloads."""
    from .conftest import run

    run(shell, f"%gestalt create {tmp_path / 'hostile'}")
    connection = gestalt_nb.connection()
    db = connection.db
    nodes = [Node("anchor", labels=["Person"], properties={"name": "anchor"})]
    for number, payload in enumerate(PAYLOADS):
        nodes.append(Node(f"n{number}", labels=["Person", payload[:60]], properties={"name": payload, payload[:40]: payload}))
    with db.transaction() as tx:
        tx.put_nodes(nodes)
        tx.put_edges_bulk(
            [Edge(f"e{number}", "anchor", f"n{number}", properties={"type": "KNOWS", "why": payload}) for number, payload in enumerate(PAYLOADS)]
            + [Edge("odd", "n0", "n1", properties={"type": PAYLOADS[1][:50], "x": PAYLOADS[2]})],
            check_existing=False,
        )
        documents = [GraphDocument(nodes=[GraphNode(id="anchor", type="Person")], source=Document(page_content=payload, id=f"s{n}")) for n, payload in enumerate(PAYLOADS)]
        GestaltDBGraph(tx).add_graph_documents(documents, include_source=True)
    connection.graph.refresh_schema()
    for payload in PAYLOADS[:4]:
        db.assert_claim(subject="anchor", predicate="SAYS", object="n0", polarity="positive", agent=payload,
                        source=payload, valid_from="2024-01-01T00:00:00Z", provenance={"note": payload})
    db.create_rule("r1", when=[("?a", "SAYS", "?b")], then=("?a", "HEARD", "?b"))
    db.run_rules(as_of="2024-06-01T00:00:00Z")
    return connection


def hostile_views(connection):
    query = gestalt_nb.run("MATCH (a:Person {name: 'anchor'})-[r:KNOWS]->(b) RETURN a, r, b, b.name AS name")
    sources = gestalt_nb.run("MATCH (s:__LangChainSource__)-[m:MENTIONS]->(a) RETURN s, m, s.page_content AS text")
    odd = gestalt_nb.run("MATCH (a {id: 'n0'})-[r]->(b) RETURN a, r, b")
    claims = ClaimAPI(connection)
    status = claims.status("anchor", "SAYS", "n0", valid_time="2024-06-01T00:00:00Z")
    derived = claims.search(predicate="HEARD", valid_time="2024-06-01T00:00:00Z")
    explanation = claims.explain(derived.df.iloc[0]["claim_id"], valid_time="2024-06-01T00:00:00Z")
    retrieval = gestalt_nb.show_retrieval(connection.retriever(seed_ids=("anchor",), hops=[{"edge_type": "KNOWS", "sample_size": 50}]), "anchor")
    model = ScriptedChatModel(responses=[tool_call("gestaltdb_query", "q", query="MATCH (a:Person {name: 'anchor'})-[r:KNOWS]->(b) RETURN a, r, b"),
                                          tool_call("gestaltdb_claim_status", "c", subject="anchor", predicate="SAYS", object="n0", valid_time="2024-06-01T00:00:00Z"),
                                          AIMessage(PAYLOADS[0])])
    state = build_graph_agent(model, connection.agent_tools()).invoke({"messages": [HumanMessage(PAYLOADS[1])]})
    explorer = Explorer(connection, sample_size=50)
    explorer.start("anchor")
    explorer.expand(types=["KNOWS"])
    explorer_view = ExplorerView(explorer)
    explorer_view.widget  # noqa: B018 - builds the widget (made on first read)
    explorer_page = explorer_view._repr_mimebundle_()["text/html"] + explorer_view.status.value
    viz = {"renderer": "gestaltdb"}
    return {
        "query": page_of(query.show(**viz)),
        "query-pyvis": page_of(query.show(renderer="pyvis")),
        "sources": page_of(sources.show(**viz)) + page_of(odd.show(**viz)),
        "schema": page_of(gestalt_nb.schema(exhaustive=True).show(**viz)),
        "claims": page_of(status.show()) + page_of(derived.show()) + page_of(explanation.show(**viz)),
        "retrieval": page_of(retrieval.show(**viz)),
        "trace": page_of(gestalt_nb.show_trace(state).show(**viz)),
        "explorer": explorer_page,
    }


def test_no_payload_executes_in_any_view_and_the_text_is_shown(browser, tmp_path, hostile):
    for name, body in hostile_views(hostile).items():
        visit = Visit(browser, tmp_path, body, name)
        try:
            visit.click_every_link()
            visit.page.mouse.move(200, 200)
            visit.page.wait_for_timeout(300)
            assert visit.pwned() == [None] * len(visit.page.frames), name
            assert not any("PWNED" in line for line in visit.console), name
            assert visit.dialogs == [] and visit.remote == [], name
            assert visit.unexpected_files() == [], f"{name}: an injected element loaded {visit.unexpected_files()}"
            shown = visit.page.inner_text("body")
            assert "<img src=x onerror=" in shown or name.startswith(("explorer", "query-pyvis")), name
        finally:
            visit.close()


def test_graph_labels_inside_the_viewer_are_text(browser, tmp_path, hostile):
    result = gestalt_nb.run("MATCH (a:Person {name: 'anchor'})-[r:KNOWS]->(b) RETURN a, r, b")
    visit = Visit(browser, tmp_path, result.show(renderer="gestaltdb").drawing.iframe(), "labels")
    try:
        assert visit.node_counts() == [len(PAYLOADS) + 1]
        labels = visit.graph_frames()[0].evaluate("() => Array.from(document.querySelectorAll('text.node-label')).map(t => t.textContent)")
        assert any(label.startswith("<img src=x onerror=") for label in labels)
        assert visit.pwned() == [None, None]
    finally:
        visit.close()


def test_pyvis_tooltips_stay_text(browser, tmp_path, hostile):
    result = gestalt_nb.run("MATCH (a:Person {name: 'anchor'})-[r:KNOWS]->(b) RETURN a, r, b")
    visit = Visit(browser, tmp_path, result.show(renderer="pyvis").drawing.iframe(), "tooltips")
    try:
        frame = visit.graph_frames()[0]
        frame.wait_for_function("() => window.gestaltNetwork !== undefined")
        titles = frame.evaluate("() => window.gestaltNetwork.body.data.nodes.get().map(n => n.title)")
        assert any(PAYLOADS[1] in title for title in titles)
        # Hover every node so vis-network builds its tooltip from each title.
        for node_id in frame.evaluate("() => window.gestaltNetwork.body.data.nodes.getIds()"):
            position = frame.evaluate(f"() => window.gestaltNetwork.canvasToDOM(window.gestaltNetwork.getPosition({json.dumps(node_id)}))")
            visit.page.mouse.move(position["x"] + 1, position["y"] + 1)
            visit.page.wait_for_timeout(30)
        assert visit.pwned() == [None, None] and visit.unexpected_files() == []
    finally:
        visit.close()


def test_an_nbconvert_export_reads_without_javascript(browser, tmp_path):
    """Executed without widget state, an HTML export shows the static fallback; no script needed."""
    import nbformat
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("%load_ext gestalt_nb"),
        nbformat.v4.new_code_cell(f"%gestalt demo {tmp_path / 'demo'}"),
        nbformat.v4.new_code_cell("%%gcypher --limit 4\nMATCH (p:Person)-[r:WORKS_FOR]->(c:Company) RETURN p, r, c"),
    ]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    NotebookClient(notebook, timeout=120, kernel_name="python3", store_widget_state=False).execute(cwd=str(tmp_path))
    body, _ = HTMLExporter().from_notebook_node(notebook)
    (tmp_path / "export.html").write_text(body, encoding="utf-8")
    page = browser.new_page(java_script_enabled=False)
    try:
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(("file:", "data:")) else route.abort())
        page.goto((tmp_path / "export.html").as_uri())
        text = page.inner_text("body")
        assert "4 rows × 3 columns" in text and "Showing 4 of more than 4 rows" in text
        assert "(alice:Person {name: \"Alice Chen\"" in text or "(carla:Person {name: \"Carla Ruiz\"" in text
        picture = page.locator("img[src^='data:image/svg+xml;base64']")
        assert picture.count() >= 1 and picture.first.evaluate("img => img.naturalWidth") > 0
    finally:
        page.close()
