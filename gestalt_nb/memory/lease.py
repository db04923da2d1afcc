"""Who may write a database's memories: one lock per database in this process, one writing process
per database (a lease in the database's metadata naming the process), and the TTL sweeper thread."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable
from typing import Any

from gestaltdb.graphdb import GraphDB

from ..engine.store import store_path
from ..errors import GestaltError

LEASE = b"gestalt_nb.memory.writer"
_LOCKS: dict[str, threading.RLock] = {}
_LOCKS_GUARD = threading.Lock()


def lock_for(db: GraphDB) -> threading.RLock:
    """One lock per database (by path), shared by every store on it in this process."""
    key = str(store_path(db) or f"id:{id(db)}")
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(key, threading.RLock())


def _started(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (Linux), to tell a reused pid apart."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rpartition(")")[2].split()[19]
    except (OSError, IndexError):
        return None


def writer_token() -> str:
    pid = os.getpid()
    return f"{socket.gethostname()}:{pid}:{_started(pid) or '-'}"


def holder_alive(holder: str) -> bool:
    """Whether the process named by a lease still runs. Another host's lease counts as stale:
    LMDB does not work over network file systems, so another host name means the directory was
    moved or the container restarted."""
    host, pid, started = (holder.split(":") + ["", ""])[:3]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    if started not in ("", "-") and os.path.exists("/proc/self/stat"):
        return _started(int(pid)) == started
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def claim(tx: GraphDB, token: str, hint: str = "") -> None:
    """Refuse to write while another live process holds this database's writer lease."""
    raw = tx.store.get_metadata(LEASE)
    holder = raw.decode("utf-8") if raw else None
    if holder == token:
        return
    if holder and holder_alive(holder):
        raise GestaltError(
            f"Another process ({holder}) is writing memories to this database; several processes writing one "
            f"GestaltStore is unsupported{hint}. Close the store there (store.close()) or use one process."
        )
    tx.store.put_metadata(LEASE, token.encode("utf-8"))


def release(db: GraphDB, token: str) -> None:
    if db.store.get_metadata(LEASE) == token.encode("utf-8"):
        with db.transaction() as tx:
            tx.store.delete_metadata(LEASE)


def sweep_loop(ref: Callable[[], Any], stop: threading.Event, seconds: float) -> None:
    """The sweeper thread's body: sweep every ``seconds`` until stopped, the store is gone or closed,
    or its database closes."""
    while not stop.wait(seconds):
        store = ref()
        if store is None or store._closed:
            return
        try:
            store._sweep_once()
        except Exception:  # a closed database (or connection) ends the sweeper
            return
        finally:
            del store
