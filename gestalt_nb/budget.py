"""Time and memory budgets for reads: the query runs on a worker thread that a watchdog can stop.

GestaltDB's engine is pure Python, so a query can be stopped between two bytecodes. The calling
thread (the kernel's main thread, or a LangGraph ``ToolNode`` worker) starts the query on a fresh
thread and watches it: every ``POLL`` seconds it reads the monotonic clock and the process's
resident memory (``/proc/self/statm``); when a budget is spent it raises :class:`_Stop` inside the
query's thread with ``PyThreadState_SetAsyncExc`` and waits until that thread has really ended.
The stop unwinds through the engine's ``with``/``finally`` blocks, so its LMDB read snapshot is
closed and the database stays usable. A kernel interrupt (Ctrl-C, Lab's stop button) reaches the
waiting thread and stops the query the same way.

Limits of the mechanism: the memory budget counts what the whole process gains while the query
runs (two queries at once share it), and a single long C call (building one huge list) cannot be
interrupted until it returns — so ``range()`` calls whose size is known before running are
checked against the memory budget up front (:func:`materialised`). Only reads are budgeted:
stopping a write midway is what the transaction cannot survive.
"""

from __future__ import annotations

import ctypes
import gc
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from .errors import GestaltError

T = TypeVar("T")

#: Seconds between two looks at the clock and the memory. Each look takes the GIL from the query for
#: a moment, which on a loaded machine can cost it an OS scheduling delay: 0.02 s measured 1.4x wall
#: on the 1,000-row query with a load average of 10; 0.1 s keeps that small (see bench_budget.py).
POLL = 0.1
#: Seconds after which a stop that has not ended the query is sent again.
RESEND = 0.1
#: Bytes per element of a materialised list of ints (an 8-byte slot plus a 32-byte int object).
BYTES_PER_ITEM = 40


class _Stop(BaseException):
    """Raised inside the query's thread to stop it (BaseException: no ``except Exception`` eats it)."""


class QueryInterrupted(KeyboardInterrupt):
    """The person interrupted the kernel during a query; the query was stopped before this was raised."""

    def _render_traceback_(self) -> list[str]:
        return [f"\x1b[0;31mKeyboardInterrupt\x1b[0m: {self}"]


@dataclass(frozen=True)
class Budget:
    """How long a read may run (seconds) and how much memory the process may gain meanwhile (bytes)."""

    timeout: float
    memory: int
    #: Who set it, for the message saying how to raise it: "cell" or "tool".
    scope: str = "cell"

    def describe(self) -> str:
        return f"{seconds(self.timeout)} / {size(self.memory)}"


@dataclass(frozen=True)
class Usage:
    """What one bounded run used: wall time and the largest memory growth seen."""

    elapsed: float
    memory_peak: int


class BudgetExceeded(GestaltError):
    """A read was stopped because it spent its time or memory budget; ``kind`` is "time" or
    "memory" ("interrupted" when a kernel interrupt stopped a query watched by another thread)."""

    def __init__(self, message: str, *, kind: str, budget: Budget, usage: Usage) -> None:
        super().__init__(message)
        self.kind, self.budget, self.usage = kind, budget, usage


def parse_bytes(value: int | str, what: str) -> int:
    """``536870912``, ``"512MiB"``, ``"2GB"`` or ``"4g"`` in bytes (binary units); at least 1 MiB."""
    import re

    if isinstance(value, int) and not isinstance(value, bool):
        amount = value
    else:
        match = re.match(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b?)\s*$", str(value), re.IGNORECASE)
        if not match:
            raise GestaltError(f"Cannot read {what} {value!r}; write it like 2GiB, 512MiB or 536870912.")
        amount = int(float(match.group(1)) * 1024 ** " kmgt".index(match.group(2).lower() or " "))
    if amount < 1024**2:
        raise GestaltError(f"{what[:1].upper()}{what[1:]} {value!r} is too small; use at least 1MiB.")
    return amount


def seconds(value: float) -> str:
    return f"{value:g} s"


def size(value: int) -> str:
    for unit, power in (("GiB", 3), ("MiB", 2), ("KiB", 1)):
        if value >= 1024**power:
            return f"{value / 1024**power:.3g} {unit}"
    return f"{value} B"


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident() -> int:
    """The process's resident memory in bytes (Linux ``/proc``; peak RSS elsewhere)."""
    try:
        with open("/proc/self/statm", "rb") as handle:
            return int(handle.read().split()[1]) * _PAGE
    except OSError:  # pragma: no cover - not Linux
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


_RUNNING: set[_Run] = set()
_RUNNING_LOCK = threading.RLock()  # re-entrant: the SIGINT guard may run while it is held


class _Run:
    """One query on its own thread, and the hand-shake that lets a watchdog stop it exactly once."""

    def __init__(self, work: Callable[[], Any]) -> None:
        self.work = work
        self.lock = threading.RLock()
        self.done = threading.Event()
        self.state = "running"  # running -> stopping (a stop was sent) -> finished
        self.outcome: tuple[bool, Any] = (False, None)
        self.thread = threading.Thread(target=self._main, name="gestalt-query", daemon=True)
        self.ident = 0

    def _main(self) -> None:
        try:
            self.outcome = self._call()
        except _Stop:  # a stop delivered while the first outcome was being recorded
            self.outcome = (False, _Stop())
        while True:  # two levels: a stop re-sent just before we finish is caught however it lands
            try:
                try:
                    self._finish()
                    break
                except _Stop:
                    self.outcome = (False, _Stop())
            except _Stop:
                self.outcome = (False, _Stop())
        self.done.set()

    def _finish(self) -> None:
        with self.lock:
            if self.state == "stopping":
                # Drop a stop that was sent but not delivered yet: nothing may run it later.
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self.ident), None)
                if self.outcome[0]:
                    self.outcome = (False, _Stop())
            self.state = "finished"

    def _call(self) -> tuple[bool, Any]:
        try:
            return True, self.work()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread as is
            return False, exc

    def start(self) -> None:
        self.thread.start()  # returns once the thread runs, so its ident is known
        self.ident = self.thread.ident

    def stop(self) -> None:
        """Ask the query's thread to stop; it unwinds at its next bytecode.

        Sent again by :meth:`wait_stopped` while the thread runs on: an asynchronous exception that
        lands in a weakref callback or a ``__del__`` is swallowed there ("Exception ignored in").
        """
        with self.lock:
            if self.state == "finished":
                return
            self.state = "stopping"
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self.ident), ctypes.py_object(_Stop))

    def wait_stopped(self) -> None:
        """Wait until the query's thread has ended, even through further interrupts."""
        interrupted = False
        while not self.done.is_set():
            try:
                if not self.done.wait(RESEND):
                    self.stop()
            except KeyboardInterrupt:
                interrupted = True
        self.thread.join()  # the thread is past its last bytecode of work; this returns at once
        if interrupted:
            raise KeyboardInterrupt


def _quiet_stops(hook: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def hook_without_stops(unraisable: Any) -> Any:
        if unraisable.exc_type is _Stop:
            return None  # a stop that landed in a weakref callback or __del__; it is sent again
        return hook(unraisable)

    hook_without_stops.gestalt_quiet = True  # type: ignore[attr-defined]
    return hook_without_stops


def run_within(work: Callable[[], T], budget: Budget, *, describe: str = "query") -> tuple[T, Usage]:
    """Run ``work()`` within ``budget`` and return its value and what it used.

    Raises :class:`BudgetExceeded` (the work was stopped), :class:`QueryInterrupted` (a kernel
    interrupt stopped it), or whatever ``work`` raised. In every case the worker thread has ended.
    """
    if not getattr(sys.unraisablehook, "gestalt_quiet", False):
        sys.unraisablehook = _quiet_stops(sys.unraisablehook)
    run = _Run(work)
    started = time.monotonic()
    baseline = resident()
    peak = 0
    deadline = started + budget.timeout
    kind = None
    with _RUNNING_LOCK:
        _RUNNING.add(run)
    try:
        run.start()
        try:
            while not run.done.wait(min(POLL, max(deadline - time.monotonic(), 0.0))):
                peak = max(peak, resident() - baseline)
                if peak > budget.memory:
                    kind = "memory"
                elif time.monotonic() >= deadline:
                    kind = "time"
                else:
                    continue
                run.stop()
                break
        except KeyboardInterrupt:
            run.stop()
            run.wait_stopped()
            release()
            raise QueryInterrupted(
                f"the {describe} was stopped after {time.monotonic() - started:.1f} s; the database is unchanged and usable."
            ) from None
        run.wait_stopped()
    finally:
        with _RUNNING_LOCK:
            _RUNNING.discard(run)
    usage = Usage(time.monotonic() - started, max(peak, resident() - baseline))
    ok, value = run.outcome
    if ok:
        return value, usage
    if isinstance(value, _Stop):
        value = None
        release()
        kind = kind or "interrupted"  # stopped from outside: stop_all() after a kernel interrupt
        raise BudgetExceeded(_message(kind, budget, usage, describe), kind=kind, budget=budget, usage=usage)
    raise value


def release() -> None:
    """Free what a stopped query built (and any read snapshot it held) and hand the memory back to
    the system, so the next query's memory budget is measured from an honest baseline."""
    gc.collect()
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (AttributeError, OSError):  # pragma: no cover - not glibc
        pass


def stop_all() -> int:
    """Stop every bounded query still running (after an interrupted agent run); return how many."""
    with _RUNNING_LOCK:
        runs = list(_RUNNING)
    for run in runs:
        run.stop()
    for run in runs:
        run.wait_stopped()
    return len(runs)


def guard_interrupts(*_: Any) -> None:
    """Make the next Ctrl-C (Lab's stop button) first stop every bounded query, then interrupt.

    A query started from the main thread is stopped by its own watchdog; one started on another
    thread — an agent tool inside LangGraph's ``ToolNode`` — is not reached by the interrupt, and
    its executor would wait for it. Registered as an IPython ``pre_run_cell`` hook (ipykernel
    resets the SIGINT handler before each cell), it wraps whatever handler is in place.
    """
    import signal

    if threading.current_thread() is not threading.main_thread():
        return
    current = signal.getsignal(signal.SIGINT)
    if getattr(current, "gestalt_guard", False) or not callable(current):
        return

    def stop_queries_then_interrupt(signum: int, frame: Any) -> Any:
        stop_all()
        return current(signum, frame)

    stop_queries_then_interrupt.gestalt_guard = True  # type: ignore[attr-defined]
    signal.signal(signal.SIGINT, stop_queries_then_interrupt)


def running() -> int:
    """How many bounded queries are running now."""
    with _RUNNING_LOCK:
        return len(_RUNNING)


_RAISE = {
    ("cell", "time"): "raise it with --timeout SECONDS on the cell or %config GestaltMagic.timeout = SECONDS",
    ("cell", "memory"): "raise it with --memory-limit SIZE (e.g. 4GiB) on the cell or %config GestaltMagic.memory_limit = '4GiB'",
    ("tool", "time"): "ask for less (a LIMIT inside, a label, typed relationships, fewer hops); the application sets the budget (tool_timeout)",
    ("tool", "memory"): "ask for less (a LIMIT inside, a label, typed relationships, fewer hops); the application sets the budget (tool_memory_limit)",
}


def _message(kind: str, budget: Budget, usage: Usage, describe: str) -> str:
    if kind == "interrupted":
        return f"Stopped: the {describe} was stopped by a kernel interrupt after {usage.elapsed:.1f} s; the database is unchanged and usable."
    if kind == "time":
        what = f"ran past its time budget of {seconds(budget.timeout)}"
    else:
        what = f"grew the process by {size(usage.memory_peak)}, over its memory budget of {size(budget.memory)}"
    return (
        f"Stopped: the {describe} {what} (stopped after {usage.elapsed:.1f} s). Nothing was returned; the "
        f"database is unchanged and usable. To let it run, {_RAISE[(budget.scope, kind)]}."
    )


def over_budget_up_front(items: int, budget: Budget, describe: str) -> BudgetExceeded | None:
    """The error for a query that would materialise ``items`` values beyond the memory budget."""
    needed = items * BYTES_PER_ITEM
    if needed <= budget.memory:
        return None
    usage = Usage(0.0, 0)
    return BudgetExceeded(
        f"Refused: the {describe} would materialise a list of {items:,} values (about {size(needed)}), over its "
        f"memory budget of {size(budget.memory)}; nothing was run. To let it run, {_RAISE[(budget.scope, 'memory')]}.",
        kind="memory",
        budget=budget,
        usage=usage,
    )
