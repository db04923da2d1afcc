"""The optional second renderer, built on pyvis (``pip install 'gestalt-nb[pyvis]'``).

Simpler and slower than the default: vis-network's physics takes far longer to settle on large
graphs. pyvis's own HTML template links Bootstrap (and, outside ``in_line``, vis-network) from a
CDN, so only pyvis's network model is used here; the page is our own: vis-network inlined from
pyvis's package files, a CSP that forbids every network request, graph data embedded as JSON with
``<`` escaped, and tooltips as plain strings (vis-network shows string titles as text).
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from ..errors import GestaltError
from ..graph.bookkeeping import legend_label
from ..graph.subgraph import Subgraph
from ..graph.values import display_properties
from ..options import Settings
from ..shorten import shorten
from .captions import caption

_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; connect-src 'none';"


def _assets() -> tuple[str, str]:
    try:
        import pyvis
    except ImportError as exc:
        raise GestaltError(
            "The pyvis renderer needs the optional extra: pip install 'gestalt-nb[pyvis]'. "
            "Or use the default renderer (--renderer canvas)."
        ) from exc
    lib = Path(pyvis.__file__).parent / "templates" / "lib" / "vis-9.1.2"
    return (lib / "vis-network.min.js").read_text(encoding="utf-8"), (lib / "vis-network.css").read_text(encoding="utf-8")


def _tooltip(title: str, properties: dict[str, Any]) -> str:
    lines = [title] + [f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in properties.items()]
    text = "\n".join(lines)
    return shorten(text, 2000)


def _script_json(value: Any) -> str:
    """JSON safe inside <script>: no '<' (so no '</script>' or '<!--') can end the element."""
    return json.dumps(value, ensure_ascii=True).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def document(subgraph: Subgraph, options: Settings) -> str:
    from pyvis.network import Network

    script, style = _assets()
    net = Network(directed=True, height=f"{options.graph_height}px", width="100%")
    for node in subgraph.nodes.values():
        properties = display_properties(node.properties)
        label = caption(node.id, properties, options.caption_property)
        net.add_node(
            node.id,
            label=shorten(label, 40),
            title=_tooltip(f"{node.id} :{':'.join(node.labels)}", properties),
            group=legend_label(node.labels, subgraph.asked),
            borderWidth=4 if node.id in subgraph.highlight_nodes else 1,
        )
    for edge in subgraph.edges.values():
        net.add_edge(
            edge.source,
            edge.target,
            id=edge.id,
            label=edge.type,
            title=_tooltip(f"{edge.id} :{edge.type}", display_properties(edge.properties)),
            width=3 if edge.id in subgraph.highlight_edges else 1,
        )
    nodes, edges, *_ = net.get_network_data()
    vis_options = {
        "physics": {"stabilization": {"iterations": 200}},
        "edges": {"arrows": {"to": {"enabled": True}}, "font": {"size": 10}},
        "interaction": {"hover": True},
    }
    title = html.escape(subgraph.title or "GestaltDB graph", quote=True)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<title>{title}</title>
<style>{style}</style>
<style>html,body{{margin:0;height:100%;font-family:sans-serif}}#graph{{width:100%;height:{int(options.graph_height)}px}}</style>
</head><body>
<div id="graph" data-renderer="pyvis"></div>
<script>{script}</script>
<script>
(function () {{
  var data = {{nodes: new vis.DataSet({_script_json(nodes)}), edges: new vis.DataSet({_script_json(edges)})}};
  window.gestaltNetwork = new vis.Network(document.getElementById("graph"), data, {_script_json(vis_options)});
}})();
</script>
</body></html>
"""
