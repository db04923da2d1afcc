"""Opening a GestaltDB database so that nothing can write a byte to it (``connect(path, read_only=True)``).

GestaltDB's LMDB store always opens its environment for writing, and ``GraphDB.open`` may write on its own (a
database identity, a refreshed manifest, a lock file beside the data). ``open_read_only`` runs the engine's own
``GraphDB.open`` with two pieces changed: the LMDB environment is opened with LMDB's ``readonly=True`` (a write
transaction fails in LMDB itself), and the database identity is read, never assigned. LMDB's lock file is used
when it can be opened (readers and a writer in another process then see consistent snapshots); on a read-only
file system, or when the lock file cannot be written, the environment is opened with ``lock=False`` (LMDB's mode
for read-only media: no other process should be writing to it meanwhile).
"""

from __future__ import annotations

import errno
import uuid
from pathlib import Path
from typing import Any

from gestaltdb.graphdb import GraphDB
from gestaltdb.kvstores import LMDBStore

from ..errors import GestaltError

_IDENTITY_KEY = b"schema:database_identity:v1"  # GestaltDB's own key for the database identity
_TABLES = ("nodes", "edges", "adj", "typed_adj", "index", "metadata")


class ReadOnlyLMDBStore(LMDBStore):
    """GestaltDB's ``LMDBStore`` over an environment opened with LMDB's ``readonly=True`` (``lock`` as LMDB's)."""

    def __init__(self, path: str = "graph_lmdb", map_size: int = 10_485_760, map_id: bool = True, map_keys: bool = False,
                 lock: bool = True) -> None:
        if map_keys:
            raise GestaltError("This database maps its keys (map_keys), which read_only=True does not open; open it without read_only.")
        lmdb = self.ensure_available()
        self.path = path
        self.read_only_lock = lock
        self.env = lmdb.open(path, map_size=map_size, subdir=True, max_dbs=6, readonly=True, lock=lock)
        for name in _TABLES:
            setattr(self, f"{name}_db", self.env.open_db(name.encode("ascii"), create=False))


class ReadOnlyGraphDB(GraphDB):
    """``GraphDB`` whose ``open`` makes a ``ReadOnlyLMDBStore`` and reads its identity without writing one."""

    @staticmethod
    def _backend_class(name: str) -> Any:
        if name != "lmdb":
            raise GestaltError(f"read_only=True opens LMDB databases; this one is stored in '{name}'. Open it without read_only.")
        return ReadOnlyLMDBStore

    def _initialize_database_id(self, expected: str | None) -> str:
        payload = self.store.get_metadata(_IDENTITY_KEY)
        value = payload.decode("ascii") if payload else expected
        self._database_id = str(uuid.UUID(value)) if value else None
        return self._database_id or ""

    def save_manifest(self, path: Any = None) -> Any:
        """Nothing is written by a read-only open (an old manifest without an identity is read as it is)."""
        return self._manifest


def _unwritable(exc: BaseException) -> bool:
    return getattr(exc, "errno", None) in (errno.EROFS, errno.EACCES, errno.EPERM) or any(
        words in str(exc) for words in ("Read-only file system", "Permission denied", "Operation not permitted"))


def open_read_only(path: Path, map_size: int) -> GraphDB:
    """The database at ``path`` opened through LMDB's read-only mode (see the module docstring)."""
    try:
        return ReadOnlyGraphDB.open(path, backend_options={"map_size": map_size, "lock": True})
    except GestaltError:
        raise
    except Exception as exc:
        if not _unwritable(exc):
            raise
    return ReadOnlyGraphDB.open(path, backend_options={"map_size": map_size, "lock": False})
