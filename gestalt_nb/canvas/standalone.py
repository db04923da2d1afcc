"""``canvas.to_html(path)``: one self-contained HTML file with the same canvas, for a browser from disk.

The canvas's bundle and the drawing's payload are inlined; a small module script stands in for the
widget model (no kernel: nothing expands, the rest — zoom, search, panel, legend, PNG/SVG — works).
A Content-Security-Policy forbids every network request. Graph text stays text: the payload is JSON
in a ``<script type="application/json">`` with ``<``, ``>`` and ``&`` written as ``\\u003c`` etc.
(so nothing in it can close the element), the bundle rides base64-encoded, the title is escaped, and
the canvas puts strings into the page only through ``textContent``.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any

from ..errors import GestaltError
from . import bundle
from .payload import Vocabulary, compact_json, payload

CSP = ("default-src 'none'; script-src 'unsafe-inline' blob:; worker-src blob:; style-src 'unsafe-inline'; "
       "img-src data: blob:; connect-src 'none'; font-src 'none'; form-action 'none'; base-uri 'none'")

BOOT = r"""
const data = JSON.parse(document.getElementById("gestalt-data").textContent);
const state = {graph: data.graph, graph_gz: null, selected: [], height: data.height, revision: 0,
               settings: {expandable: false, caption: data.caption}};
const listeners = {};
const model = {
  get: (key) => state[key],
  set: (key, value) => { state[key] = value; },
  save_changes() {},
  send() {},
  on(name, fn) { (listeners[name] = listeners[name] || []).push(fn); },
  off(name, fn) { listeners[name] = (listeners[name] || []).filter((f) => f !== fn); },
};
const text = atob(document.getElementById("gestalt-bundle").textContent.trim());
const bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
const url = URL.createObjectURL(new Blob([bytes], {type: "text/javascript"}));
const el = document.getElementById("graph");
try {
  const mod = await import(url);
  mod.render({model, el});
} catch (error) {
  el.textContent = "The graph canvas could not load: " + ((error && error.message) || error);
} finally {
  URL.revokeObjectURL(url);
}
"""


def script_json(value: Any) -> str:
    """JSON that is safe inside a ``<script>`` element: no ``<``, ``>``, ``&`` or line separators appear raw."""
    text = compact_json(value).decode("utf-8")
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(raw, escaped)
    return text


def page(canvas: Any) -> str:
    """The HTML document of what ``canvas`` draws now (nodes added by expansions included), with its
    colours, sizes, layout and filter and, once a page has shown it, the nodes where that page put them."""
    subgraph = canvas.subgraph
    counts = canvas._counts if canvas._counts and canvas._counts.get("nodes", 0) >= len(subgraph.nodes) else None
    graph = {**payload(subgraph, Vocabulary(), canvas.caption_property, counts=counts), "view": canvas.view_state}
    if canvas.shown is not None:  # the page's arrangement (graph coordinates: y grows upward)
        graph["at"] = {node_id: [x, -y] for node_id, (x, y, _radius, _colour) in canvas.shown.nodes.items()}
    data = {
        "graph": graph,
        "height": canvas.height,
        "caption": canvas.caption_property,
    }
    title = html.escape(subgraph.title or "GestaltDB graph")
    code = base64.b64encode(bundle.code().encode("utf-8")).decode("ascii")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{title}</title>"
        "<style>body{margin:0;padding:12px;font-family:system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif}"
        "h1{font-size:15px;font-weight:600;margin:0 0 8px}</style></head><body>"
        f"<h1>{title}</h1><div id=\"graph\"></div>\n"
        f"<script type=\"application/json\" id=\"gestalt-data\">{script_json(data)}</script>\n"
        f"<script type=\"text/plain\" id=\"gestalt-bundle\">{code}</script>\n"
        f"<script type=\"module\">{BOOT}</script>\n</body></html>\n"
    )


def write(canvas: Any, path: str | Path | None = None) -> str:
    """The document; also written to ``path`` (UTF-8) when given."""
    document = page(canvas)
    if path is not None:
        try:
            Path(path).write_text(document, encoding="utf-8")
        except OSError as exc:
            raise GestaltError(f"Cannot write {path}: {exc.strerror or exc}. Check that its folder exists and can be written.") from exc
    return document
