"""Fixture adapters: LangGraph's store test suites run against GestaltStore, test bodies unchanged.

The vendored suites build their stores through ``SqliteStore`` / ``AsyncSqliteStore`` /
``PostgresStore`` / ``AsyncPostgresStore`` / ``InMemoryStore``; each vendored file imports these
names from here instead, so every store a test body builds is a real ``GestaltStore`` on a real
LMDB database in a temporary directory (closed and removed when the test's ``with`` ends, or at
exit). What differs from the originals' construction API, and only that, is adapted here:

* ``from_conn_string(conn, index=, ttl=)``: ``":memory:"`` is a fresh database; a file path
  maps to one database directory beside it (so a second ``from_conn_string`` on the same path
  reopens it). Postgres's ``pipeline=`` / ``pool_config=`` are accepted and ignored (GestaltStore
  has one embedded database, no connection pool).
* ``setup()`` is a no-op (GestaltStore needs no migrations); the async classes await it.
* ``await start_ttl_sweeper()`` / ``await stop_ttl_sweeper()`` / ``await sweep_ttl()`` for the async APIs
  (GestaltStore's are plain methods; the async classes wrap them).
* Helpers that backdate or read rows with SQL (``_expire_now``, ``_row_exists``,
  ``_stored_expires_at``) are rewritten in the vendored files to do the same on the item node.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from gestaltdb.graphdb import GraphDB

from gestalt_nb.memory import GestaltStore

MAP = {"map_size": 2**30}
_DIRS: dict[str, str] = {}


def _cleanup() -> None:
    for folder in _DIRS.values():
        shutil.rmtree(folder, ignore_errors=True)


atexit.register(_cleanup)


def _open(conn_string: str | None) -> tuple[GraphDB, str | None]:
    """A database for a connection string, and the folder to remove when the store closes."""
    if conn_string in (None, ":memory:"):
        folder = tempfile.mkdtemp(prefix="gestalt-suite-")
        return GraphDB.create(Path(folder) / "g", backend="lmdb", serializer="json", backend_options=MAP), folder
    folder = _DIRS.get(conn_string)
    if folder is None:
        folder = _DIRS[conn_string] = tempfile.mkdtemp(prefix="gestalt-suite-")
        return GraphDB.create(Path(folder) / "g", backend="lmdb", serializer="json", backend_options=MAP), None
    return GraphDB.open(Path(folder) / "g", backend_options=MAP), None


class SuiteStore(GestaltStore):
    """A GestaltStore that owns its database (the suites' stores own their connections)."""

    def __init__(self, conn_string: str | None = None, *, index: Any = None, ttl: Any = None, **_ignored: Any) -> None:
        self._graph, self._folder = _open(conn_string)
        super().__init__(self._graph, index=index, ttl=ttl)

    @classmethod
    @contextmanager
    def from_conn_string(cls, conn_string: str, *, index: Any = None, ttl: Any = None, **ignored: Any):
        store = cls(conn_string, index=index, ttl=ttl, **ignored)
        try:
            yield store
        finally:
            store.shutdown()

    def setup(self) -> None:
        """GestaltStore needs no migrations."""

    def shutdown(self) -> None:
        self.close()
        self._graph.close()
        if self._folder:
            shutil.rmtree(self._folder, ignore_errors=True)

    def __del__(self) -> None:  # InMemoryStore() in a test body is never closed by the test
        try:
            if not self._closed:
                self.shutdown()
        except Exception:
            pass


class AsyncSuiteStore(SuiteStore):
    @classmethod
    @asynccontextmanager
    async def from_conn_string(cls, conn_string: str, *, index: Any = None, ttl: Any = None, **ignored: Any):
        store = cls(conn_string, index=index, ttl=ttl, **ignored)
        try:
            yield store
        finally:
            store.shutdown()

    async def setup(self) -> None:  # type: ignore[override]
        """GestaltStore needs no migrations."""

    async def start_ttl_sweeper(self, sweep_interval_minutes: float | None = None):  # type: ignore[override]
        return SuiteStore.start_ttl_sweeper(self, sweep_interval_minutes)

    async def stop_ttl_sweeper(self, timeout: float | None = 5.0) -> bool:  # type: ignore[override]
        return SuiteStore.stop_ttl_sweeper(self, timeout)

    async def sweep_ttl(self) -> int:  # type: ignore[override]
        return SuiteStore.sweep_ttl(self)


class InMemorySuiteStore(SuiteStore):
    """``InMemoryStore(index=...)`` as the checkpoint suite calls it: a fresh GestaltStore."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(None, **kwargs)


# The names the suites import.
SqliteStore = PostgresStore = SuiteStore
AsyncSqliteStore = AsyncPostgresStore = AsyncSuiteStore


# -- the Postgres suites' SQL helpers, done on the item node ---------------------------------
def _item_node(store: GestaltStore, ns: tuple[str, ...], key: str):
    from gestalt_nb.memory import item_id

    return store._db().get_node(item_id(tuple(ns), key).encode("utf-8"))


def expire_now(store: GestaltStore, ns: tuple[str, ...], key: str) -> None:
    """Backdate an item's expiry one minute into the past without deleting it (unswept)."""
    from datetime import datetime, timedelta, timezone

    from gestalt_nb.memory.codec import EXPIRES

    db = store._db()
    with db.transaction() as tx:
        node = _item_node(store, ns, key)
        past = datetime.now(timezone.utc) - timedelta(minutes=1)
        node.properties.update({"expires_at": past.isoformat(), EXPIRES: past.timestamp()})
        tx.put_node(node)


def row_exists(store: GestaltStore, ns: tuple[str, ...], key: str) -> bool:
    return _item_node(store, ns, key) is not None


def stored_expires_at(store: GestaltStore, ns: tuple[str, ...], key: str):
    from datetime import datetime

    node = _item_node(store, ns, key)
    raw = node.properties.get("expires_at") if node is not None else None
    return datetime.fromisoformat(raw) if raw else None
