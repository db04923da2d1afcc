"""Querying: Cypher (run, explain, live), the schema, a named neighbourhood, a shortest path, the kernel's history.

Each forwards to the capability that does the work with the connection ``alias`` names (the current one by default).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..cypher import explain as _explain
from ..cypher import history, paths, snippets
from ..cypher.result import QueryResult
from ..errors import GestaltError
from ..feed.live import Live
from ..graph import neighbourhood
from ..graph import schema as _schema
from ..session import REGISTRY
from .opening import kept

if TYPE_CHECKING:
    from ..cypher.budget import Budget
    from ..cypher.explain_result import QueryPlan
    from ..graph.neighbourhood import SubgraphResult
    from ..graph.schema import SchemaResult
    from ..temporal.diff import DiffResult


def run(query: str, params: dict[str, Any] | None = None, *, write: bool = False, limit: int | None = None,
        timeout: float | None = None, memory_limit: int | str | None = None, budget: Budget | None = None,
        as_of: Any = None, known_at: Any = None, alias: str | None = None) -> QueryResult:
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
    as_of : str, date, datetime or number, optional
        Read the graph as it was valid at this moment (ISO text, a date or datetime, or epoch seconds), from the
        history loaded with ``valid_from=`` / ``valid_to=`` (``%%gcypher --as-of``). Read-only: a write is refused.
    known_at : str, date, datetime or number, optional
        ... as it was recorded by this moment (default: everything recorded): what was believed before a correction.
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
        result = chosen.run(query, params, write=write, limit=limit, timeout=timeout, memory_limit=memory_limit, budget=budget, as_of=as_of,
            known_at=known_at)
    except GestaltError as exc:
        history.record_failure(chosen.alias, query, exc, write=write)
        raise
    history.record(result)
    return kept(result)


def explain(query: str, params: dict[str, Any] | None = None, *, limit: int | None = None, write: bool = False,
        alias: str | None = None) -> QueryPlan:
    """The plan of a query as ``run`` would execute it, the LIMIT gestalt-nb would add and slow-shape warnings; runs nothing (``--explain``).

    Parameters
    ----------
    query : str
        The Cypher text to plan.
    params : dict, optional
        Values for its ``$name`` parameters; not needed to plan, accepted so a cell's ``-P`` can stay.
    limit : int, optional
        The row limit the LIMIT shown is worked out from (default ``settings.row_limit``).
    write : bool, default False
        Changes nothing here: a write is shown as one, and running it would still need ``write=True``.
    alias : str, optional
        The connection whose engine plans it; the current one by default.

    Returns
    -------
    QueryPlan
        The engine's plan, the query as it would run, and warnings about slow shapes (e.g. untyped patterns).

    Examples
    --------
    >>> gestalt_nb.explain("MATCH (p:Person)-[:WORKS_FOR]->(c:Company) RETURN p.name, c.name")
    """
    return _explain.explain(REGISTRY.get(alias), query, params, limit=limit, write=write)


def query_history(last: int | None = None):
    """This kernel's queries, oldest first, as a DataFrame (``%ghistory``); failed ones too, with their error.

    Parameters
    ----------
    last : int, optional
        Only the last N queries (a whole number, 0 or more); all that are kept by default (up to 1,000; 0 means all).

    Returns
    -------
    pandas.DataFrame
        One row per query: ``at``, ``alias``, ``query``, ``rows``, ``truncated``, ``elapsed_ms``, ``write``, ``error``.

    Examples
    --------
    >>> gestalt_nb.run("MATCH (p:Person) RETURN p.name AS name")
    >>> gestalt_nb.query_history(last=5)
    """
    return history.frame(last)


def saved_snippets():
    """The query snippets saved in this kernel (``%%gcypher --save NAME``) as a DataFrame (``%gsnippets``).

    Returns
    -------
    pandas.DataFrame
        One row per snippet: ``name``, ``columns``, ``alias``, ``saved`` and ``query``; empty when none is saved.

    Examples
    --------
    >>> gestalt_nb.saved_snippets()
    """
    return snippets.frame()


def schema(*, refresh: bool = False, nodes: int | None = None, edges: int | None = None, exhaustive: bool = False,
        alias: str | None = None) -> SchemaResult:
    """What is in the graph: every label and relationship type, their properties (sampled) and counts (``%gschema``).

    The lists of labels and types are complete (read from the engine's indexes); properties come from a sample,
    and counts stop at 10,000 per name unless ``exhaustive``.

    Parameters
    ----------
    refresh : bool, default False
        Sample again instead of reusing the connection's cached sample (after writes, say).
    nodes : int, optional
        Sample this many nodes (1 or more) instead of the adapter's 100; a fresh sample, not the cached one.
    edges : int, optional
        Sample this many relationships (1 or more) instead of the adapter's 100.
    exhaustive : bool, default False
        Read every node and relationship and count in full: exact, but slow on a big graph.
    alias : str, optional
        The connection to read; the current one by default.

    Returns
    -------
    SchemaResult
        Labels, types, properties and counts; it displays as the schema view (a drawn meta-graph and tables).

    Examples
    --------
    >>> gestalt_nb.schema(refresh=True)
    """
    return _schema.schema(REGISTRY.get(alias), refresh=refresh, nodes=nodes, edges=edges, exhaustive=exhaustive)


def query_subgraph(entities: list[str] | str | None = None, relations: list[str] | str | None = None,
        min_confidence: float = 0.0, max_hops: int = 1, *, max_nodes: int = 500, max_edges: int = 2000,
        max_fanout: int = 100, include_internal: bool = False, filter_during_traversal: bool = False,
        drop_isolated: bool = False, alias: str | None = None) -> SubgraphResult:
    """The bounded neighbourhood of named entities on the current (or named) connection (``%gsubgraph``).

    Parameters
    ----------
    entities : str or list of str, optional
        Names (matched case-insensitively) or node ids to start from; None samples the whole graph.
    relations : str or list of str, optional
        Keep only relationships of these types; every type by default.
    min_confidence : float, default 0.0
        Keep only relationships whose ``confidence`` property is at least this (0 to 1); above 0, one without it fails.
    max_hops : int, default 1
        How many hops to walk out from the seeds, 0 to 6.
    max_nodes : int, default 500
        Nodes collected at most; ``truncated`` says when the walk left any out.
    max_edges : int, default 2000
        Relationships kept at most.
    max_fanout : int, default 100
        Adjacency records read per node at most (bounds the work on very connected nodes).
    include_internal : bool, default False
        Also walk and show bookkeeping nodes and types (source documents, memory items, ``__``-prefixed names).
    filter_during_traversal : bool, default False
        Follow only relationships that pass ``relations`` and ``min_confidence``; by default the walk follows every
        type and the filters apply to the relationships kept afterwards.
    drop_isolated : bool, default False
        Remove collected nodes (never seeds) left without a kept relationship.
    alias : str, optional
        The connection to read; the current one by default.

    Returns
    -------
    SubgraphResult
        The seeds, the nodes and relationships found as a drawable ``.subgraph``, what was cut and why.

    Examples
    --------
    >>> gestalt_nb.query_subgraph("Alice Chen", max_hops=2)
    """
    return kept(neighbourhood.query_subgraph(
        REGISTRY.get(alias), entities, relations, min_confidence, max_hops, max_nodes=max_nodes, max_edges=max_edges, max_fanout=max_fanout,
        include_internal=include_internal, filter_during_traversal=filter_during_traversal, drop_isolated=drop_isolated,
    ))


def shortest_path(a: str | int, b: str | int, *, types: str | list[str] | None = None, max_hops: int | None = None,
        direction: str = "both", all_shortest: bool = False, timeout: float | None = None,
        alias: str | None = None) -> QueryResult:
    """The shortest path from ``a`` to ``b`` on the current (or named) connection, as a drawable result.

    A search from both ends that reads each node at most once; no path gives an empty result whose notes say so.

    Parameters
    ----------
    a : str or int
        The start node's id, as loaded (``0`` for an integer id).
    b : str or int
        The end node's id.
    types : str or list of str, optional
        Follow only relationships of these types; every type by default.
    max_hops : int, optional
        The longest path looked for, 1 to 100,000; as deep as the graph goes by default.
    direction : {"both", "out", "in"}, default "both"
        Follow relationships either way, or only along (``"out"``) or against (``"in"``) their direction.
    all_shortest : bool, default False
        Return every path of the shortest length (up to the row limit) instead of one.
    timeout : float, optional
        Seconds the search may take (default ``settings.timeout``); past it, it stops and says so.
    alias : str, optional
        The connection to search; the current one by default.

    Returns
    -------
    QueryResult
        One row per path (its nodes and relationships), drawn with the path highlighted.

    Examples
    --------
    >>> gestalt_nb.shortest_path("alice", "eva", types=["KNOWS", "WORKS_FOR"])
    """
    return kept(paths.shortest_path(
        REGISTRY.get(alias), a, b, types=types, max_hops=max_hops, direction=direction, all_shortest=all_shortest, timeout=timeout,
    ))


def live(query: str, params: dict[str, Any] | None = None, *, limit: int | None = None, debounce: float = 0.3,
        max_wait: float = 2.0, view_options: dict[str, Any] | None = None, alias: str | None = None) -> Live:
    """A read query kept open: re-run on each change-feed event, the canvas updated in place (``%%gcypher --live``).

    Writes from this kernel or another process re-run it; ``.stop()`` (or the Stop button) ends it.

    Parameters
    ----------
    query : str
        The read-only Cypher to keep running.
    params : dict, optional
        Values for its ``$name`` parameters.
    limit : int, optional
        At most this many rows per run (default ``settings.row_limit``).
    debounce : float, default 0.3
        Seconds to wait after the last change before re-running (0 or more), so a burst of writes is one re-run.
    max_wait : float, default 2.0
        Seconds at most between the first change and the re-run, however long the burst (at least ``debounce``).
    view_options : dict, optional
        Options for its view, as ``show`` takes them (``{"layout": "grid"}``).
    alias : str, optional
        The connection to follow; the current one by default.

    Returns
    -------
    Live
        The live result: ``.result`` is the newest run, ``.reruns`` counts re-runs; it displays as its view.

    Examples
    --------
    >>> watch = gestalt_nb.live("MATCH (p:Person)-[k:KNOWS]->(q:Person) RETURN p, k, q")
    >>> watch.stop()
    """
    return kept(Live(REGISTRY.get(alias), query, params, limit=limit, debounce=debounce, max_wait=max_wait, view_options=view_options))


def diff(query: str, before: Any, after: Any, params: dict[str, Any] | None = None, *, known_at: Any = None, limit: int | None = None,
        timeout: float | None = None, alias: str | None = None) -> DiffResult:
    """What ``query`` returned at ``before`` and at ``after`` (valid times), compared: added, removed and changed.

    Parameters
    ----------
    query : str
        A read; it runs twice, as ``run(query, as_of=before)`` and ``run(query, as_of=after)``, each bounded as a read is.
    before, after : str, date, datetime or number
        The two moments (ISO text, a date or datetime, or epoch seconds).
    params : dict, optional
        Values for the query's ``$name`` parameters.
    known_at : str, date, datetime or number, optional
        Both reads as recorded by this moment (default: everything recorded).
    limit : int, optional
        At most this many rows per read (default ``settings.row_limit``).
    timeout : float, optional
        Seconds each read may take (default ``settings.timeout``).
    alias : str, optional
        The connection to query; the current one by default.

    Returns
    -------
    DiffResult
        ``.changes`` (a DataFrame: id, kind, change, property, before, after) and ``.subgraph``, the drawing coloured by
        change; it displays as Graph | Changes | Query.

    Examples
    --------
    >>> gestalt_nb.diff("MATCH (p:Person)-[r:WORKS_AT]->(c:Company) RETURN p, r, c", "2021-01-01", "2024-01-01").changes
    """
    return REGISTRY.get(alias).diff(query, before, after, params, known_at=known_at, limit=limit, timeout=timeout)
