"""What a :class:`~gestalt_nb.session.Connection` can do: each capability written out as a method.

A method's parameters are those of the lower module's function that does the work (the connection
first); its docstring is here, once (the function's own says only that it is this method's work); its body
imports that function on first use, so ``import gestalt_nb`` and ``%load_ext`` stay light. Written here, an
editor, a type checker and ``help()`` read the same signature; ``tests/test_signatures.py`` fails when a
method and its function drift apart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .checks import checked_methods

if TYPE_CHECKING:
    from collections.abc import Iterable

    from .cypher.budget import Budget
    from .cypher.explain_result import QueryPlan
    from .cypher.result import QueryResult
    from .data.held import OneHistoryCommit
    from .data.loading import LoadResult
    from .graph.neighbourhood import SubgraphResult
    from .graph.schema import SchemaResult
    from .grouped.result import OverviewResult
    from .temporal.diff import DiffResult
    from .temporal.timeline import TimelineResult


@checked_methods  # each argument checked against its annotation (checks.py), as the Connection's own methods are
class Capabilities:
    """Mixed into ``Connection``: run, explain, subgraph, shortest_path, load_nodes, load_edges, from_networkx,
    schema and overview, each the lower module's own function with this connection first."""

    def run(self, query: str, params: dict[str, Any] | None = None, *, write: bool = False, limit: int | None = None, timeout: float | None = None,
            memory_limit: int | str | None = None, budget: Budget | None = None, as_of: Any = None, known_at: Any = None) -> QueryResult:
        """Run ``query`` on ``connection`` and return a bounded :class:`QueryResult`.

        Read-only unless ``write=True``. At most ``limit`` rows (default ``settings.row_limit``) are
        kept; ``truncated`` says whether more existed. The row bound limits work only where a LIMIT
        can be pushed into the final RETURN of a streaming read. Every read also runs within a time
        budget (``timeout`` seconds, default ``settings.timeout``) and a memory budget (what the
        process may gain, ``memory_limit``, default ``settings.memory_limit``); a read that spends
        either is stopped and :class:`~gestalt_nb.cypher.budget.BudgetExceeded` says which and how to raise
        it. ``budget`` passes both at once (agent tools do). ``as_of`` (and ``known_at``) read the graph valid at that
        moment as recorded by then (:mod:`gestalt_nb.temporal.asof`); a write with them is refused.
        """
        from .temporal.asof import run  # deferred: keeps %load_ext light

        return run(self, query, params, write=write, limit=limit, timeout=timeout, memory_limit=memory_limit, budget=budget, as_of=as_of,
            known_at=known_at)

    def diff(self, query: str, before: Any, after: Any, params: dict[str, Any] | None = None, *, known_at: Any = None, limit: int | None = None,
            timeout: float | None = None) -> DiffResult:
        """What ``query`` returned at ``before`` and at ``after`` (valid times), compared: added, removed and changed.

        The read runs twice, as ``run(query, as_of=before)`` and ``run(query, as_of=after)`` (both as recorded by
        ``known_at`` when given), each bounded and read-only as a read is; a read cut by ``limit`` at either moment is
        compared as cut, and the first note says so. ``.changes`` has one row per added or removed node or relationship and one
        per changed property (old → new); the result displays as a drawing coloured by change.
        """
        from .temporal.asof import diff  # deferred: keeps %load_ext light

        return diff(self, query, before, after, params, known_at=known_at, limit=limit, timeout=timeout)

    def timeline(self, query: str, moments: Any, params: dict[str, Any] | None = None, *, known_at: Any = None, limit: int | None = None,
            timeout: float | None = None) -> TimelineResult:
        """What ``query`` returned at each of ``moments`` (valid times), drawn once with a time slider on the canvas.

        Each moment is one read, as ``run(query, as_of=moment)`` (as recorded by ``known_at``; a list of recorded moments
        gives the slider a second axis), bounded and read-only; at most 60 moments in all. A node present at two moments
        stands in one place; the slider steps through them in the page, nothing moving.
        """
        from .temporal.timeline import timeline  # deferred: keeps %load_ext light

        return timeline(self, query, moments, params, known_at=known_at, limit=limit, timeout=timeout)

    def explain(self, query: str, params: dict[str, Any] | None = None, *, limit: int | None = None, write: bool = False) -> QueryPlan:
        """The plan of ``query`` as ``run`` would execute it, and its slow-shape warnings. Runs nothing.

        ``params`` are not needed to plan (they are accepted so a cell's ``-P`` does not have to be
        removed); ``write`` changes nothing here: a write is shown as one, and would still need it.
        """
        from .cypher.explain import explain  # deferred: keeps %load_ext light

        return explain(self, query, params, limit=limit, write=write)

    def subgraph(self, entities: list[str] | str | None = None, relations: list[str] | str | None = None, min_confidence: float = 0.0,
            max_hops: int = 1, *, max_nodes: int = 500, max_edges: int = 2000, max_fanout: int = 100, include_internal: bool = False,
            filter_during_traversal: bool = False, drop_isolated: bool = False) -> SubgraphResult:
        """The bounded neighbourhood of ``entities`` (names or ids); ``entities=None`` samples the whole graph.

        ``filter_during_traversal`` follows only relationships that pass the type and confidence
        filters (so nodes reached only through others are not collected); by default the walk follows
        every type and the filters apply to the relationships kept afterwards. ``drop_isolated``
        removes collected nodes (never seeds) left without a kept relationship.
        """
        from .graph.neighbourhood import query_subgraph  # deferred: keeps %load_ext light

        return query_subgraph(
            self, entities, relations, min_confidence, max_hops, max_nodes=max_nodes, max_edges=max_edges, max_fanout=max_fanout,
            include_internal=include_internal, filter_during_traversal=filter_during_traversal, drop_isolated=drop_isolated,
        )

    def shortest_path(self, a: str | int, b: str | int, *, types: str | list[str] | None = None, max_hops: int | None = None, direction: str = "both",
            all_shortest: bool = False, timeout: float | None = None) -> QueryResult:
        """The shortest path from ``a`` to ``b`` over ``types`` (default: every type), at most ``max_hops`` long.

        With no ``max_hops`` (the default) the search goes as deep as the graph: it ends when the two
        searches meet or one has read every node it can reach, each node at most once — bounded, like every
        read, by the time budget (``timeout`` seconds, default ``settings.timeout``) and O(V + E) work.

        ``direction`` is ``"both"`` (default: relationships followed either way — on a DAG that is
        not a directed path), ``"out"`` or ``"in"``; the result's note says which. ``max_hops``
        (default None: as deep as the graph goes — each node is read at most once) may be 1 to 100,000. ``all_shortest=True`` returns every path of the shortest length (at most the
        row limit; the notes say when there are more). No path within ``max_hops`` gives an empty
        result whose notes say so. Integer ids may be given as written (``0``).
        """
        from .cypher.paths import shortest_path  # deferred: keeps %load_ext light

        return shortest_path(self, a, b, types=types, max_hops=max_hops, direction=direction, all_shortest=all_shortest, timeout=timeout)

    def load_nodes(self, df: Any, *, id: str, label: str | None = None, label_column: str | None = None, properties: Iterable[str] | None = None,
            keep_id: bool | None = None, valid_from: str | None = None, valid_to: str | None = None) -> LoadResult:
        """Create or update one node per row: ``id`` column, a fixed ``label`` or a ``label_column``.

        ``properties`` defaults to every other column. Missing values (None/NaN/NaT/pd.NA) leave the
        property out. Integer ids become ``__lc_int__:N`` exactly as the adapter's ingestion does; the
        integer is also kept as a property named after the id column (``keep_id``, on by default for
        integer ids unless the column is called ``id``), so ``WHERE n.member = 0`` and ``ORDER BY``
        work on the number. With ``valid_from`` / ``valid_to`` (columns of dates, datetimes or epoch seconds; empty is
        open) each row is also one version of its node, valid over ``[from, to)``, written through GestaltDB's temporal
        API in the same transaction; only the rows valid now update the nodes every other read sees.
        """
        from .data.loading import load_nodes  # deferred: keeps %load_ext light

        return load_nodes(self, df, id=id, label=label, label_column=label_column, properties=properties, keep_id=keep_id,
            valid_from=valid_from, valid_to=valid_to)

    def load_edges(self, df: Any, *, source: str, target: str, type: str | None = None, type_column: str | None = None, id: str | None = None,
            id_prefix: str | None = None, properties: Iterable[str] | None = None, directed: bool = True, valid_from: str | None = None,
            valid_to: str | None = None) -> LoadResult:
        """Create or update one relationship per row between nodes that already exist.

        Without ``id``, a relationship is identified by (source, type, target): re-loading updates
        it, and rows with the same source, type and target are merged into one relationship (counted
        in ``merged``, with a warning) — give an ``id`` column to keep each row. Ids are stored as
        given, in one space shared by every relationship type: ``id_prefix="trafo:"`` stores id ``0``
        as ``"trafo:0"``, so two tables whose ids overlap can both be loaded. ``directed=False``
        stores one relationship per unordered pair and type: a row (b, a) after (a, b) is merged into
        it (with a warning); query such graphs with ``-[:T]-``. With the default ``directed=True``,
        pairs present in both directions are kept as two relationships, with a warning.
        A property column named ``type`` is refused: the relationship type is stored there. ``valid_from`` / ``valid_to``: as in ``load_nodes``.
        """
        from .data.loading import load_edges  # deferred: keeps %load_ext light

        return load_edges(
            self, df, source=source, target=target, type=type, type_column=type_column, id=id, id_prefix=id_prefix, properties=properties, directed=directed,
            valid_from=valid_from, valid_to=valid_to,
        )

    def one_history_commit(self) -> OneHistoryCommit:
        """A ``with`` block whose history loads are written to GestaltDB's history as one commit, at its end.

        Each ``load_nodes`` / ``load_edges`` with ``valid_from`` / ``valid_to`` is otherwise one commit, and GestaltDB
        looks every new version's id up in every earlier commit, so a history in several loads takes time growing with
        the square of its size (three loads of a 10,000-node history: 702 s). Inside the block each load still checks
        its rows and writes what is valid now at once; its versions are held (a relationship's end may be a node held
        in the block) and the block's end writes them all in one transaction — also when the block raised, for the
        loads that finished. A correction that ``known_at`` must tell from the first belief is a load after the block.
        """
        from .data.held import one_history_commit  # deferred: keeps %load_ext light

        return one_history_commit(self)

    def from_networkx(self, G: Any, *, label: str | dict[Any, str] = "Node", type: str = "LINKS", label_attr: str | None = None,
            type_attr: str | None = None, directed: bool | None = None):
        """Load a networkx graph: one node per node, one relationship per edge; returns both LoadResults.

        ``label`` is every node's label; with ``label_attr`` the node attribute names the label
        (``label`` may then map attribute values to labels, e.g. ``{0: "Woman", 1: "Event"}`` for
        Davis's ``bipartite``; nodes without the attribute get ``label`` if it is a string). ``type`` is
        every relationship's type, or ``type_attr`` names the edge attribute that holds it. Node ids
        must be strings or integers (relabel others first, e.g. ``nx.convert_node_labels_to_integers``).
        ``directed`` defaults to the graph's own: an undirected graph stores each edge once (query it
        with ``-[:T]-``); ``directed=False`` on a DiGraph merges reciprocal edges; ``directed=True`` on
        an undirected graph stores both directions. Multigraphs keep parallel edges (ids ``u|v|key``).
        """
        from .data.networkx_io import from_networkx  # deferred: keeps %load_ext light

        return from_networkx(self, G, label=label, type=type, label_attr=label_attr, type_attr=type_attr, directed=directed)

    def schema(self, *, refresh: bool = False, nodes: int | None = None, edges: int | None = None, exhaustive: bool = False) -> SchemaResult:
        """The connection's schema: its adapter's cached sample, or a fresh one with other limits.

        ``exhaustive=True`` scans every node and relationship (explicit, can be slow on big graphs).
        """
        from .graph.schema import schema  # deferred: keeps %load_ext light

        return schema(self, refresh=refresh, nodes=nodes, edges=edges, exhaustive=exhaustive)

    def overview(self, by: str = "community", *, labels: list[str] | None = None, types: list[str] | None = None, resolution: float = 1.0,
            max_groups: int = 300, timeout: float | None = None, memory_limit: int | str | None = None, as_of: Any = None,
            known_at: Any = None, since: Any = None) -> OverviewResult:
        """The whole graph (or the nodes with ``labels`` and relationships of ``types``) seen as groups.

        ``by``: ``"community"`` (Leiden communities of the undirected graph), ``"label"`` (one group per
        label set) or a property name (one group per value; numbers with many values in stated bins).
        More than ``max_groups`` groups: the smallest are merged into one "other" group, and the note
        says so. Bounded like a cell's read (``timeout`` seconds, ``memory_limit``, the stop button):
        a stop raises a clear error and draws nothing. ``as_of`` (and ``known_at``) group the graph valid at that
        moment as recorded by then, read from the database's history as ``run(as_of=)`` reads it (the database is only
        read); ``since`` (earlier than ``as_of``, which defaults to now) groups every node present at either moment and
        adds each group's growth: ``.groups`` gains ``before``, ``after``, ``added`` and ``removed`` (members at each moment).
        """
        from .grouped.build import overview  # deferred: keeps %load_ext light

        return overview(self, by, labels=labels, types=types, resolution=resolution, max_groups=max_groups, timeout=timeout, memory_limit=memory_limit,
                        as_of=as_of, known_at=known_at, since=since)
