"""gestalt-nb: explore embedded GestaltDB graphs in Jupyter.

``%load_ext gestalt_nb`` registers ``%gestalt`` and ``%%gcypher``. Everything a magic does is
also a plain call here: ``connect``/``create``/``demo``/``use`` open connections, ``run`` queries
the current one, ``show`` draws any result or ``Subgraph``.
"""

from __future__ import annotations

from typing import Any

from .errors import GestaltError
from .options import settings
from .render import render
from .result import QueryResult
from .session import REGISTRY, Connection
from .subgraph import Edge, Node, Subgraph

__all__ = [
    "Connection",
    "Edge",
    "GestaltError",
    "Node",
    "QueryResult",
    "Subgraph",
    "connect",
    "connection",
    "create",
    "demo",
    "explore",
    "last_result",
    "load_edges",
    "load_graph_documents",
    "load_ipython_extension",
    "load_nodes",
    "render",
    "run",
    "schema",
    "settings",
    "show",
    "show_retrieval",
    "show_trace",
    "use",
]
__version__ = "0.1.0"


def connect(path: str, *, alias: str | None = None, map_size: int | str | None = None) -> Connection:
    """Open an existing database directory and make it current (``%gestalt open``)."""
    return REGISTRY.open(path, alias=alias, map_size=map_size)


def create(path: str, *, backend: str = "lmdb", alias: str | None = None, map_size: int | str | None = None) -> Connection:
    """Create a new database directory and make it current (``%gestalt create``)."""
    return REGISTRY.create(path, backend=backend, alias=alias, map_size=map_size)


def demo(path: str | None = None, *, alias: str | None = None) -> Connection:
    """Open the bundled demo graph, building it first if needed (``%gestalt demo``)."""
    return REGISTRY.demo(path, alias=alias)


def use(graph: Any, *, alias: str = "graph") -> Connection:
    """Borrow a ``GestaltDBGraph`` or ``GraphDB`` you already hold (``%gestalt use``)."""
    return REGISTRY.use(graph, alias=alias)


def connection(alias: str | None = None) -> Connection:
    """The named connection, or the current one."""
    return REGISTRY.get(alias)


def run(query: str, params: dict[str, Any] | None = None, *, alias: str | None = None, **options: Any) -> QueryResult:
    """Run Cypher on the current (or named) connection, exactly as ``%%gcypher`` does."""
    result = REGISTRY.get(alias).run(query, params, **options)
    REGISTRY.last_result = result
    return result


def schema(alias: str | None = None, **options: Any):
    """The schema sample of the current (or named) connection (``%gschema``)."""
    return REGISTRY.get(alias).schema(**options)


def explore(node_id: str | None = None, *, alias: str | None = None, node_budget: int = 200, sample_size: int = 10):
    """The neighbourhood explorer widget (``%gexplore``); its ``.explorer`` holds the state."""
    from .explorer import Explorer
    from .views.explorer_view import ExplorerView

    explorer = Explorer(REGISTRY.get(alias), node_budget=node_budget, sample_size=sample_size)
    if node_id is not None:
        explorer.start(node_id)
    return ExplorerView(explorer)


def show_retrieval(retriever: Any, query: str):
    """Run any ``GestaltDBRetriever`` and return its retrieval (drawn paths, documents table)."""
    from .retrieval import retrieve
    from .session import Connection as _Connection

    connection = next((c for c in REGISTRY.connections.values() if c.graph is retriever.graph), None)
    connection = connection or _Connection("retriever", retriever.graph, owned=False)
    result = retrieve(connection, retriever, query)
    REGISTRY.last_result = result
    return result


def load_nodes(df: Any, *, alias: str | None = None, **options: Any):
    """Load a DataFrame as nodes in one transaction (``%gload nodes``); see ``gestalt_nb.loading``."""
    from . import loading

    return loading.load_nodes(REGISTRY.get(alias), df, **options)


def load_edges(df: Any, *, alias: str | None = None, **options: Any):
    """Load a DataFrame as relationships in one transaction (``%gload edges``)."""
    from . import loading

    return loading.load_edges(REGISTRY.get(alias), df, **options)


def load_graph_documents(documents: Any, *, include_source: bool = False, alias: str | None = None):
    """The adapter's ``add_graph_documents`` inside one transaction: all or nothing, and fast."""
    from . import loading

    return loading.load_graph_documents(REGISTRY.get(alias), documents, include_source=include_source)


def show_trace(messages_or_state: Any):
    """The steps of an agent run — tool calls, answers, refusals — and one graph of all it touched."""
    from .trace import trace

    return trace(messages_or_state)


def last_result() -> QueryResult | None:
    """The most recent result of ``%%gcypher`` or ``run``."""
    return REGISTRY.last_result


def show(value: Any, **options: Any):
    """The view of a result (``QueryResult``) or a bare ``Subgraph``; options override settings."""
    if isinstance(value, Subgraph):
        from .views.graph_view import GraphView

        return GraphView(value, **options)
    if hasattr(value, "show"):
        return value.show(**options)
    raise TypeError(f"Nothing to show for a {type(value).__name__}; pass a result or a Subgraph.")


class _Loaded(set):
    """IPython's set of loaded extensions, in which gestalt_nb never counts as loaded.

    Loading gestalt_nb is idempotent (the magics and their settings are kept), so a notebook run
    again in the same kernel loads it again silently instead of printing "already loaded".
    """

    def __contains__(self, item: object) -> bool:
        return item != __name__ and super().__contains__(item)


def load_ipython_extension(shell: Any) -> None:
    from .budget import guard_interrupts
    from .magics import GestaltMagic

    manager = getattr(shell, "extension_manager", None)
    if manager is not None and type(manager.loaded) is set:
        manager.loaded = _Loaded(manager.loaded)
    if guard_interrupts not in shell.events.callbacks["pre_run_cell"]:
        shell.events.register("pre_run_cell", guard_interrupts)
    if any(isinstance(item, GestaltMagic) for item in shell.configurables):
        return  # already registered: keep the magics and whatever %config set
    magics = GestaltMagic(shell=shell)
    shell.register_magics(magics)
    shell.configurables.append(magics)


def unload_ipython_extension(shell: Any) -> None:
    """Connections stay open; they close at interpreter exit or with %gestalt close."""
