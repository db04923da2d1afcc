"""Loading: DataFrames as nodes and relationships, a networkx graph, LangChain graph documents; each in one transaction.

Each forwards to :mod:`gestalt_nb.data` with the connection ``alias`` names (the current one by default).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..data import held, loading, networkx_io
from ..session import REGISTRY

if TYPE_CHECKING:
    from ..data.held import OneHistoryCommit
    from ..data.loading import LoadResult


def load_nodes(df: Any, *, id: str, label: str | None = None, label_column: str | None = None,
        properties: Iterable[str] | None = None, keep_id: bool | None = None, valid_from: str | None = None,
        valid_to: str | None = None, alias: str | None = None) -> LoadResult:
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
    valid_from : str, optional
        A column of the moment each row's version starts (dates, datetimes, ISO text or epoch seconds; empty: since
        always). With it or ``valid_to`` every row is a version of its node in GestaltDB's history, valid over
        ``[from, to)``, written in the same transaction; the rows valid now also update the current graph. A row
        whose interval ends before it starts, or a moment that cannot be read, is refused with its row and column.
        A later load over part of an interval wins there: a correction, and ``known_at`` earlier reads the old belief.
    valid_to : str, optional
        A column of the moment each row's version ends, excluded (empty: still valid).
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
    return loading.load_nodes(REGISTRY.get(alias), df, id=id, label=label, label_column=label_column, properties=properties, keep_id=keep_id,
        valid_from=valid_from, valid_to=valid_to)


def load_edges(df: Any, *, source: str, target: str, type: str | None = None, type_column: str | None = None,
        id: str | None = None, id_prefix: str | None = None, properties: Iterable[str] | None = None,
        directed: bool = True, valid_from: str | None = None, valid_to: str | None = None, alias: str | None = None) -> LoadResult:
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
    valid_from : str, optional
        The column of the moment each row's relationship version starts, as in ``load_nodes`` (directed only).
    valid_to : str, optional
        The column of the moment it ends, excluded (empty: still valid).
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
        directed=directed, valid_from=valid_from, valid_to=valid_to,
    )


def one_history_commit(*, alias: str | None = None) -> OneHistoryCommit:
    """A ``with`` block whose history loads are written to GestaltDB's history as one commit, at its end.

    Each ``load_nodes`` / ``load_edges`` with ``valid_from`` / ``valid_to`` is otherwise one commit of the history, and
    GestaltDB looks every new version's id up in every earlier commit: a history loaded in several loads takes time
    growing with the square of its size (three loads of a 10,000-node history took 702 s; as one commit, 100,000
    nodes take about two minutes). Inside the block each load still checks its rows and writes what is valid now at
    once; its versions are held (a relationship's end may be a node held in the block), and the block's end writes them
    all in one transaction, also when the block raised (for the loads that finished). Blocks do not nest. Where two
    held versions of one node overlap, the later load wins there; a correction that ``known_at`` must tell apart from
    the first belief is a load of its own, after the block.

    Parameters
    ----------
    alias : str, optional
        The connection to load into; the current one by default.

    Returns
    -------
    OneHistoryCommit
        The block (a context manager).

    Examples
    --------
    >>> with gestalt_nb.one_history_commit():
    ...     gestalt_nb.load_nodes(people, id="id", label="Person", valid_from="from", valid_to="to")
    ...     gestalt_nb.load_edges(jobs, source="person", target="company", type="WORKS_AT", valid_from="from", valid_to="to")
    """
    return held.one_history_commit(REGISTRY.get(alias))


def load_graph_documents(documents: Iterable[Any], *, include_source: bool = False,
        alias: str | None = None) -> LoadResult:
    """Write LangChain graph documents through the adapter's ``add_graph_documents``, in one transaction: all or none, and fast.

    Parameters
    ----------
    documents : iterable of GraphDocument
        The graph documents (nodes, relationships and a ``source`` Document each), e.g. from ``LLMGraphTransformer``.
    include_source : bool, default False
        Also store each document's source as a ``__LangChainSource__`` node with a ``MENTIONS`` relationship to
        every node it holds (what GraphRAG answers read passages from).
    alias : str, optional
        The connection to load into; the current one by default.

    Returns
    -------
    LoadResult
        Graph documents read and written (all or none), the time taken, and notes.

    Examples
    --------
    >>> from langchain_core.documents import Document
    >>> from langchain_gestaltdb.graph_document import GraphDocument, GraphNode, GraphRelationship
    >>> ada, globex = GraphNode(id="ada", type="Person"), GraphNode(id="globex", type="Company")
    >>> works = GraphRelationship(source=ada, target=globex, type="WORKS_FOR")
    >>> doc = GraphDocument(nodes=[ada, globex], relationships=[works], source=Document(page_content="Ada works for Globex."))
    >>> gestalt_nb.load_graph_documents([doc], include_source=True)
    """
    return loading.load_graph_documents(REGISTRY.get(alias), documents, include_source=include_source)


def from_networkx(G: Any, *, label: str | dict[Any, str] = "Node", type: str = "LINKS",
        label_attr: str | None = None, type_attr: str | None = None, directed: bool | None = None,
        alias: str | None = None):
    """Load a networkx graph into the current (or named) connection: one node per node, one relationship per edge.

    Node ids must be strings or integers (relabel others first, e.g. ``nx.convert_node_labels_to_integers``);
    node and edge attributes become properties. Multigraphs keep parallel edges (ids ``u|v|key``).

    Parameters
    ----------
    G : networkx.Graph
        Any networkx graph (Graph, DiGraph, MultiGraph or MultiDiGraph).
    label : str or dict, default "Node"
        Every node's label; with ``label_attr``, a dict mapping that attribute's values to labels
        (``{0: "Woman", 1: "Event"}``), and a string is the label of nodes without the attribute.
    type : str, default "LINKS"
        Every relationship's type (unless ``type_attr`` names one per edge).
    label_attr : str, optional
        The node attribute that holds (or, with a dict ``label``, picks) each node's label.
    type_attr : str, optional
        The edge attribute that holds each relationship's type.
    directed : bool, optional
        The graph's own by default: an undirected graph stores each edge once (query it with ``-[:T]-``);
        ``False`` on a DiGraph merges reciprocal edges; ``True`` on an undirected graph stores both directions.
    alias : str, optional
        The connection to load into; the current one by default.

    Returns
    -------
    tuple of LoadResult
        The nodes' ``LoadResult`` and the relationships'.

    Examples
    --------
    >>> import networkx as nx
    >>> nodes, relationships = gestalt_nb.from_networkx(nx.karate_club_graph(), label="Member", type="KNOWS")
    """
    return networkx_io.from_networkx(REGISTRY.get(alias), G, label=label, type=type, label_attr=label_attr, type_attr=type_attr, directed=directed)
