"""The public calls: everything a magic does, as a plain Python call on the current (or named) connection.

``gestalt_nb/__init__.py`` names these lazily (this module imports the engine's side normally, so
it loads on the first call, not at ``import gestalt_nb``). A call that forwards to a capability has
that capability's own parameters in its signature (:func:`_signature_of`), plus ``alias``, so
``help()``, ``inspect.signature`` and Shift+Tab show them; nothing is restated here.
"""

from __future__ import annotations

import inspect
from typing import Any

from . import display
from .agents import planner
from .agents.trace import trace
from .cypher import explain as _explain
from .cypher import history, paths, query, snippets
from .cypher.result import QueryResult
from .data import loading, networkx_io
from .errors import GestaltError
from .feed.live import Live
from .graph import neighbourhood
from .graph import schema as _schema
from .graph.explorer import Explorer
from .graph.retrieval import retrieve
from .graphrag import answering, extraction
from .grouped import build as _overview
from .options import setting_keywords
from .session import REGISTRY, Connection
from .views.explorer_view import ExplorerView

_ALIAS = inspect.Parameter("alias", inspect.Parameter.KEYWORD_ONLY, default=None, annotation="str | None")


def _signature_of(target: Any, *, drop: tuple[str, ...] = ("self", "connection"), defaults: dict[str, Any] | None = None):
    """Give the decorated call ``target``'s parameters (less ``drop``, with ``defaults`` replaced) and ``alias``."""

    def decorate(function: Any) -> Any:
        found = inspect.signature(target)
        kept = [p.replace(default=(defaults or {}).get(p.name, p.default)) for p in found.parameters.values() if p.name not in drop]
        tail = [p for p in kept if p.kind is inspect.Parameter.VAR_KEYWORD]
        head = [p for p in kept if p.kind is not inspect.Parameter.VAR_KEYWORD]
        function.__signature__ = found.replace(parameters=[*head, _ALIAS, *tail])
        return function

    return decorate


def _kept(result: Any) -> Any:
    REGISTRY.last_result = result
    return result


def connect(path: str, *, alias: str | None = None, map_size: int | str | None = None, read_only: bool = False,
            index_names: bool = False) -> Connection:
    """Open an existing database directory and make it current (``%gestalt open``); opening writes nothing to it.

    Parameters
    ----------
    path : str
        The database directory (the one holding its manifest).
    alias : str, optional
        The connection's name (``%gestalt switch NAME``); the directory's name by default.
    map_size : int or str, optional
        LMDB's map size, e.g. ``"8GiB"`` (default ``settings.map_size``); LMDB does not keep it, so it is passed on every open.
    read_only : bool, default False
        Open through LMDB's read-only mode (``--read-only``: a read-only file system works).
    index_names : bool, default False
        Build the case-insensitive name index in it if missing (``--index-names``); else names are matched in memory.

    Examples
    --------
    >>> conn = gestalt_nb.connect("graphs/people", read_only=True)
    """
    return REGISTRY.open(path, alias=alias, map_size=map_size, read_only=read_only, index_names=index_names)


def create(path: str, *, backend: str = "lmdb", alias: str | None = None, map_size: int | str | None = None) -> Connection:
    """Create a new database directory and make it current (``%gestalt create``).

    Parameters
    ----------
    path : str
        The directory to create (it must not hold a database yet).
    backend : str, default "lmdb"
        GestaltDB's storage backend; LMDB is the embedded default.
    alias : str, optional
        The connection's name (``%gestalt switch NAME``); the directory's name by default.
    map_size : int or str, optional
        LMDB's map size, e.g. ``"8GiB"`` (default ``settings.map_size``); LMDB does not keep it, so it is passed on every open.

    Examples
    --------
    >>> conn = gestalt_nb.create("graphs/people")
    """
    return REGISTRY.create(path, backend=backend, alias=alias, map_size=map_size)


def demo(path: str | None = None, *, alias: str | None = None) -> Connection:
    """Open the bundled demo graph, building it first if needed (``%gestalt demo``).

    Parameters
    ----------
    path : str, optional
        Where to build (or find) it; a scratch directory by default.
    alias : str, optional
        The connection's name; ``"demo"`` by default.

    Examples
    --------
    >>> conn = gestalt_nb.demo()
    """
    return REGISTRY.demo(path, alias=alias)


def use(graph: Any, *, alias: str = "graph") -> Connection:
    """Borrow a ``GestaltDBGraph`` or ``GraphDB`` you already hold (``%gestalt use``); it is never closed here.

    Parameters
    ----------
    graph : GestaltDBGraph or GraphDB
        The graph to work on.
    alias : str, default "graph"
        The connection's name.

    Examples
    --------
    >>> conn = gestalt_nb.use(graph, alias="mine")
    """
    return REGISTRY.use(graph, alias=alias)


def connection(alias: str | None = None) -> Connection:
    """The named connection, or the current one.

    Parameters
    ----------
    alias : str, optional
        The connection's name; the current one by default.

    Examples
    --------
    >>> gestalt_nb.connection().info()
    """
    return REGISTRY.get(alias)


@_signature_of(query.run)
def run(query: str, params: dict[str, Any] | None = None, *, alias: str | None = None, **options: Any) -> QueryResult:
    """Run Cypher on the current (or named) connection, exactly as ``%%gcypher`` does.

    Parameters
    ----------
    query : str
        The Cypher text; integer ids may be written as loaded (``{id: 0}``).
    params : dict, optional
        Values for the query's ``$name`` parameters.
    write : bool, default False
        Allow a query that writes; without it a write is refused before anything runs.
    limit : int, optional
        At most this many rows are kept (default ``settings.row_limit``); ``truncated`` says whether more existed.
    timeout : float, optional
        Seconds the read may take (default ``settings.timeout``); past it the read stops and says so.
    memory_limit : int or str, optional
        Memory the process may gain meanwhile, e.g. ``"2GiB"`` (default ``settings.memory_limit``).
    budget : Budget, optional
        ``timeout`` and ``memory_limit`` at once (what agent tools pass).
    alias : str, optional
        The connection to query; the current one by default.

    Returns
    -------
    QueryResult
        The rows (``.df``), what they hold as a drawable ``.subgraph``, and notes; it displays as its view.

    Examples
    --------
    >>> result = gestalt_nb.run("MATCH (p:Person {name: $name}) RETURN p", {"name": "Alice Chen"})
    >>> result.df
    """
    chosen = REGISTRY.get(alias)
    try:
        result = chosen.run(query, params, **options)
    except GestaltError as exc:
        history.record_failure(chosen.alias, query, exc, write=bool(options.get("write")))
        raise
    history.record(result)
    return _kept(result)


@_signature_of(_explain.explain)
def explain(query: str, params: dict[str, Any] | None = None, *, alias: str | None = None, **options: Any):
    """The plan, the LIMIT gestalt-nb would add and slow-shape warnings, without running (``--explain``)."""
    return _explain.explain(REGISTRY.get(alias), query, params, **options)


def query_history(last: int | None = None):
    """This kernel's queries as a DataFrame (``%ghistory``)."""
    return history.frame(last)


def saved_snippets():
    """The saved query snippets as a DataFrame (``%gsnippets``)."""
    return snippets.frame()


@_signature_of(_schema.schema)
def schema(*, alias: str | None = None, **options: Any):
    """The schema sample of the current (or named) connection (``%gschema``)."""
    return _schema.schema(REGISTRY.get(alias), **options)


@_signature_of(_overview.overview)
def overview(by: str = "community", *, alias: str | None = None, **options: Any):
    """The whole graph seen as groups — communities, label sets or property values — drawn as super-nodes
    you drill into on the canvas (``%goverview``); see :func:`gestalt_nb.grouped.build.overview`."""
    return _kept(_overview.overview(REGISTRY.get(alias), by, **options))


def explore(node_id: str | int | None = None, *, alias: str | None = None, node_budget: int = 200, sample_size: int = 10):
    """The neighbourhood explorer widget (``%gexplore``); its ``.explorer`` holds the state."""
    explorer = Explorer(REGISTRY.get(alias), node_budget=node_budget, sample_size=sample_size)
    if node_id is not None:
        explorer.start(node_id)
    return ExplorerView(explorer)


@_signature_of(Live.__init__)
def live(query: str, params: dict[str, Any] | None = None, *, alias: str | None = None, **options: Any):
    """A read query kept open: re-run on each change-feed event, the canvas updated in place (``%%gcypher --live``).

    ``debounce`` and ``max_wait`` are seconds; ``.stop()`` ends it.
    """
    return _kept(Live(REGISTRY.get(alias), query, params, **options))


@_signature_of(planner.plan, defaults={"model": None})
def plan(question: str, model: Any = None, *, alias: str | None = None, **options: Any):
    """A checked ``QueryPlan`` for a question in words (``%%gask``); ``.execute()`` runs it through ``query_subgraph``.

    ``model`` is a LangChain chat model (default: the one given to ``set_planner_model``).
    """
    return _kept(planner.plan(question, planner.chosen_model(model), connection=REGISTRY.get(alias), **options))


def set_planner_model(model: Any) -> None:
    """The chat model ``plan`` and ``%%gask`` use when none is named."""
    planner.DEFAULT_MODEL["model"] = model


@_signature_of(extraction.extract)
def extract(documents: Any, model: Any, *, alias: str | None = None, **options: Any):
    """Extract a graph from LangChain Documents with a chat model and write it, linked to its sources (GraphRAG).

    Returns an ``ExtractionResult`` (``graph_documents``, ``dropped``, ``merges``). ``validate="error"``
    raises before anything is written; ``ingest=False`` previews. See :mod:`gestalt_nb.graphrag.extraction`.
    """
    return _kept(extraction.extract(REGISTRY.get(alias), documents, model, **options))


@_signature_of(extraction.ingest)
def ingest_graph_documents(graph_documents: Any, *, alias: str | None = None, **options: Any):
    """Write graph documents made elsewhere (e.g. LangChain's ``LLMGraphTransformer``) the way ``extract`` does."""
    return _kept(extraction.ingest(REGISTRY.get(alias), graph_documents, **options))


@_signature_of(answering.answer)
def answer(question: str, model: Any, *, alias: str | None = None, **options: Any):
    """Answer a question from the graph (GraphRAG): names → seeds → ``query_subgraph`` → bounded context → model.

    Returns an ``Answer`` (``answer``, ``names``, ``seeds``, ``context``, ``subgraph``, ``sources``).
    """
    return _kept(answering.answer(REGISTRY.get(alias), question, model, **options))


@_signature_of(neighbourhood.query_subgraph)
def query_subgraph(*args: Any, alias: str | None = None, **options: Any):
    """The bounded neighbourhood of named entities on the current (or named) connection (``%gsubgraph``).

    See :func:`gestalt_nb.graph.neighbourhood.query_subgraph` for the guarantees.
    """
    return _kept(neighbourhood.query_subgraph(REGISTRY.get(alias), *args, **options))


def show_retrieval(retriever: Any, query: str):
    """Run any ``GestaltDBRetriever`` and return its retrieval (drawn paths, documents table)."""
    found = next((c for c in REGISTRY.connections.values() if c.graph is retriever.graph), None)
    return _kept(retrieve(found or Connection("retriever", retriever.graph, owned=False), retriever, query))


@_signature_of(loading.load_nodes)
def load_nodes(df: Any, *, alias: str | None = None, **options: Any):
    """Load a DataFrame as nodes, one per row, in one transaction (``%gload nodes``): all rows or none.

    A row whose id is already stored updates that node (labels added, later values win); rows repeating
    an id are merged into one node. Missing values (None, NaN, NaT, ``pd.NA``) leave the property out.

    Parameters
    ----------
    df : pandas.DataFrame
        One row per node.
    id : str
        The column holding each node's id. Integer ids are stored as the adapter stores them
        (``__lc_int__:N``) and read back as the integers you gave.
    label : str, optional
        One label for every node (``label="Person"``). Give exactly one of ``label`` and ``label_column``.
    label_column : str, optional
        The column holding each row's label, for a table of several kinds of node.
    properties : iterable of str, optional
        The columns stored as properties; every column but ``id`` and ``label_column`` by default.
    keep_id : bool, optional
        Also keep an integer id as a property named after its column, so ``WHERE n.member = 0`` and
        ``ORDER BY`` work on the number; on by default for integer ids unless the column is called ``id``.
    alias : str, optional
        The connection to load into; the current one by default.

    Returns
    -------
    LoadResult
        Rows read, nodes created, updated and unchanged, the time taken, and notes (merged ids, warnings).

    Examples
    --------
    >>> people = pd.DataFrame({"id": ["ada", "bob"], "name": ["Ada", "Bob"], "born": [1815, 1990]})
    >>> gestalt_nb.load_nodes(people, id="id", label="Person")
    <LoadResult nodes: 2 rows → 2 created, 0 updated, 0 unchanged in 0.01 s (138 rows/s)>
    """
    return loading.load_nodes(REGISTRY.get(alias), df, **options)


@_signature_of(loading.load_edges)
def load_edges(df: Any, *, alias: str | None = None, **options: Any):
    """Load a DataFrame as relationships, one per row, in one transaction (``%gload edges``): all rows or none.

    Both ends of every row must already be stored (load the nodes first). The relationship type is kept
    in the property ``type``, so a property column named ``type`` is refused.

    Parameters
    ----------
    df : pandas.DataFrame
        One row per relationship.
    source : str
        The column holding each relationship's start node id (as loaded: ``0`` for an integer id).
    target : str
        The column holding each relationship's end node id.
    type : str, optional
        One type for every relationship (``type="KNOWS"``). Give exactly one of ``type`` and ``type_column``.
    type_column : str, optional
        The column holding each row's relationship type.
    id : str, optional
        A column of relationship ids, to keep every row as its own relationship. Without it a relationship
        is identified by (source, type, target): loading again updates it, and repeated rows are merged
        into one (counted in ``merged``, with a warning).
    id_prefix : str, optional
        Text put before each id from ``id`` (``id_prefix="trafo:"`` stores id ``0`` as ``"trafo:0"``), so
        two tables whose ids overlap can both be loaded: relationship ids share one space across types.
    properties : iterable of str, optional
        The columns stored as properties; every column but ``source``, ``target``, ``type_column`` and
        ``id`` by default.
    directed : bool, default True
        ``False`` stores one relationship per unordered pair and type: a row (b, a) after (a, b) is merged
        into it, with a warning; query such a graph with ``-[:T]-``. With ``True``, pairs present in both
        directions are kept as two relationships, with a warning.
    alias : str, optional
        The connection to load into; the current one by default.

    Returns
    -------
    LoadResult
        Rows read, relationships created, updated and unchanged, the time taken, and notes.

    Examples
    --------
    >>> knows = pd.DataFrame({"src": ["ada"], "dst": ["bob"], "since": [2020]})
    >>> gestalt_nb.load_edges(knows, source="src", target="dst", type="KNOWS")
    <LoadResult relationships: 1 rows → 1 created, 0 updated, 0 unchanged in 0.01 s (83 rows/s)>
    """
    return loading.load_edges(REGISTRY.get(alias), df, **options)


@_signature_of(loading.load_graph_documents)
def load_graph_documents(documents: Any, *, alias: str | None = None, **options: Any):
    """The adapter's ``add_graph_documents`` inside one transaction: all or nothing, and fast."""
    return loading.load_graph_documents(REGISTRY.get(alias), documents, **options)


@_signature_of(networkx_io.from_networkx)
def from_networkx(G: Any, *, alias: str | None = None, **options: Any):
    """Load a networkx graph into the current (or named) connection; returns (nodes, relationships) LoadResults."""
    return networkx_io.from_networkx(REGISTRY.get(alias), G, **options)


@_signature_of(paths.shortest_path)
def shortest_path(a: Any, b: Any, *, alias: str | None = None, **options: Any) -> QueryResult:
    """The shortest path from ``a`` to ``b`` on the current (or named) connection, as a drawable result."""
    return _kept(paths.shortest_path(REGISTRY.get(alias), a, b, **options))


def show_trace(messages_or_state: Any):
    """The steps of an agent run — tool calls, answers, refusals — and one graph of all it touched."""
    return trace(messages_or_state)


def last_result() -> QueryResult | None:
    """The most recent result of ``%%gcypher`` or ``run``."""
    return REGISTRY.last_result


@setting_keywords
def show(value: Any, **options: Any):
    """The view of a result (``QueryResult``) or a bare ``Subgraph``; each option overrides its setting for this view."""
    if hasattr(value, "show"):
        return value.show(**options)
    return display.view_for(value, **options)
