"""A ``Subgraph`` (so any result) as networkx graphs and plain DataFrames of nodes and relationships.

Ids read as the person gave them (``__lc_int__:N`` → ``N``), properties become attributes or
columns, direction and parallel relationships are kept (a ``MultiDiGraph`` unless asked otherwise).
networkx and pandas are imported only when called (start-up time).
"""

from __future__ import annotations

from typing import Any

from ..errors import GestaltError
from . import values
from .ids import as_loaded


def networkx_module():
    """networkx, or a one-line error saying how to install it (it is optional)."""
    try:
        import networkx
    except ImportError:
        raise GestaltError("This needs networkx, which is not installed: pip install networkx") from None
    return networkx



def to_networkx(subgraph: Any, *, directed: bool = True, multigraph: bool = True, labels: str | None = "labels"):
    """``subgraph`` as a networkx graph: node and edge properties as attributes, ids as given.

    Default ``MultiDiGraph`` (direction and parallel relationships kept); ``directed=False`` and/or
    ``multigraph=False`` give ``MultiGraph``/``DiGraph``/``Graph`` (parallel relationships then merge,
    the last one's attributes win). Each node's labels go in the attribute named ``labels`` (None: left out);
    each edge's relationship type is its ``type`` attribute.
    """
    nx = networkx_module()
    kind = {(True, True): nx.MultiDiGraph, (True, False): nx.DiGraph, (False, True): nx.MultiGraph, (False, False): nx.Graph}
    graph = kind[bool(directed), bool(multigraph)]()
    for node in subgraph.nodes.values():
        attrs = values.to_python(dict(node.properties))
        if labels:
            attrs[labels] = list(node.labels)
        graph.add_node(as_loaded(node.id), **attrs)
    for edge in subgraph.edges.values():
        attrs = values.to_python(dict(edge.properties))
        if edge.type:
            attrs["type"] = edge.type
        if multigraph:
            graph.add_edge(as_loaded(edge.source), as_loaded(edge.target), key=edge.id, **attrs)
        else:
            graph.add_edge(as_loaded(edge.source), as_loaded(edge.target), **attrs)
    return graph


def nodes_df(subgraph: Any):
    """One row per node: ``id`` (as given), ``labels`` (a list), then one column per property."""
    import pandas as pd

    rows = [{"id": as_loaded(node.id), "labels": list(node.labels), **values.to_python(dict(node.properties))} for node in subgraph.nodes.values()]
    names = list(dict.fromkeys(name for row in rows for name in row))
    return pd.DataFrame(rows, columns=names or ["id", "labels"])


def edges_df(subgraph: Any):
    """One row per relationship: ``id``, ``source``, ``target``, ``type``, then one column per property."""
    import pandas as pd

    rows = []
    for edge in subgraph.edges.values():
        props = {key: value for key, value in values.to_python(dict(edge.properties)).items() if key != "type"}
        rows.append({"id": edge.id, "source": as_loaded(edge.source), "target": as_loaded(edge.target), "type": edge.type, **props})
    names = list(dict.fromkeys(name for row in rows for name in row))
    return pd.DataFrame(rows, columns=names or ["id", "source", "target", "type"])


class AsGraph:
    """``to_networkx()``, ``nodes_df()`` and ``edges_df()`` for any result that has a ``.subgraph``."""

    def to_networkx(self, **options: Any):
        """What the result drew, as a networkx graph; see :func:`to_networkx`."""
        return to_networkx(self.subgraph, **options)

    def nodes_df(self):
        """The result's nodes as a DataFrame: id, labels, one column per property."""
        return nodes_df(self.subgraph)

    def edges_df(self):
        """The result's relationships as a DataFrame: id, source, target, type, one column per property."""
        return edges_df(self.subgraph)
