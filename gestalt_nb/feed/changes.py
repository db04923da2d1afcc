"""The change feed: one event per write made through gestalt-nb, and polling for everyone else's.

GestaltDB has no change hooks, so gestalt-nb's writers publish: ``%%gcypher --write``, loads,
claim writes and name-index builds each call ``connection.feed.publish(op, ids, exact=...)`` once,
after their transaction committed (a refused or rolled-back write publishes nothing). ``ids`` are
the nodes/relationships/claims touched when known; ``exact`` says whether that list is complete.

Writes from another process are noticed by polling LMDB's write sequence (``env.info()['last_txnid']``,
via the backend's ``current_snapshot_sequence``) about twice a second while at least one live view
holds the feed (:meth:`Feed.hold`); they arrive as events with ``op="external"``, no ids and
``exact=False``. A new sequence is published only if no local event covered it by the next poll.
Backends without a sequence (RocksDB/PyRex, LevelDB) do not support polling: ``supports_polling``
is False and only gestalt-nb's own writes are seen.

``Feed`` is a ``traitlets.HasTraits``: ``feed.observe(callback, names="revision")``.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import traitlets

POLL_SECONDS = 0.5
HISTORY = 100


@dataclass(frozen=True)
class Event:
    revision: int
    op: str
    ids: tuple[str, ...] | None
    exact: bool
    at: float = field(default_factory=time.time)
    #: LMDB write sequence after the write, where the backend has one.
    sequence: int | None = None


#: Every feed made so far (a connection makes its feed on first use), for ``publish_for``.
_FEEDS: weakref.WeakSet[Feed] = weakref.WeakSet()


def publish_for(db: Any, op: str) -> None:
    """One event on every feed whose connection has ``db`` open (for writers that hold only a ``GraphDB``).

    A connection whose feed was never made has no observers, so it needs no event.
    """
    for feed in list(_FEEDS):
        connection = feed.connection
        try:
            if not getattr(connection, "closed", False) and connection.db is db:
                feed.publish(op, None, exact=False)
        except Exception:
            continue


class Feed(traitlets.HasTraits):
    """The change feed of one connection: ``revision`` counts events, ``last_event`` is the newest."""

    revision = traitlets.Int(0, read_only=True)
    last_event = traitlets.Any(None, read_only=True)

    def __init__(self, connection: Any) -> None:
        super().__init__()
        self.connection = connection
        self.events: deque[Event] = deque(maxlen=HISTORY)
        self._lock = threading.RLock()
        self._holders: set[int] = set()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.poll_seconds = POLL_SECONDS
        self._seen = self.sequence()
        self._pending: int | None = None
        _FEEDS.add(self)

    # -- publishing -------------------------------------------------------------------
    def publish(self, op: str, ids: Iterable[Any] | None = None, *, exact: bool = True) -> Event:
        """Announce one committed write. Call it once per write operation, after the commit."""
        with self._lock:
            sequence = self.sequence()
            event = Event(self.revision + 1, op, None if ids is None else tuple(str(item) for item in ids), bool(exact and ids is not None), sequence=sequence)
            if sequence is not None:
                self._seen = max(self._seen or 0, sequence)
                self._pending = None
            self.events.append(event)
            self.set_trait("last_event", event)
            self.set_trait("revision", event.revision)
        return event

    # -- the write sequence -------------------------------------------------------------
    def sequence(self) -> int | None:
        """The backend's latest committed write-transaction id (LMDB), or None where it has none."""
        if getattr(self.connection, "closed", False):
            return None
        try:
            read = getattr(self.connection.db.store, "current_snapshot_sequence", None)
            return int(read()) if read is not None else None
        except Exception:
            return None

    @property
    def supports_polling(self) -> bool:
        return self.sequence() is not None

    def check(self) -> Event | None:
        """One poll: publish an ``external`` event if the sequence moved and no local event covered it.

        A new sequence is first remembered and only published on the next check if still uncovered,
        so a local writer that commits and then publishes is never reported twice.
        """
        with self._lock:
            sequence = self.sequence()
            if sequence is None or self._seen is None or sequence <= self._seen:
                self._pending = None
                return None
            if self._pending is None:
                self._pending = sequence
                return None
            self._pending = None
            event = self.publish("external", None, exact=False)
            self._seen = sequence
            return event

    # -- polling while someone watches ---------------------------------------------------
    def hold(self, owner: Any) -> bool:
        """Poll for other processes' writes while ``owner`` (a live view) holds the feed; False if unsupported."""
        if not self.supports_polling:
            return False
        with self._lock:
            self._holders.add(id(owner))
            if self._thread is None or not self._thread.is_alive():
                self._stop.clear()
                self._seen = self.sequence() if self._seen is None else self._seen
                self._thread = threading.Thread(target=self._poll, name="gestalt-feed-poll", daemon=True)
                self._thread.start()
        return True

    def release(self, owner: Any) -> None:
        with self._lock:
            self._holders.discard(id(owner))
            if not self._holders:
                self._stop.set()

    @property
    def polling(self) -> bool:
        return self._thread is not None and self._thread.is_alive() and not self._stop.is_set()

    def _poll(self) -> None:
        while not self._stop.wait(self.poll_seconds):
            try:
                self.check()
            except Exception:
                pass

    def close(self) -> None:
        self._holders.clear()
        self._stop.set()

    def __repr__(self) -> str:
        last = self.last_event
        what = f", last {last.op}" if last is not None else ""
        return f"<Feed revision {self.revision}{what}{', polling' if self.polling else ''}>"
