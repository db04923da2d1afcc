"""gestalt-nb: explore embedded GestaltDB graphs in Jupyter.

``%load_ext gestalt_nb`` registers ``%gestalt`` and ``%%gcypher``. Everything a magic does is
also a plain call here: ``connect``/``create``/``demo``/``use`` open connections, ``run`` queries
the current one, ``show`` draws any result or ``Subgraph``.
"""

from __future__ import annotations

from typing import Any

from . import display
from .errors import GestaltError, GestaltWarning
from .options import settings
from .render import render
from .cypher.result import QueryResult
from .session import REGISTRY, Connection
from .graph.subgraph import Edge, Node, Subgraph

__all__ = [
    "Connection",
    "answer",
    "extract",
    "ingest_graph_documents",
    "Edge",
    "GestaltError",
    "GestaltWarning",
    "Node",
    "QueryResult",
    "Subgraph",
    "connect",
    "connection",
    "create",
    "demo",
    "explain",
    "explore",
    "from_networkx",
    "last_result",
    "load_edges",
    "load_graph_documents",
    "load_ipython_extension",
    "query_history",
    "live",
    "load_nodes",
    "plan",
    "query_subgraph",
    "render",
    "run",
    "saved_snippets",
    "schema",
    "settings",
    "shortest_path",
    "show",
    "show_retrieval",
    "set_planner_model",
    "show_trace",
    "use",
]
__version__ = "0.1.0"


def _load_views() -> None:
    from . import views  # noqa: F401 - registers every result's view in display.VIEWS


display.load_views = _load_views


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
    from .cypher import history  # deferred: import gestalt_nb stays light

    connection = REGISTRY.get(alias)
    try:
        result = connection.run(query, params, **options)
    except GestaltError as exc:
        history.record_failure(connection.alias, query, exc, write=bool(options.get("write")))
        raise
    history.record(result)
    REGISTRY.last_result = result
    return result


def explain(query: str, params: dict[str, Any] | None = None, *, alias: str | None = None, **options: Any):
    """The plan, the LIMIT gestalt-nb would add and slow-shape warnings, without running (``--explain``)."""
    from .cypher.explain import explain as _explain  # deferred: import gestalt_nb stays light

    return _explain(REGISTRY.get(alias), query, params, **options)


def query_history(last: int | None = None):
    """This kernel's queries as a DataFrame (``%ghistory``)."""
    from .cypher import history as _history  # deferred: import gestalt_nb stays light

    return _history.frame(last)


def saved_snippets():
    """The saved query snippets as a DataFrame (``%gsnippets``)."""
    from .cypher import snippets as _snippets  # deferred: import gestalt_nb stays light

    return _snippets.frame()


def schema(alias: str | None = None, **options: Any):
    """The schema sample of the current (or named) connection (``%gschema``)."""
    return REGISTRY.get(alias).schema(**options)


def explore(node_id: str | None = None, *, alias: str | None = None, node_budget: int = 200, sample_size: int = 10):
    """The neighbourhood explorer widget (``%gexplore``); its ``.explorer`` holds the state."""
    from .graph.explorer import Explorer  # deferred: import gestalt_nb stays light
    from .views.explorer_view import ExplorerView  # deferred: import gestalt_nb stays light

    explorer = Explorer(REGISTRY.get(alias), node_budget=node_budget, sample_size=sample_size)
    if node_id is not None:
        explorer.start(node_id)
    return ExplorerView(explorer)


def live(query: str, params: dict[str, Any] | None = None, *, alias: str | None = None, **options: Any):
    """A read query kept open: re-run on each change-feed event, the canvas updated in place (``%%gcypher --live``).

    Options: ``limit``, ``debounce`` (seconds, default 0.3), ``max_wait`` (default 2). ``.stop()`` ends it.
    """
    from .feed.live import Live  # deferred: import gestalt_nb stays light

    result = Live(REGISTRY.get(alias), query, params, **options)
    REGISTRY.last_result = result
    return result


def plan(question: str, model: Any = None, *, alias: str | None = None, **options: Any):
    """A checked ``QueryPlan`` for a question in words (``%%gask``); ``.execute()`` runs it through ``query_subgraph``.

    ``model`` is a LangChain chat model (default: the one given to ``set_planner_model``). Options:
    ``timeout`` (seconds, default 30), ``allow_cypher`` (default True). See :mod:`gestalt_nb.agents.planner`.
    """
    from .agents import planner  # deferred: import gestalt_nb stays light

    chosen = model if model is not None else planner.DEFAULT_MODEL.get("model")
    if chosen is None:
        raise GestaltError("Say which chat model plans: gestalt_nb.plan(question, model), %%gask --model VAR, or gestalt_nb.set_planner_model(model).")
    result = planner.plan(question, chosen, connection=REGISTRY.get(alias), **options)
    REGISTRY.last_result = result
    return result


def extract(
    documents: Any,
    model: Any,
    *,
    allowed_node_types: list[str] | None = None,
    allowed_relationship_types: list[Any] | None = None,
    validate: str = "warn",
    examples: Any = None,
    prompt: str | None = None,
    ingest: bool = True,
    alias: str | None = None,
    **options: Any,
):
    """Extract a graph from LangChain Documents with a chat model and write it, linked to its sources (GraphRAG).

    Returns an ``ExtractionResult`` (``graph_documents``, ``dropped``, ``merges``). ``validate="error"``
    raises before anything is written. Options: ``batch_size``, ``max_document_chars``.
    See :mod:`gestalt_nb.graphrag.extraction`.
    """
    from .graphrag import extraction  # deferred: import gestalt_nb stays light

    result = extraction.extract(
        REGISTRY.get(alias), documents, model, allowed_node_types=allowed_node_types,
        allowed_relationship_types=allowed_relationship_types, validate=validate, examples=examples,
        prompt=prompt, ingest=ingest, **options,
    )
    REGISTRY.last_result = result
    return result


def ingest_graph_documents(graph_documents: Any, *, alias: str | None = None, **options: Any):
    """Write graph documents made elsewhere (e.g. LangChain's ``LLMGraphTransformer``) the way ``extract`` does."""
    from .graphrag import extraction  # deferred: import gestalt_nb stays light

    result = extraction.ingest(REGISTRY.get(alias), graph_documents, **options)
    REGISTRY.last_result = result
    return result


def answer(question: str, model: Any, *, max_depth: int = 2, alias: str | None = None, **options: Any):
    """Answer a question from the graph (GraphRAG): names → seeds → ``query_subgraph`` → bounded context → model.

    Returns an ``Answer`` (``answer``, ``names``, ``seeds``, ``context``, ``subgraph``, ``sources``).
    See :mod:`gestalt_nb.graphrag.answering` for the options and bounds.
    """
    from .graphrag import answering  # deferred: import gestalt_nb stays light

    result = answering.answer(REGISTRY.get(alias), question, model, max_depth=max_depth, **options)
    REGISTRY.last_result = result
    return result


def set_planner_model(model: Any) -> None:
    """The chat model ``plan`` and ``%%gask`` use when none is named."""
    from .agents import planner  # deferred: import gestalt_nb stays light

    planner.DEFAULT_MODEL["model"] = model


def query_subgraph(
    entities: Any = None,
    relations: Any = None,
    min_confidence: float = 0.0,
    max_hops: int = 1,
    *,
    alias: str | None = None,
    **options: Any,
):
    """The bounded neighbourhood of named entities on the current (or named) connection (``%gsubgraph``).

    See :func:`gestalt_nb.graph.neighbourhood.query_subgraph` for the options and guarantees.
    """
    result = REGISTRY.get(alias).subgraph(entities, relations, min_confidence, max_hops, **options)
    REGISTRY.last_result = result
    return result


def show_retrieval(retriever: Any, query: str):
    """Run any ``GestaltDBRetriever`` and return its retrieval (drawn paths, documents table)."""
    from .graph.retrieval import retrieve  # deferred: import gestalt_nb stays light
    from .session import Connection as _Connection  # deferred: import gestalt_nb stays light

    connection = next((c for c in REGISTRY.connections.values() if c.graph is retriever.graph), None)
    connection = connection or _Connection("retriever", retriever.graph, owned=False)
    result = retrieve(connection, retriever, query)
    REGISTRY.last_result = result
    return result


def load_nodes(df: Any, *, alias: str | None = None, **options: Any):
    """Load a DataFrame as nodes in one transaction (``%gload nodes``); see ``gestalt_nb.data.loading``."""
    from .data import loading  # deferred: import gestalt_nb stays light

    return loading.load_nodes(REGISTRY.get(alias), df, **options)


def load_edges(df: Any, *, alias: str | None = None, **options: Any):
    """Load a DataFrame as relationships in one transaction (``%gload edges``)."""
    from .data import loading  # deferred: import gestalt_nb stays light

    return loading.load_edges(REGISTRY.get(alias), df, **options)


def from_networkx(G: Any, *, alias: str | None = None, **options: Any):
    """Load a networkx graph into the current (or named) connection; returns (nodes, relationships) LoadResults.

    Options: ``label``, ``type``, ``label_attr``, ``type_attr``, ``directed``; see ``gestalt_nb.data.networkx_io``.
    """
    from .data.networkx_io import from_networkx as load  # deferred: import gestalt_nb stays light

    return load(REGISTRY.get(alias), G, **options)


def shortest_path(a: Any, b: Any, *, alias: str | None = None, **options: Any) -> QueryResult:
    """The shortest path from ``a`` to ``b`` on the current (or named) connection, as a drawable result.

    Options: ``types`` (a list; default every type), ``max_hops`` (default: as deep as the graph), ``direction`` ("both", "out", "in"),
    ``all_shortest``. See ``gestalt_nb.cypher.paths``.
    """
    result = REGISTRY.get(alias).shortest_path(a, b, **options)
    REGISTRY.last_result = result
    return result


def load_graph_documents(documents: Any, *, include_source: bool = False, alias: str | None = None):
    """The adapter's ``add_graph_documents`` inside one transaction: all or nothing, and fast."""
    from .data import loading  # deferred: import gestalt_nb stays light

    return loading.load_graph_documents(REGISTRY.get(alias), documents, include_source=include_source)


def show_trace(messages_or_state: Any):
    """The steps of an agent run — tool calls, answers, refusals — and one graph of all it touched."""
    from .agents.trace import trace  # deferred: import gestalt_nb stays light

    return trace(messages_or_state)


def last_result() -> QueryResult | None:
    """The most recent result of ``%%gcypher`` or ``run``."""
    return REGISTRY.last_result


def show(value: Any, **options: Any):
    """The view of a result (``QueryResult``) or a bare ``Subgraph``; options override settings."""
    from .display import view_for  # deferred: import gestalt_nb stays light

    if hasattr(value, "show"):
        return value.show(**options)
    return view_for(value, **options)


def load_ipython_extension(shell: Any) -> None:
    """``%load_ext gestalt_nb``: the magics, their settings, the Cypher completer and the cell hooks."""
    from .magics import register  # deferred: import gestalt_nb stays light

    register(shell)


def unload_ipython_extension(shell: Any) -> None:
    """Connections stay open; they close at interpreter exit or with %gestalt close."""
