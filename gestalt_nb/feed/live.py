"""Live results: a read query that re-runs when the graph changes and redraws only the difference.

``live(query)`` (``%%gcypher --live``) runs the query once, then follows the connection's change
feed. Events are debounced (``debounce`` seconds after the last one, but never more than
``max_wait`` after the first): a burst of writes causes one re-run, and at most one re-run is in
flight at a time (events during a re-run cause exactly one more afterwards). The canvas gets the
difference: ``remove`` for nodes and relationships that are gone, ``add`` for new ones (placed next
to drawn neighbours; existing nodes keep their positions). A node whose labels or properties
changed is removed and added again. While a live result runs, the feed polls LMDB's write
sequence, so writes from other processes re-run it too (within about a second).
``stop()`` (the Stop button) ends it; so does re-running the cell that showed it.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from ..cypher.result import QueryResult
from ..display import Displayable
from ..errors import GestaltError
from ..graph.subgraph import Subgraph

DEBOUNCE = 0.3
MAX_WAIT = 2.0


class Live(Displayable):
    """One live query on one connection; ``result`` is the newest run, ``reruns`` counts re-runs."""

    def __init__(
        self,
        connection: Any,
        query: str,
        params: dict[str, Any] | None = None,
        *,
        limit: int | None = None,
        debounce: float = DEBOUNCE,
        max_wait: float = MAX_WAIT,
        view_options: dict[str, Any] | None = None,
    ) -> None:
        if not isinstance(debounce, (int, float)) or debounce < 0 or not isinstance(max_wait, (int, float)) or max_wait < debounce:
            raise GestaltError("debounce must be 0 or more seconds and max_wait at least as long.")
        self.connection, self.query, self.params, self.limit = connection, query, dict(params or {}), limit
        self.debounce, self.max_wait = float(debounce), float(max_wait)
        self.view_options = dict(view_options or {})
        self.result: QueryResult = connection.run(query, self.params, limit=limit)
        if self.result.write:
            raise GestaltError("A live view only reads; run the write as its own %%gcypher --write cell.")
        self.reruns = 0
        self.refreshed_at = time.time()
        self.feed_revision = connection.feed.revision
        self.error: str | None = None
        self.stopped = False
        self.history: list[dict[str, Any]] = []
        self._lock = threading.RLock()
        self._timer: threading.Timer | None = None
        self._first_pending: float | None = None
        self._in_flight = False
        self._dirty = False
        self._idle = threading.Event()
        self._idle.set()
        self._listeners: list[Any] = []
        connection.feed.observe(self._on_event, names="revision")
        self.polling = connection.feed.hold(self)

    # -- reading ------------------------------------------------------------------------
    @property
    def subgraph(self) -> Subgraph:
        return self.result.subgraph

    @property
    def df(self):
        return self.result.df

    def status(self) -> str:
        when = time.strftime("%H:%M:%S", time.localtime(self.refreshed_at))
        state = "stopped" if self.stopped else "live"
        text = f"{state} · refreshed {when} · {self.reruns} re-run{'s' if self.reruns != 1 else ''} · {self.subgraph.summary()}"
        if not self.polling and not self.stopped:
            text += " · other processes' writes are not seen (this backend has no write sequence)"
        if self.error:
            text += f" · last re-run failed: {self.error}"
        return text

    def on_refresh(self, callback: Any) -> None:
        """Call ``callback(live)`` after every re-run (views use it to update their status line)."""
        self._listeners.append(callback)

    # -- the feed -----------------------------------------------------------------------
    def _on_event(self, change: dict[str, Any]) -> None:
        with self._lock:
            if self.stopped:
                return
            self._dirty = True
            self._idle.clear()
            now = time.monotonic()
            if self._first_pending is None:
                self._first_pending = now
            if self._in_flight:
                return  # one more re-run follows the one in flight
            self._schedule(now)

    def _schedule(self, now: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        delay = min(self.debounce, max(0.0, (self._first_pending or now) + self.max_wait - now))
        self._timer = threading.Timer(delay, self._rerun)
        self._timer.daemon = True
        self._timer.start()

    def _rerun(self) -> None:
        with self._lock:
            if self.stopped or self._in_flight:
                return
            self._in_flight, self._dirty, self._timer, self._first_pending = True, False, None, None
            revision = self.connection.feed.revision
        try:
            result = self.connection.run(self.query, self.params, limit=self.limit)
            change = self._apply(result.subgraph)
            self.result, self.error, self.feed_revision = result, None, revision
            self.history.append({"revision": revision, **change})
        except Exception as exc:
            self.error = str(exc).splitlines()[0]
        finally:
            self.reruns += 1
            self.refreshed_at = time.time()
            for callback in list(self._listeners):
                try:
                    callback(self)
                except Exception:
                    pass
            with self._lock:
                self._in_flight = False
                if self._dirty and not self.stopped:
                    self._schedule(time.monotonic())
                else:
                    self._idle.set()

    def _apply(self, new: Subgraph) -> dict[str, int]:
        """Send the canvas the difference between what it draws and ``new``."""
        canvas = self.canvas
        old = canvas.subgraph
        changed = [node_id for node_id, node in old.nodes.items() if node_id in new.nodes and new.nodes[node_id] != node]
        gone = [node_id for node_id in old.nodes if node_id not in new.nodes]
        gone_edges = [edge_id for edge_id, edge in old.edges.items() if edge_id not in new.edges or new.edges[edge_id] != edge]
        removed = canvas.remove(gone + changed + gone_edges) if gone or changed or gone_edges else 0
        added = canvas.add(new)
        highlight = (new.highlight_nodes | new.highlight_edges) & (set(canvas.subgraph.nodes) | set(canvas.subgraph.edges))
        if highlight != canvas.subgraph.highlight_nodes | canvas.subgraph.highlight_edges:
            canvas.highlight(sorted(highlight))
        canvas.say(f"Refreshed {time.strftime('%H:%M:%S')}: +{added['nodes']} nodes, −{len(gone)} nodes.", "info")
        return {"added_nodes": added["nodes"], "added_edges": added["edges"], "removed": removed, "changed": len(changed)}

    # -- control ------------------------------------------------------------------------
    def wait(self, timeout: float = 10.0) -> bool:
        """Block until no re-run is pending or running (for scripts and tests); False on timeout."""
        return self._idle.wait(timeout)

    def refresh(self) -> None:
        """Re-run now (outside the feed)."""
        self._rerun()

    def stop(self) -> None:
        """Stop following the feed (polling ends when no live view holds it)."""
        with self._lock:
            if self.stopped:
                return
            self.stopped = True
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._idle.set()
        try:
            self.connection.feed.unobserve(self._on_event, names="revision")
        except ValueError:
            pass
        self.connection.feed.release(self)
        for callback in list(self._listeners):
            try:
                callback(self)
            except Exception:
                pass

    def __repr__(self) -> str:
        return f"<Live {self.query.strip()[:60]!r}: {self.status()}>"


def live(connection: Any, query: str, params: dict[str, Any] | None = None, **options: Any) -> Live:
    """Start a live result of ``query`` on ``connection`` (see :class:`Live`)."""
    return Live(connection, query, params, **options)
