"""The public calls, by area: everything a magic does, as a plain Python call on the current (or named) connection.

``opening`` (connections and the last result), ``querying`` (Cypher, schema, neighbourhoods, paths, live
results), ``time`` (one read at several moments, with a slider), ``loading`` (DataFrames, networkx, graph documents), ``drawing`` (views, the overview, the explorer)
and ``asking`` (the planner and GraphRAG). ``gestalt_nb/__init__.py`` names each call lazily from its module;
``from gestalt_nb.api import run`` works too. A call that forwards to a capability writes that capability's own
parameters out in its signature, plus ``alias``, so ``help()``, ``inspect.signature``, Shift+Tab and a type
checker show them; ``tests/test_signatures.py`` checks they are the capability's.
"""

from .asking import answer, extract, ingest_graph_documents, plan, set_planner_model
from .drawing import explore, overview, show, show_retrieval, show_trace
from .loading import from_networkx, load_edges, load_graph_documents, load_nodes
from .opening import connect, connection, create, demo, last_result, use
from .querying import diff, explain, live, query_history, query_subgraph, run, saved_snippets, schema, shortest_path
from .time import timeline

__all__ = [
    "answer", "connect", "connection", "create", "demo", "diff", "explain", "explore", "extract", "from_networkx",
    "ingest_graph_documents", "last_result", "live", "load_edges", "load_graph_documents", "load_nodes", "overview", "plan",
    "query_history", "query_subgraph", "run", "saved_snippets", "schema", "set_planner_model", "shortest_path",
    "show", "show_retrieval", "show_trace", "timeline", "use",
]
