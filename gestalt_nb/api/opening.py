"""Opening connections: a database directory, a new one, the demo graph or a graph you hold; the current one.

Also :func:`kept`, which every call that returns a result passes it through, so ``last_result()`` finds it.
"""

from __future__ import annotations

from typing import Any

from ..cypher.result import QueryResult
from ..session import REGISTRY, Connection


def kept(result: Any) -> Any:
    """``result``, kept as the connection registry's last result (what ``last_result()`` returns)."""
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


def last_result() -> QueryResult | None:
    """The result a magic or a call (``run``, ``query_subgraph``, ``shortest_path``, ``overview``, ``answer``, …) last returned.

    Returns
    -------
    QueryResult or None
        The result as it was returned (a ``QueryResult``, ``SubgraphResult``, ``OverviewResult``, …); None before the first.

    Examples
    --------
    >>> gestalt_nb.run("MATCH (p:Person) RETURN p.name AS name LIMIT 3")
    >>> gestalt_nb.last_result().df
    """
    return REGISTRY.last_result
