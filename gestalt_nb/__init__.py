"""gestalt-nb: explore embedded GestaltDB graphs in Jupyter.

``%load_ext gestalt_nb`` registers the magics (``%gestalt``, ``%%gcypher``, …). Everything a magic
does is also a plain call here: ``connect``/``create``/``demo``/``use`` open connections, ``run``
queries the current one, ``show`` draws any result or ``Subgraph``.

Importing the package loads neither GestaltDB nor LangChain nor pandas: each public name below is
imported from its module on first use (:data:`_NAMES`, PEP 562), so ``%load_ext`` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import display
from .checks import checked
from .deferred import lazy_module_names
from .errors import GestaltError, GestaltWarning
from .options import settings
from .render import render  # light, and it must be the function: the submodule of that name would shadow a lazy one

__version__ = "0.1.0"

#: Each public name and the module (under gestalt_nb) it is imported from on first use.
_NAMES = {
    **dict.fromkeys(["Connection"], "session"),
    **dict.fromkeys(["QueryResult"], "cypher.result"),
    **dict.fromkeys(["Edge", "Node", "Subgraph"], "graph.subgraph"),
    **dict.fromkeys(["connect", "connection", "create", "demo", "last_result", "use"], "api.opening"),
    **dict.fromkeys(["diff", "explain", "live", "query_history", "query_subgraph", "run", "saved_snippets", "schema", "shortest_path"], "api.querying"),
    **dict.fromkeys(["timeline"], "api.time"),
    **dict.fromkeys(["from_networkx", "load_edges", "load_graph_documents", "load_nodes", "one_history_commit"], "api.loading"),
    **dict.fromkeys(["explore", "overview", "show", "show_retrieval", "show_trace"], "api.drawing"),
    **dict.fromkeys(["answer", "extract", "ingest_graph_documents", "plan", "set_planner_model"], "api.asking"),
}

__all__ = sorted([*_NAMES, "GestaltError", "GestaltWarning", "render", "settings", "load_ipython_extension"], key=str.lower)

__getattr__, __dir__ = lazy_module_names(globals(), _NAMES, wrap=checked)  # every public call's arguments checked (checks.py)

if TYPE_CHECKING:  # what editors and type checkers see; at run time each loads on first use
    from .api.asking import answer, extract, ingest_graph_documents, plan, set_planner_model
    from .api.drawing import explore, overview, show, show_retrieval, show_trace
    from .api.loading import from_networkx, load_edges, load_graph_documents, load_nodes, one_history_commit
    from .api.opening import connect, connection, create, demo, last_result, use
    from .api.querying import diff, explain, live, query_history, query_subgraph, run, saved_snippets, schema, shortest_path
    from .api.time import timeline
    from .cypher.result import QueryResult
    from .graph.subgraph import Edge, Node, Subgraph
    from .session import Connection


def _load_views() -> None:
    from . import views  # deferred: registers every result's view in display.VIEWS on the first display


display.load_views = _load_views


def load_ipython_extension(shell: Any) -> None:
    """Register gestalt-nb in an IPython shell (what ``%load_ext gestalt_nb`` calls): the magics, their settings,
    the Cypher completer and the cell hooks. Loading it twice registers nothing twice.

    Parameters
    ----------
    shell : IPython.core.interactiveshell.InteractiveShell
        The shell to register in (``get_ipython()`` in a notebook).

    Examples
    --------
    >>> gestalt_nb.load_ipython_extension(get_ipython())  # the same as %load_ext gestalt_nb
    """
    from .magics import register  # deferred: import gestalt_nb stays light

    register(shell)


def unload_ipython_extension(shell: Any) -> None:
    """Connections stay open; they close at interpreter exit or with %gestalt close."""
