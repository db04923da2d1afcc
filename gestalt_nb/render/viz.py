"""The default renderer: GestaltDB's own offline viewer (``gestaltdb.viz``).

Its document carries its bundle inline, a CSP that forbids network access, and embeds graph data
as JSON with ``</`` escaped; labels and properties are drawn as text.
"""

from __future__ import annotations

from gestaltdb.viz.api import VizFigure, VizOptions
from gestaltdb.viz.ir import VizGraph

from ..graph.subgraph import Subgraph
from ..graph.values import display_properties
from ..options import Settings


def figure(subgraph: Subgraph, options: Settings) -> VizFigure:
    """A ``VizFigure`` for an already-capped subgraph (viz's own caps never drop anything here)."""
    nodes = [
        {"id": node.id, "labels": list(node.labels), "properties": display_properties(node.properties)}
        for node in subgraph.nodes.values()
    ]
    edges = []
    for edge in subgraph.edges.values():
        properties = dict(display_properties(edge.properties))  # a copy: the type is added below
        if edge.type:
            properties["type"] = edge.type
        edges.append({"id": edge.id, "source": edge.source, "target": edge.target, "properties": properties})
    node_cap, edge_cap = max(len(nodes), 1), max(len(edges), 1)
    viz = VizGraph.from_nodes_edges(
        nodes,
        edges,
        max_nodes=node_cap,
        max_edges=edge_cap,
        absolute_max_nodes=node_cap,
        absolute_max_edges=edge_cap,
        highlight_nodes=sorted(subgraph.highlight_nodes, key=str),
        highlight_edges=sorted(subgraph.highlight_edges),
        meta={"notes": list(subgraph.notes)},
    )
    viz_options = VizOptions(
        max_nodes=node_cap,
        max_edges=edge_cap,
        height=options.graph_height,
        title=subgraph.title or "GestaltDB graph",
        node_label_property=options.caption_property,
    )
    return VizFigure(viz=viz, options=viz_options)
