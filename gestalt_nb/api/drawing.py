"""Drawing: the view of any result or ``Subgraph``, the whole graph as groups, the explorer, retrievals and agent traces."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import display
from ..agents.trace import trace
from ..graph.explorer import Explorer
from ..graph.retrieval import retrieve
from ..grouped import build as _overview
from ..options import Colour, Layout, Size
from ..session import REGISTRY, Connection
from ..views.explorer_view import ExplorerView
from .opening import kept

if TYPE_CHECKING:
    from ..grouped.result import OverviewResult


def show(
        value: Any, *, row_limit: int | None = None, display_limit: int | None = None, renderer: str | None = None, caption_property: str | None = None,
        graph_height: int | None = None, max_nodes: int | None = None, max_edges: int | None = None, color: Colour | str | None = None,
        size: Size | str | None = None, layout: Layout | str | None = None, static_max_nodes: int | None = None, json_max_chars: int | None = None,
        short_errors: bool | None = None, map_size: str | None = None, warn_slow: bool | None = None, rewrite_untyped: bool | None = None,
        rewrite_far_end: bool | None = None, timeout: float | None = None, memory_limit: str | None = None, tool_timeout: float | None = None,
        tool_memory_limit: str | None = None, caption: str | None = None,
):
    """The view of a result or a bare ``Subgraph``, each keyword overriding its setting for this view only.

    Every keyword is a setting of the same name (``gestalt_nb.settings``, ``%config GestaltMagic.<name>``; the
    settings reference says each one's meaning and default); None, the default, keeps the setting.

    Parameters
    ----------
    value : QueryResult, Subgraph or any result
        What to show: a result of ``run``, ``query_subgraph``, ``overview``, … or a ``Subgraph`` you built.
    renderer : str, optional
        ``"canvas"`` (the interactive canvas), ``"gestaltdb"`` (gestaltdb.viz in an iframe) or ``"pyvis"``.
    color, size, layout : str, optional
        What node colour means (``"label"``, ``"community"`` or a property), what node size means (``"degree"``,
        ``"pagerank"``, … or a numeric property) and the canvas layout (``"force"``, ``"grid"``, ``"radial:root=ID"``, …).
    caption_property, caption : str, optional
        The node property used as each node's caption (``caption`` is a shorter name for the same).
    max_nodes, max_edges, graph_height : int, optional
        Nodes and relationships drawn before the drawing is cut (it says so), and its height in pixels.
    row_limit, display_limit, json_max_chars : int, optional
        Rows a query may return, rows the Table tab shows, characters the JSON tab shows.
    static_max_nodes : int, optional
        Nodes in the static picture kept for saved notebooks.
    short_errors, warn_slow, rewrite_untyped, rewrite_far_end, map_size : optional
        Accepted as every setting is; they change how queries run and errors read, not this view.
    timeout, memory_limit, tool_timeout, tool_memory_limit : optional
        Accepted as every setting is (the budgets of reads and of agents' tool calls); they do not change a view.

    Returns
    -------
    object
        The view (a widget, or a static picture where widgets do not run); it displays when it is a cell's last value.

    Examples
    --------
    >>> result = gestalt_nb.run("MATCH (p:Person)-[k:KNOWS]->(q:Person) RETURN p, k, q")
    >>> gestalt_nb.show(result, layout="circular", color="community", max_nodes=50)
    """
    options = {name: given for name, given in locals().items() if name != "value" and given is not None}  # the options given
    if hasattr(value, "show"):
        return value.show(**options)
    return display.view_for(value, **options)


def overview(by: str = "community", *, labels: list[str] | None = None, types: list[str] | None = None,
        resolution: float = 1.0, max_groups: int = 300, timeout: float | None = None,
        memory_limit: int | str | None = None, as_of: Any = None, known_at: Any = None, since: Any = None,
        alias: str | None = None) -> OverviewResult:
    """The whole graph seen as groups, drawn as super-nodes you open on the canvas (``%goverview``).

    A group is named by what sets it apart; the grouping is computed once per database state and reused.
    Bounded like a cell's read: a stop raises a clear error and draws nothing.

    Parameters
    ----------
    by : str, default "community"
        ``"community"`` (Leiden communities of the undirected graph), ``"label"`` (one group per label set) or a
        property name (one group per value; numbers with many values in stated bins).
    labels : list of str, optional
        Only the nodes with these labels; every node by default.
    types : list of str, optional
        Only the relationships of these types; every type by default.
    resolution : float, default 1.0
        Leiden's resolution, above 0 (1.0 is plain modularity; higher gives more, smaller communities).
    max_groups : int, default 300
        Groups drawn at most (2 or more); past it the smallest are merged into one "other" group, and a note says so.
    timeout : float, optional
        Seconds the grouping may take (default ``settings.timeout``).
    memory_limit : int or str, optional
        Memory the process may gain meanwhile, e.g. ``"2GiB"`` (default ``settings.memory_limit``).
    as_of : str, date, datetime or number, optional
        Group the graph valid at this moment, from the database's history (the database is only read).
    known_at : str, date, datetime or number, optional
        With ``as_of``: the graph as recorded by this moment (default: everything recorded).
    since : str, date, datetime or number, optional
        An earlier moment: group every node present at either, and add each group's growth to ``.groups``
        (``before``, ``after``, ``added``, ``removed``: its members at each moment).
    alias : str, optional
        The connection to read; the current one by default.

    Returns
    -------
    OverviewResult
        The groups and the links between them (DataFrames), each node's group, and notes; it displays as the canvas.

    Examples
    --------
    >>> gestalt_nb.overview(by="label")
    """
    return kept(_overview.overview(
        REGISTRY.get(alias), by, labels=labels, types=types, resolution=resolution, max_groups=max_groups, timeout=timeout, memory_limit=memory_limit,
        as_of=as_of, known_at=known_at, since=since,
    ))


def explore(node_id: str | int | None = None, *, alias: str | None = None, node_budget: int = 200, sample_size: int | None = 10):
    """The neighbourhood explorer (``%gexplore``): a canvas and controls to walk out from a node one typed hop at a time.

    Parameters
    ----------
    node_id : str or int, optional
        The id (as loaded) of the node to start from; an empty canvas by default (find a node in its search box).
    alias : str, optional
        The connection to explore; the current one by default.
    node_budget : int, default 200
        Nodes the canvas holds at most (1 or more); an expansion stops there and says so.
    sample_size : int or None, default 10
        Neighbours drawn per node and relationship type on each expansion (1 or more; None: all of them, within
        ``node_budget``); its Per hop box changes it.

    Returns
    -------
    ExplorerView
        The widget; its ``.explorer`` holds the state (what is drawn, undo, the Cypher matching it).

    Examples
    --------
    >>> view = gestalt_nb.explore("alice", node_budget=100)
    >>> view.explorer.expand(["alice"])
    """
    explorer = Explorer(REGISTRY.get(alias), node_budget=node_budget, sample_size=sample_size)
    if node_id is not None:
        explorer.start(node_id)
    return ExplorerView(explorer)


def show_retrieval(retriever: Any, query: str):
    """Run a ``GestaltDBRetriever`` and show what it returned: its paths drawn, its documents in a table (``%gretrieve``).

    Parameters
    ----------
    retriever : GestaltDBRetriever
        Any retriever of langchain-gestaltdb, e.g. from ``gestalt_nb.connection().retriever(...)``.
    query : str
        The text to retrieve for, as the retriever's ``invoke`` takes it.

    Returns
    -------
    Retrieval
        The documents (``.df``), the paths as a drawable ``.subgraph``, and reasons when it found nothing.

    Examples
    --------
    >>> retriever = gestalt_nb.connection().retriever(seed_ids=("globex",), hops=[{"edge_type": "WORKS_FOR", "direction": "in"}])
    >>> gestalt_nb.show_retrieval(retriever, "who works at Globex")
    """
    found = next((c for c in REGISTRY.connections.values() if c.graph is retriever.graph), None)
    return kept(retrieve(found or Connection("retriever", retriever.graph, owned=False), retriever, query))


def show_trace(messages_or_state: Any):
    """The steps of an agent run — tool calls, answers, refusals — and one graph of everything it touched.

    Parameters
    ----------
    messages_or_state : list of BaseMessage or dict
        The run's LangChain messages, or a LangGraph state holding them under ``"messages"``.

    Returns
    -------
    Trace
        One step per message and tool call (``.df``), and the merged ``.subgraph``; it displays as the trace view.

    Examples
    --------
    >>> state = agent.invoke({"messages": [("user", "Who does Alice Chen know?")]})
    >>> gestalt_nb.show_trace(state)
    """
    return trace(messages_or_state)
