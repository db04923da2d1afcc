"""Named connections to embedded GestaltDB databases and their lifecycle.

A connection either *owns* its database (``open``/``create``/``demo``: closed by ``close`` and at
interpreter exit) or *borrows* one the caller already holds (``use``: never closed by us).
LMDB's map size is not persisted by GestaltDB, so every open and create passes one explicitly.
"""

from __future__ import annotations

import atexit
import json
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .capabilities import Capabilities
from .checks import checked_methods
from .engine.store import adapter_db, store_path
from .errors import GestaltError, damaged_database, no_connection, storage_problem
from .graph.ids import stored
from .makers import Makers
from .options import parse_bytes, settings

if TYPE_CHECKING:
    from gestaltdb.graphdb import GraphDB
    from langchain_gestaltdb import GestaltDBGraph

#: GestaltDB's manifest file name (its value; gestaltdb is imported only when a database is opened).
MANIFEST_FILENAME = "gestaltdb_manifest.json"


def _stack():
    """GraphDB and GestaltDBGraph, imported on first use: importing gestaltdb builds its Cypher parser
    and langchain_gestaltdb brings langsmith (~0.8 s), which ``%load_ext`` should not pay."""
    from gestaltdb.graphdb import GraphDB
    from langchain_gestaltdb import GestaltDBGraph

    return GraphDB, GestaltDBGraph



def parse_size(value: int | str) -> int:
    """Parse ``4294967296``, ``"512MiB"``, ``"2GB"`` or ``"8g"`` into bytes (binary units)."""
    return parse_bytes(value, "map size", "1GiB, 512MiB or 4294967296", " (the default is 4GiB)")


@checked_methods
@dataclass(eq=False)
class Connection(Capabilities, Makers):  # run, explain, subgraph, … (capabilities.py); toolkit, claims, retriever, … (makers.py)
    """One named database, and where it came from.

    One database, three ways to reach it, each for its own reader:
    ``graph`` is the adapter's ``GestaltDBGraph`` (the schema cache, ``query_read_only``: what gestalt-nb reads
    through); ``db`` is the engine's ``GraphDB`` under it (bulk writes, indexes, LMDB), and fails clearly once
    the connection is closed; ``handle`` is the ``GestaltDBGraph`` handed to agent tools and retrievers, ours
    to close even when the database is borrowed (``_handle`` caches that wrapper).
    """

    alias: str
    graph: GestaltDBGraph
    owned: bool
    path: Path | None = None
    map_size: int | None = None
    #: Claim writes (assert/correct/retract) allowed without a per-call --write.
    claim_writes: bool = False
    #: Opened through LMDB's read-only mode (``open(..., read_only=True)``): nothing can write to the database.
    read_only: bool = False
    closed: bool = field(default=False, init=False)
    #: A directory gestalt-nb made for this connection (the default demo) and removes on close.
    scratch: Path | None = field(default=None, repr=False)
    #: What to do once the graph is gone, where reopening the path is not it (a moment's copy: read it again).
    reopen: str | None = field(default=None, repr=False)
    _handle: GestaltDBGraph | None = field(default=None, init=False, repr=False)
    #: The history versions an open ``one_history_commit()`` block holds (None outside one): data/held.py.
    _held_versions: list[Any] | None = field(default=None, init=False, repr=False)

    @property
    def db(self) -> GraphDB:
        """The underlying ``GraphDB``; fails with a clear message once the connection is closed."""
        self._check_open()
        try:
            return self.graph.graph
        except RuntimeError as exc:
            raise GestaltError(
                f"The graph behind connection '{self.alias}' was closed by its owner. {self._reopen_hint()}"
            ) from exc

    def _check_open(self) -> None:
        """Every capability starts here: one line, not the adapter's ``RuntimeError``, once the connection is closed."""
        if self.closed:
            raise GestaltError(f"Connection '{self.alias}' is closed. {self._reopen_hint()}")

    def _reopen_hint(self) -> str:
        if self.reopen is not None:
            return self.reopen
        if self.path is not None:
            return f"Reopen it with %gestalt open {self.path}"
        return "Wrap an open graph again with %gestalt use VAR"

    def index_names(self) -> int:
        """(Re)build the case-insensitive name index beside the graph from every node, in one transaction; names indexed."""
        from .graph.names import index_names  # deferred: keeps %load_ext light

        changed = index_names(self)
        self.feed.publish("index_names", None, exact=False)
        return changed

    @property
    def feed(self):
        """This connection's change feed: one event per write made through gestalt-nb (see :mod:`gestalt_nb.feed.changes`)."""
        feed = self.__dict__.get("_feed")
        if feed is None:
            self._check_open()
            from .feed.changes import Feed  # deferred: keeps %load_ext light

            feed = self.__dict__["_feed"] = Feed(self)
        return feed

    @property
    def handle(self) -> GestaltDBGraph:
        """The adapter graph handed to tools: ours to close, so tools fail once we are closed.

        An owned connection hands its own graph; a borrowed one a non-owning wrapper of the
        caller's database (closing the wrapper never closes their database).
        """
        self._check_open()
        if self.owned:
            return self.graph
        if self._handle is None:
            self._handle = _stack()[1](self.db, owns_graph=False)
        return self._handle

    def _publish(self, op: str, ids: Any = None, *, exact: bool = True) -> None:
        if not self.closed:
            self.feed.publish(op, ids, exact=exact)

    def _tool_error(self, exc: Exception) -> str:
        if self.closed:
            return f"The GestaltDB connection '{self.alias}' is closed; these tools no longer work. {self._reopen_hint()} and build the tools again."
        return str(exc)

    def nodes(self, ids: list[str]) -> list[dict[str, Any]]:
        """Nodes by id in the adapter's JSON shape (absent ids are skipped): one key lookup each."""
        return _fetch(self.db.get_node, ids)

    def edges(self, ids: list[str]) -> list[dict[str, Any]]:
        """Relationships by id in the adapter's JSON shape (absent ids are skipped)."""
        return _fetch(self.db.get_edge, ids)

    def info(self) -> dict[str, Any]:
        """What a person needs to know about this connection, cheaply (no full scans)."""
        details: dict[str, Any] = {
            "alias": self.alias,
            "path": str(self.path) if self.path else None,
            "owned": self.owned,
            "closed": self.closed,
        }
        if not self.closed:
            db = self.db
            manifest = db.manifest if store_path(db) is not None else {}
            details["backend"] = (manifest.get("backend") or {}).get("name", type(db.store).__name__)
            details["serializer"] = (manifest.get("serializer") or {}).get("name")
            details["map_size"] = self.map_size
            stats = db.index_statistics()
            details["node_indexes"] = list(stats.get("indexed_node_properties", ()))
            details["edge_indexes"] = list(stats.get("indexed_edge_properties", ()))
        return details

    def close(self) -> None:
        """Close an owned database; a borrowed one is only forgotten, never closed."""
        if self.closed:
            return
        if "_feed" in self.__dict__:
            self.__dict__["_feed"].close()
        if self.owned:
            self.graph.close()
        elif self._handle is not None:
            self._handle.close()
        self.closed = True
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)


def _fetch(get: Any, ids: list[str]) -> list[dict[str, Any]]:
    found = (get(stored(entity_id).encode("utf-8")) for entity_id in ids)  # a node id as loaded (2) or stored
    # The adapter's own JSON normalisation, so fetched nodes have exactly the shape its queries return.
    from .graph.adapter import normalize  # deferred: the adapter (LangChain) loads on first use

    return [normalize(entity) for entity in found if entity is not None]


def _storage_error(exc: Exception, path: Path, doing: str, *, damaged: bool = False) -> Exception:
    message = storage_problem(exc, path, doing) or (damaged_database(exc, path) if damaged else None)
    return GestaltError(message) if message else exc


def _lmdb_options(path: Path, map_size: int) -> dict[str, Any] | None:
    manifest = json.loads((path / MANIFEST_FILENAME).read_text(encoding="utf-8"))
    if (manifest.get("backend") or {}).get("name") == "lmdb":
        return {"map_size": map_size}
    return None


class Registry:
    """The named connections of one kernel, one of them current."""

    def __init__(self) -> None:
        self.connections: dict[str, Connection] = {}
        self.current: str | None = None
        self.last_result: Any = None

    # -- lookup -------------------------------------------------------------
    def get(self, alias: str | None = None) -> Connection:
        """Return the named connection, or the current one when ``alias`` is None."""
        if alias is None:
            if self.current is None:
                raise GestaltError(no_connection())
            alias = self.current
        if alias not in self.connections:
            known = ", ".join(sorted(self.connections)) or "none"
            raise GestaltError(f"No connection named '{alias}'. Open connections: {known} (see %gestalt list).")
        return self.connections[alias]

    def switch(self, alias: str) -> Connection:
        """Make an open connection the current one."""
        connection = self.get(alias)
        self.current = alias
        return connection

    def _add(self, connection: Connection) -> Connection:
        self.connections[connection.alias] = connection
        self.current = connection.alias
        return connection

    def _free_alias(self, alias: str | None, default: str) -> str:
        if alias is not None:
            if alias in self.connections:
                raise GestaltError(
                    f"Alias '{alias}' is already in use; close it first (%gestalt close {alias}) or pick another --alias."
                )
            return alias
        base = re.sub(r"\W+", "_", default).strip("_") or "db"
        candidate, number = base, 2
        while candidate in self.connections:
            candidate, number = f"{base}_{number}", number + 1
        return candidate

    def _already_open(self, path: Path) -> Connection | None:
        for connection in self.connections.values():
            if connection.path is not None and connection.path == path:
                return connection
        return None

    # -- lifecycle ----------------------------------------------------------
    def open(self, path: str | Path, *, alias: str | None = None, map_size: int | str | None = None, read_only: bool = False,
             index_names: bool = False) -> Connection:
        """Open an existing database directory (any backend its manifest names); opening writes nothing to it.

        ``read_only``: through LMDB's read-only mode (works on a read-only file system). ``index_names``: build the
        case-insensitive name index in the database now if it has none (else names are matched in memory)."""
        if read_only and index_names:
            raise GestaltError("read_only=True cannot build the name index in the database; drop one of the two.")
        resolved = Path(path).expanduser().resolve()
        existing = self._already_open(resolved)
        if existing is not None:
            self.current = existing.alias
            return existing
        if not (resolved / MANIFEST_FILENAME).is_file():
            raise GestaltError(
                f"No GestaltDB database at {resolved}. Create one with %gestalt create {path}."
            )
        size = parse_size(map_size if map_size is not None else settings.map_size)
        try:
            GraphDB, GestaltDBGraph = _stack()
            options = _lmdb_options(resolved, size)
            from .engine.readonly import open_read_only  # deferred: it imports gestaltdb
            db = open_read_only(resolved, size) if read_only else GraphDB.open(resolved, backend_options=options)
            graph = GestaltDBGraph(db, owns_graph=True)
        except GestaltError:
            raise
        except Exception as exc:
            raise _storage_error(exc, resolved, f"open the database at {resolved}", damaged=True) from None
        name = self._free_alias(alias, resolved.name)
        from .graph.name_lookup import on_open  # deferred: it imports gestaltdb
        connection = Connection(name, graph, True, resolved, size if options else None, read_only=read_only)
        return on_open(self._add(connection), build=index_names)

    def create(
        self,
        path: str | Path,
        *,
        backend: str = "lmdb",
        alias: str | None = None,
        map_size: int | str | None = None,
        indexed_node_properties: list[str] | None = None,
    ) -> Connection:
        """Create a new database directory; LMDB unless another backend is named."""
        resolved = Path(path).expanduser().resolve()
        if resolved.exists() and any(resolved.iterdir()):
            hint = (
                f"open it with %gestalt open {path}"
                if (resolved / MANIFEST_FILENAME).is_file()
                else "choose an empty or new directory"
            )
            raise GestaltError(f"{resolved} is not empty; {hint}.")
        size = parse_size(map_size if map_size is not None else settings.map_size)
        options = {"map_size": size} if backend == "lmdb" else None
        GraphDB, GestaltDBGraph = _stack()
        try:
            db = GraphDB.create(
                resolved,
                backend=backend,
                serializer="json",
                backend_options=options,
                indexed_node_properties=list(indexed_node_properties or []) or None,
            )
            from .graph.names import start  # deferred: it imports gestaltdb

            start(db)  # the case-insensitive name index, beside the graph, empty and current
        except (ValueError, ImportError, ModuleNotFoundError) as exc:
            raise GestaltError(f"Cannot create a '{backend}' database: {exc}") from exc
        except Exception as exc:
            raise _storage_error(exc, resolved, f"create a database at {resolved}") from exc
        name = self._free_alias(alias, resolved.name)
        return self._add(Connection(name, GestaltDBGraph(db, owns_graph=True), True, resolved, size if options else None))

    def demo(self, path: str | Path | None = None, *, alias: str | None = None, map_size: int | str | None = None) -> Connection:
        """Open the bundled demo graph at ``path`` (built there first if absent; a temp dir by default)."""
        from .data.demo_graph import build_demo  # deferred: keeps %load_ext light

        scratch = None
        if path is None:
            reused = self._default_demo(alias)
            if reused is not None:
                self.current = reused.alias
                return reused
            scratch = Path(tempfile.mkdtemp(prefix="gestalt-demo-"))
            path = scratch / "demo"
        resolved = Path(path).expanduser().resolve()
        if (resolved / MANIFEST_FILENAME).is_file():
            return self.open(resolved, alias=alias or "demo", map_size=map_size)
        connection = self.create(resolved, alias=self._free_alias(alias, "demo"), map_size=map_size)
        connection.scratch = scratch
        try:
            build_demo(connection.graph)
        except Exception:
            self.close(connection.alias)
            raise
        return connection

    def _default_demo(self, alias: str | None) -> Connection | None:
        """The open demo this kernel built in a scratch directory, so ``%gestalt demo`` again reuses it."""
        for connection in self.connections.values():
            if connection.scratch is not None and not connection.closed and alias in (None, connection.alias):
                return connection
        return None

    def use(self, value: Any, *, alias: str) -> Connection:
        """Borrow a ``GestaltDBGraph`` or ``GraphDB`` the caller holds; it is never closed by us."""
        GraphDB, GestaltDBGraph = _stack()
        if isinstance(value, GestaltDBGraph):
            graph = value
        elif isinstance(value, GraphDB):
            graph = GestaltDBGraph(value, owns_graph=False)
        else:
            raise GestaltError(f"Cannot use a {type(value).__name__}; pass a GestaltDBGraph or gestaltdb GraphDB.")
        for connection in self.connections.values():
            if connection.graph is graph or (not connection.closed and adapter_db(connection.graph) is adapter_db(graph)):
                self.current = connection.alias
                return connection
        path = store_path(adapter_db(graph))
        return self._add(Connection(self._free_alias(None, alias), graph, False, path.resolve() if path is not None else None))

    def close(self, alias: str | None = None) -> Connection:
        """Close (owned) or forget (borrowed) a connection; the current one by default."""
        connection = self.get(alias)
        connection.close()
        del self.connections[connection.alias]
        if self.current == connection.alias:
            self.current = next(iter(reversed(self.connections)), None)
        return connection

    def close_all(self) -> None:
        """Close every owned connection (registered to run at interpreter exit)."""
        for alias in list(self.connections):
            self.close(alias)


#: The kernel-wide registry the magics and the plain Python functions share.
REGISTRY = Registry()
atexit.register(REGISTRY.close_all)

