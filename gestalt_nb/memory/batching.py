"""A ``batch``/``abatch`` call prepared (``prepare``), and concurrent async calls sharing transactions,
as AsyncSqliteStore's and AsyncPostgresStore's do.

``prepare`` checks the ops before any transaction: each op's namespace with LangGraph's own
``validate_op_namespace`` (once per namespace for puts; a list namespace read as its tuple, as
SqliteStore does), and each put value made into its JSON text once (it is written as is).

Every ``abatch`` (and so every ``aget``/``aput``/``asearch``/``adelete``/``alist_namespaces``)
is validated and embedded in its caller's task, then queued; one drain task per event loop takes
everything queued and runs it in a worker thread as one transaction — the calls in the order
they were queued, each call's reads seeing the calls before it, exactly as if run one after the
other. If that shared transaction fails, nothing of it is kept and each call is run again alone,
so a failing call fails only itself (each call stays all or nothing).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from langgraph.store.base import GetOp, ListNamespacesOp, MatchCondition, Op, PutOp, SearchOp, validate_op_namespace

from ..errors import GestaltError
from .bulk import value_json
from .codec import as_namespace


def _normalised(op: Op) -> Op:
    """An op whose namespace came as a list, with the tuple it names (SqliteStore accepts lists)."""
    if isinstance(op, (GetOp, PutOp)) and isinstance(op.namespace, list):
        return op._replace(namespace=as_namespace(op.namespace))
    if isinstance(op, SearchOp) and isinstance(op.namespace_prefix, list):
        return op._replace(namespace_prefix=as_namespace(op.namespace_prefix))
    if isinstance(op, ListNamespacesOp) and any(isinstance(c.path, list) for c in op.match_conditions or ()):
        conditions = tuple(MatchCondition(c.match_type, as_namespace(c.path)) for c in op.match_conditions)
        return op._replace(match_conditions=conditions)
    return op


def prepare(ops: Iterable[Op]) -> tuple[list[Op], dict[tuple[tuple[str, ...], str], PutOp], dict]:
    """The ops checked, the puts (last put of a key wins) and each put value's JSON text."""
    ops = [op if type(op) is PutOp and type(op.namespace) is tuple else _normalised(op) for op in ops]
    puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
    texts: dict[tuple[tuple[str, ...], str], str] = {}
    checked: set[tuple[str, ...]] = set()  # namespaces of puts already validated (the check reads only them)
    for op in ops:
        if not isinstance(op, (GetOp, SearchOp, ListNamespacesOp, PutOp)):
            raise GestaltError(f"Unknown store operation {type(op).__name__}; use GetOp, SearchOp, ListNamespacesOp or PutOp.")
        if not isinstance(op, PutOp):
            validate_op_namespace(op)
            continue
        try:
            known = op.namespace in checked
        except TypeError:  # an unhashable label: the check below says what is wrong
            known = False
        if not known:
            validate_op_namespace(op)
            if not op.namespace:
                raise GestaltError("A put needs a namespace of at least one label, e.g. ('users', '42').")
            checked.add(op.namespace)
        place = (op.namespace, op.key)
        texts.pop(place, None)
        if op.value is not None:
            try:
                texts[place] = value_json(op.value)  # checked here, written as is
            except (TypeError, ValueError) as exc:
                raise GestaltError(f"The value for key {op.key!r} is not JSON: {exc}. Store JSON-compatible values.") from exc
        puts[place] = op  # the last put of a key wins, as in InMemoryStore
    return ops, puts, texts


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
