"""Concurrent async calls share transactions, as AsyncSqliteStore's and AsyncPostgresStore's do.

Every ``abatch`` (and so every ``aget``/``aput``/``asearch``/``adelete``/``alist_namespaces``)
is validated and embedded in its caller's task, then queued; one drain task per event loop takes
everything queued and runs it in a worker thread as one transaction — the calls in the order
they were queued, each call's reads seeing the calls before it, exactly as if run one after the
other. If that shared transaction fails, nothing of it is kept and each call is run again alone,
so a failing call fails only itself (each call stays all or nothing).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Call:
    """One prepared ``batch``/``abatch`` call: its ops, its puts (last put of a key wins), the
    query vectors and the document vectors it needs, and its put values as JSON text."""

    ops: list
    puts: dict
    queries: dict
    vectors: dict
    texts: dict = field(default_factory=dict)


class Batcher:
    """The queue of one store on one event loop."""

    def __init__(self, store: Any, loop: asyncio.AbstractEventLoop) -> None:
        self.store = store
        self.loop = loop
        self.pending: list[tuple[Call, asyncio.Future]] = []
        self.task: asyncio.Task | None = None

    def submit(self, call: Call) -> asyncio.Future:
        future = self.loop.create_future()
        self.pending.append((call, future))
        if self.task is None or self.task.done():
            self.task = self.loop.create_task(self._drain())
        return future

    async def _drain(self) -> None:
        while self.pending:
            group, self.pending = self.pending, []
            group = [(call, future) for call, future in group if not future.cancelled()]
            if not group:
                continue
            try:
                outcomes = await asyncio.to_thread(self.store._run_calls, [call for call, _ in group])
            except BaseException as exc:
                outcomes = [exc] * len(group)
            for (_, future), outcome in zip(group, outcomes):
                if future.done():
                    continue
                if isinstance(outcome, BaseException):
                    future.set_exception(outcome)
                else:
                    future.set_result(outcome)


def batcher_for(store: Any) -> Batcher:
    loop = asyncio.get_running_loop()
    batcher = store._batcher
    if batcher is None or batcher.loop is not loop:
        batcher = store._batcher = Batcher(store, loop)
    return batcher
