"""networkx in and out, and results as plain DataFrames of nodes and relationships.

``from_networkx`` loads a graph through the same loader as DataFrames (one transaction, checked
first, all or nothing). ``to_networkx`` (in ``gestalt_nb.graph.convert``, re-exported here) turns any ``Subgraph`` (so any
result) back into a graph. networkx is imported only when called.
"""

from __future__ import annotations

from typing import Any

from ..errors import GestaltError
from ..graph.convert import networkx_module
from . import loading


def _frame(columns: dict[str, list[Any]]):
    import pandas as pd

    # object columns: ints with gaps stay ints (a float64 column would turn 3 into 3.0)
    return pd.DataFrame({name: pd.Series(items, dtype=object) for name, items in columns.items()})


def _attribute_columns(records: list[dict[str, Any]], skip: set[str]) -> dict[str, list[Any]]:
    names = list(dict.fromkeys(name for record in records for name in record if name not in skip))
    return {str(name): [record.get(name) for record in records] for name in names}


def from_networkx(
    connection: Any,
    G: Any,
    *,
    label: str | dict[Any, str] = "Node",
    type: str = "LINKS",
    label_attr: str | None = None,
    type_attr: str | None = None,
    directed: bool | None = None,
):
    """The work of :meth:`Connection.from_networkx <gestalt_nb.capabilities.Capabilities.from_networkx>`, ``connection`` first (documented there, once)."""
    nx = networkx_module()
    if not isinstance(G, nx.Graph):
        raise GestaltError(f"from_networkx needs a networkx graph, not a {G.__class__.__name__}.")
    if directed is None:
        directed = G.is_directed()
    if directed and not G.is_directed():
        G = G.to_directed()
    elif not directed and G.is_directed():
        G = G.to_undirected()
    bad = next((node for node in G.nodes if not isinstance(node, (str, int)) or isinstance(node, bool)), None)
    if bad is not None:
        raise GestaltError(
            f"Node ids must be strings or integers; {bad!r} is a {bad.__class__.__name__}. "
            "Relabel first, e.g. G = nx.convert_node_labels_to_integers(G, label_attribute='name')."
        )
    node_result = _load_nodes(connection, G, label, label_attr)
    edge_result = _load_edges(connection, G, type, type_attr)
    return node_result, edge_result


def _load_nodes(connection: Any, G: Any, label: str | dict[Any, str], label_attr: str | None):
    node_ids = list(G.nodes)
    attributes = [dict(G.nodes[node]) for node in node_ids]
    id_column = "__node__"
    nodes = _frame({id_column: node_ids, **_attribute_columns(attributes, {label_attr} if label_attr else set())})
    if label_attr is None:
        if not isinstance(label, str):
            raise GestaltError("label must be a string unless label_attr names the node attribute that holds it.")
        return loading.load_nodes(connection, nodes, id=id_column, label=label, keep_id=False)
    mapping = label if isinstance(label, dict) else {}
    fallback = label if isinstance(label, str) else None
    labels = []
    for node, attrs in zip(node_ids, attributes):
        value = attrs.get(label_attr)
        chosen = mapping.get(value, str(value) if value is not None else fallback) if mapping else (str(value) if value is not None else fallback)
        if not chosen:
            raise GestaltError(f"Node {node!r} has no '{label_attr}' attribute and no default label; pass label='Label' as the default.")
        labels.append(chosen)
    nodes["__label__"] = labels
    return loading.load_nodes(connection, nodes, id=id_column, label_column="__label__", keep_id=False)


def _load_edges(connection: Any, G: Any, type: str, type_attr: str | None):
    multigraph = G.is_multigraph()
    edge_rows = list(G.edges(keys=True, data=True)) if multigraph else [(u, v, None, d) for u, v, d in G.edges(data=True)]
    if not edge_rows:
        return None
    edge_attributes = [dict(data) for _, _, _, data in edge_rows]
    if type_attr is None and any("type" in attrs for attrs in edge_attributes):
        raise GestaltError(
            "The edges have a 'type' attribute, and GestaltDB keeps the relationship type in 'type'. "
            "Use it as the type (type_attr='type') or rename it in the graph first. Nothing was written."
        )
    columns: dict[str, list[Any]] = {"__source__": [u for u, _, _, _ in edge_rows], "__target__": [v for _, v, _, _ in edge_rows]}
    if multigraph:
        columns["__id__"] = [f"{u}|{v}|{key}" for u, v, key, _ in edge_rows]
    edges = _frame({**columns, **_attribute_columns(edge_attributes, set())})
    options: dict[str, Any] = {"type_column": type_attr} if type_attr else {"type": type}
    if type_attr and type_attr not in edges.columns:
        raise GestaltError(f"No edge has the attribute '{type_attr}' (type_attr); edge attributes: {', '.join(map(str, edges.columns[2:])) or 'none'}.")
    if type_attr and edges[type_attr].isna().any():
        edges[type_attr] = edges[type_attr].where(edges[type_attr].notna(), type)
    return loading.load_edges(connection, edges, source="__source__", target="__target__", id="__id__" if multigraph else None, **options)
