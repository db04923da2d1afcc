"""The public calls: everything a magic does, as a plain Python call on the current (or named) connection.

``gestalt_nb/__init__.py`` names these lazily (this module imports the engine's side normally, so
it loads on the first call, not at ``import gestalt_nb``). A call that forwards to a capability writes
that capability's own parameters out in its signature, plus ``alias``, so ``help()``, ``inspect.signature``,
Shift+Tab and a type checker show them; ``tests/test_signatures.py`` checks they are the capability's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from . import display
from .agents import planner
from .agents.trace import trace
from .cypher import explain as _explain
from .cypher import history, paths, snippets
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
from .options import Colour, Layout, Size
from .session import REGISTRY, Connection
from .views.explorer_view import ExplorerView

if TYPE_CHECKING:
    from .agents.planner import Plan
    from .cypher.budget import Budget
    from .cypher.explain_result import QueryPlan
    from .data.loading import LoadResult
    from .graph.neighbourhood import SubgraphResult
    from .graph.schema import SchemaResult
    from .graphrag.answering import Answer
    from .graphrag.writing import ExtractionResult
    from .grouped.result import OverviewResult

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


def run(query: str, params: dict[str, Any] | None = None, *, write: bool = False, limit: int | None = None,
        timeout: float | None = None, memory_limit: int | str | None = None, budget: Budget | None = None,
        alias: str | None = None) -> QueryResult:
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
        result = chosen.run(query, params, write=write, limit=limit, timeout=timeout, memory_limit=memory_limit, budget=budget)
    except GestaltError as exc:
        history.record_failure(chosen.alias, query, exc, write=write)
        raise
    history.record(result)
    return _kept(result)


def explain(query: str, params: dict[str, Any] | None = None, *, limit: int | None = None, write: bool = False,
        alias: str | None = None) -> QueryPlan:
    """The plan, the LIMIT gestalt-nb would add and slow-shape warnings, without running (``--explain``)."""
    return _explain.explain(REGISTRY.get(alias), query, params, limit=limit, write=write)


def query_history(last: int | None = None):
    """This kernel's queries as a DataFrame (``%ghistory``)."""
    return history.frame(last)


def saved_snippets():
    """The saved query snippets as a DataFrame (``%gsnippets``)."""
    return snippets.frame()


def schema(*, refresh: bool = False, nodes: int | None = None, edges: int | None = None, exhaustive: bool = False,
        alias: str | None = None) -> SchemaResult:
    """The schema sample of the current (or named) connection (``%gschema``)."""
    return _schema.schema(REGISTRY.get(alias), refresh=refresh, nodes=nodes, edges=edges, exhaustive=exhaustive)


def overview(by: str = "community", *, labels: list[str] | None = None, types: list[str] | None = None,
        resolution: float = 1.0, max_groups: int = 300, timeout: float | None = None,
        memory_limit: int | str | None = None, alias: str | None = None) -> OverviewResult:
    """The whole graph seen as groups — communities, label sets or property values — drawn as super-nodes
    you drill into on the canvas (``%goverview``); see :func:`gestalt_nb.grouped.build.overview`."""
    return _kept(_overview.overview(
        REGISTRY.get(alias), by, labels=labels, types=types, resolution=resolution, max_groups=max_groups, timeout=timeout, memory_limit=memory_limit,
    ))


def explore(node_id: str | int | None = None, *, alias: str | None = None, node_budget: int = 200, sample_size: int = 10):
    """The neighbourhood explorer widget (``%gexplore``); its ``.explorer`` holds the state."""
    explorer = Explorer(REGISTRY.get(alias), node_budget=node_budget, sample_size=sample_size)
    if node_id is not None:
        explorer.start(node_id)
    return ExplorerView(explorer)


def live(query: str, params: dict[str, Any] | None = None, *, limit: int | None = None, debounce: float = 0.3,
        max_wait: float = 2.0, view_options: dict[str, Any] | None = None, alias: str | None = None) -> Live:
    """A read query kept open: re-run on each change-feed event, the canvas updated in place (``%%gcypher --live``).

    ``debounce`` and ``max_wait`` are seconds; ``.stop()`` ends it.
    """
    return _kept(Live(REGISTRY.get(alias), query, params, limit=limit, debounce=debounce, max_wait=max_wait, view_options=view_options))


def plan(question: str, model: Any = None, *, timeout: float = 30.0, allow_cypher: bool = True,
        alias: str | None = None) -> Plan:
    """A checked ``QueryPlan`` for a question in words (``%%gask``); ``.execute()`` runs it through ``query_subgraph``.

    ``model`` is a LangChain chat model (default: the one given to ``set_planner_model``).
    """
    return _kept(planner.plan(question, planner.chosen_model(model), connection=REGISTRY.get(alias), timeout=timeout, allow_cypher=allow_cypher))


def set_planner_model(model: Any) -> None:
    """The chat model ``plan`` and ``%%gask`` use when none is named."""
    planner.DEFAULT_MODEL["model"] = model


def extract(documents: Any, model: Any, *, allowed_node_types: list[str] | None = None,
        allowed_relationship_types: list[Any] | None = None, validate: str = "warn", examples: Any = None,
        prompt: str | None = None, ingest: bool = True, batch_size: int = 10, max_document_chars: int = 12000,
        max_concurrency: int = 1, fuzzy: float | None = None, alias: str | None = None) -> ExtractionResult:
    """Extract a graph from LangChain Documents with a chat model and write it, linked to its sources (GraphRAG).

    Returns an ``ExtractionResult`` (``graph_documents``, ``dropped``, ``merges``). ``validate="error"``
    raises before anything is written; ``ingest=False`` previews. See :mod:`gestalt_nb.graphrag.extraction`.
    """
    return _kept(extraction.extract(
        REGISTRY.get(alias), documents, model, allowed_node_types=allowed_node_types, allowed_relationship_types=allowed_relationship_types,
        validate=validate, examples=examples, prompt=prompt, ingest=ingest, batch_size=batch_size, max_document_chars=max_document_chars,
        max_concurrency=max_concurrency, fuzzy=fuzzy,
    ))


def ingest_graph_documents(graph_documents: Any, *, batch_size: int = 10, fuzzy: float | None = None,
        alias: str | None = None) -> ExtractionResult:
    """Write graph documents made elsewhere (e.g. LangChain's ``LLMGraphTransformer``) the way ``extract`` does."""
    return _kept(extraction.ingest(REGISTRY.get(alias), graph_documents, batch_size=batch_size, fuzzy=fuzzy))


def answer(question: str, model: Any, *, max_depth: int = 2, relations: list[str] | None = None,
        max_nodes: int = 100, max_edges: int = 300, max_fanout: int = 50, max_context_chars: int = 6000,
        max_passages: int = 8, max_passage_chars: int = 1000, prompt: str | None = None,
        names_prompt: str | None = None, alias: str | None = None) -> Answer:
    """Answer a question from the graph (GraphRAG): names → seeds → ``query_subgraph`` → bounded context → model.

    Returns an ``Answer`` (``answer``, ``names``, ``seeds``, ``context``, ``subgraph``, ``sources``).
    """
    return _kept(answering.answer(
        REGISTRY.get(alias), question, model, max_depth=max_depth, relations=relations, max_nodes=max_nodes, max_edges=max_edges,
        max_fanout=max_fanout, max_context_chars=max_context_chars, max_passages=max_passages, max_passage_chars=max_passage_chars, prompt=prompt,
        names_prompt=names_prompt,
    ))


def query_subgraph(entities: list[str] | str | None = None, relations: list[str] | str | None = None,
        min_confidence: float = 0.0, max_hops: int = 1, *, max_nodes: int = 500, max_edges: int = 2000,
        max_fanout: int = 100, include_internal: bool = False, filter_during_traversal: bool = False,
        drop_isolated: bool = False, alias: str | None = None) -> SubgraphResult:
    """The bounded neighbourhood of named entities on the current (or named) connection (``%gsubgraph``).

    See :func:`gestalt_nb.graph.neighbourhood.query_subgraph` for the guarantees.
    """
    return _kept(neighbourhood.query_subgraph(
        REGISTRY.get(alias), entities, relations, min_confidence, max_hops, max_nodes=max_nodes, max_edges=max_edges, max_fanout=max_fanout,
        include_internal=include_internal, filter_during_traversal=filter_during_traversal, drop_isolated=drop_isolated,
    ))


def show_retrieval(retriever: Any, query: str):
    """Run any ``GestaltDBRetriever`` and return its retrieval (drawn paths, documents table)."""
    found = next((c for c in REGISTRY.connections.values() if c.graph is retriever.graph), None)
    return _kept(retrieve(found or Connection("retriever", retriever.graph, owned=False), retriever, query))


def load_nodes(df: Any, *, id: str, label: str | None = None, label_column: str | None = None,
        properties: Iterable[str] | None = None, keep_id: bool | None = None,
        alias: str | None = None) -> LoadResult:
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
    return loading.load_nodes(REGISTRY.get(alias), df, id=id, label=label, label_column=label_column, properties=properties, keep_id=keep_id)


def load_edges(df: Any, *, source: str, target: str, type: str | None = None, type_column: str | None = None,
        id: str | None = None, id_prefix: str | None = None, properties: Iterable[str] | None = None,
        directed: bool = True, alias: str | None = None) -> LoadResult:
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
    return loading.load_edges(
        REGISTRY.get(alias), df, source=source, target=target, type=type, type_column=type_column, id=id, id_prefix=id_prefix, properties=properties,
        directed=directed,
    )


def load_graph_documents(documents: Iterable[Any], *, include_source: bool = False,
        alias: str | None = None) -> LoadResult:
    """The adapter's ``add_graph_documents`` inside one transaction: all or nothing, and fast."""
    return loading.load_graph_documents(REGISTRY.get(alias), documents, include_source=include_source)


def from_networkx(G: Any, *, label: str | dict[Any, str] = "Node", type: str = "LINKS",
        label_attr: str | None = None, type_attr: str | None = None, directed: bool | None = None,
        alias: str | None = None):
    """Load a networkx graph into the current (or named) connection; returns (nodes, relationships) LoadResults."""
    return networkx_io.from_networkx(REGISTRY.get(alias), G, label=label, type=type, label_attr=label_attr, type_attr=type_attr, directed=directed)


def shortest_path(a: str | int, b: str | int, *, types: str | list[str] | None = None, max_hops: int | None = None,
        direction: str = "both", all_shortest: bool = False, timeout: float | None = None,
        alias: str | None = None) -> QueryResult:
    """The shortest path from ``a`` to ``b`` on the current (or named) connection, as a drawable result."""
    return _kept(paths.shortest_path(
        REGISTRY.get(alias), a, b, types=types, max_hops=max_hops, direction=direction, all_shortest=all_shortest, timeout=timeout,
    ))


def show_trace(messages_or_state: Any):
    """The steps of an agent run — tool calls, answers, refusals — and one graph of all it touched."""
    return trace(messages_or_state)


def last_result() -> QueryResult | None:
    """The most recent result of ``%%gcypher`` or ``run``."""
    return REGISTRY.last_result


def show(
        value: Any, *, row_limit: int | None = None, display_limit: int | None = None, renderer: str | None = None, caption_property: str | None = None,
        graph_height: int | None = None, max_nodes: int | None = None, max_edges: int | None = None, color: Colour | str | None = None,
        size: Size | str | None = None, layout: Layout | str | None = None, static_max_nodes: int | None = None, json_max_chars: int | None = None,
        short_errors: bool | None = None, map_size: str | None = None, warn_slow: bool | None = None, rewrite_untyped: bool | None = None,
        timeout: float | None = None, memory_limit: str | None = None, tool_timeout: float | None = None, tool_memory_limit: str | None = None,
        caption: str | None = None,
):
    """The view of a result (``QueryResult``) or a bare ``Subgraph``; each option overrides its setting for this view
    (one keyword per setting, and ``caption`` for ``caption_property``; ``tests/test_signatures.py`` checks the list)."""
    options = {name: given for name, given in locals().items() if name != "value" and given is not None}  # the options given
    if hasattr(value, "show"):
        return value.show(**options)
    return display.view_for(value, **options)
