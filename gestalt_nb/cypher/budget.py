"""Time and memory budgets for reads: a watchdog thread stops a read that spends its budget.

GestaltDB's engine is pure Python, so a query can be stopped between two bytecodes. The read runs
on its caller's own thread (the kernel's main thread, or a LangGraph ``ToolNode`` worker); one
watchdog thread per process looks, every ``POLL`` seconds while reads run, at the monotonic clock
and the process's resident memory (``/proc/self/statm``); when a read's budget is spent it raises
:class:`_Stop` inside that read's thread with ``PyThreadState_SetAsyncExc``. The stop unwinds
through the engine's ``with``/``finally`` blocks, so its LMDB read snapshot is closed and the
database stays usable. A kernel interrupt (Ctrl-C, Lab's stop button) lands in the read itself when
it runs on the main thread — no other thread is left computing — and :func:`guard_interrupts`
stops reads running on other threads (agent tools).

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

from ..errors import GestaltError

T = TypeVar("T")

#: Seconds between two looks at the clock and the memory. Each look takes the GIL from the read for
#: a moment, which on a loaded machine can cost it an OS scheduling delay (0.02 s measured 1.4x wall
#: on the 1,000-row query at a load average of 10). Interrupts do not wait for it.
POLL = 0.25
#: Seconds the watchdog keeps polling without reads before it sleeps until the next one.
LINGER = 2.0
#: Seconds after which a stop that has not ended the query is sent again.
RESEND = 0.1
#: Bytes per element of a materialised list of ints (an 8-byte slot plus a 32-byte int object).
BYTES_PER_ITEM = 40


class _Stop(BaseException):
    """Raised inside the read's thread to stop it (BaseException: no ``except Exception`` eats it)."""


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


class _Run:
    """One read in progress on its caller's thread, and the hand-shake that lets the watchdog stop it.

    The state goes running -> stopping (a stop was sent) -> finished, under ``lock``; once finished
    no stop is ever sent, and a stop sent but not yet delivered is cleared, so nothing can land in
    the caller's code after :func:`run_within` returns.
    """

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.ident = threading.get_ident()
        self.lock = threading.RLock()  # re-entrant: the SIGINT guard may run while it is held
        self.state = "running"
        self.kind: str | None = None
        self.sent = 0.0
        self.started = time.monotonic()
        self.deadline = self.started + budget.timeout
        self.baseline = resident()
        self.peak = 0

    def stop(self, kind: str) -> None:
        """Raise a stop in the query's thread (again, if one sent earlier was swallowed)."""
        with self.lock:
            if self.state in ("finished", "stopped"):
                return
            self.kind = self.kind or kind
            self.state, self.sent = "stopping", time.monotonic()
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self.ident), ctypes.py_object(_Stop))

    def interrupted(self) -> None:
        """A kernel interrupt reached this run's own thread: its KeyboardInterrupt is the first stop. Marked as
        sent, so that if it is swallowed (raised inside a ``__del__``, a weakref callback or a library's
        ``except BaseException``) the watchdog sends a stop after ``RESEND`` and the interrupt is never lost."""
        with self.lock:
            if self.state == "running":
                self.kind, self.state, self.sent = "interrupted", "stopping", time.monotonic()

    def finish(self) -> bool:
        """Mark the read finished (from its own thread); True if a stop had been sent."""
        with self.lock:
            stopped = self.state in ("stopping", "stopped")
            if stopped:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self.ident), None)
            self.state = "finished"
            return stopped

    def caught(self) -> None:
        """Our own code caught a stop: it was delivered, so the watchdog sends no more (a stop resent
        while a large result is being freed would otherwise land after the read has returned)."""
        with self.lock:
            if self.state == "stopping":
                self.state = "stopped"


class _Watchdog:
    """One daemon thread for the whole process: every ``POLL`` seconds while reads run, it reads the
    clock and the resident memory and stops each read past its budget. Idle when none run."""

    def __init__(self) -> None:
        self.condition = threading.Condition()
        self.runs: set[_Run] = set()
        self.thread: threading.Thread | None = None
        self.blocked = False  # idle for LINGER seconds: sleeping until the next read is added

    def add(self, run: _Run) -> None:
        with self.condition:
            self.runs.add(run)
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._loop, name="gestalt-watchdog", daemon=True)
                self.thread.start()
            elif self.blocked:
                self.condition.notify()  # only after a pause: back-to-back reads never wake it

    def remove(self, run: _Run) -> None:
        with self.condition:
            self.runs.discard(run)

    def current(self) -> list[_Run]:
        with self.condition:
            return list(self.runs)

    def _loop(self) -> None:
        while True:
            with self.condition:
                idle = 0.0
                while not self.runs:
                    if idle >= LINGER:  # sleep until add() notifies
                        self.blocked = True
                        self.condition.wait()
                        self.blocked = False
                    else:  # a read added meanwhile is seen within POLL, with no wake-up call
                        self.condition.wait(POLL)
                        idle += POLL
                runs = list(self.runs)
            # Sleep first: a read shorter than this is never disturbed.
            time.sleep(min([POLL] + [max(run.deadline - time.monotonic(), 0.0) for run in runs if run.state == "running"]))
            now, memory = time.monotonic(), resident()
            for run in self.current():
                if run.state == "stopping":
                    if now - run.sent >= RESEND:
                        run.stop(run.kind or "time")  # a stop swallowed by a weakref callback or __del__
                    continue
                run.peak = max(run.peak, memory - run.baseline)
                if run.peak > run.budget.memory:
                    run.stop("memory")
                elif now >= run.deadline:
                    run.stop("time")


_WATCHDOG = _Watchdog()


def _quiet_stops(hook: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def hook_without_stops(unraisable: Any) -> Any:
        if unraisable.exc_type is _Stop:
            return None  # a stop that landed in a weakref callback or __del__; it is sent again
        return hook(unraisable)

    hook_without_stops.gestalt_quiet = True  # type: ignore[attr-defined]  # a mark on the function, read to find our hook again
    return hook_without_stops


def _attempt(run: _Run, work: Callable[[], T]) -> tuple[bool, Any]:
    """(True, value), (False, exception) or (False, None) when stopped — whatever lands where."""
    try:
        try:
            return True, work()
        except _Stop:
            run.caught()
            return False, None
        except BaseException as exc:
            return False, exc
    except _Stop:  # a second stop, landing while the first outcome was being recorded
        run.caught()
        return False, None


def _finished(run: _Run, outcome: tuple[bool, Any]) -> tuple[bool, Any]:
    """Finish ``run`` for sure (no stop can land after this), keeping the outcome or marking it stopped."""
    while True:
        try:
            try:
                if run.finish() and outcome[0]:
                    outcome = (False, None)  # a stop was sent: the result is not kept
                return outcome
            except _Stop:
                outcome = (False, None)
            except KeyboardInterrupt as exc:
                outcome = (False, exc)
        except (_Stop, KeyboardInterrupt):
            outcome = (False, None) if outcome[0] else outcome


def _guarded(run: _Run, work: Callable[[], T]) -> tuple[bool, Any]:
    """Register ``run``, attempt ``work`` and finish the run; a stop may land at any line here."""
    outcome: tuple[bool, Any] = (False, None)
    try:
        _WATCHDOG.add(run)
        outcome = _attempt(run, work)
    except _Stop:  # landed between registering and attempting, or as _attempt returned
        run.caught()
        outcome = (False, None)
    except KeyboardInterrupt as exc:
        outcome = (False, exc)
    return _finished(run, outcome)


def run_within(work: Callable[[], T], budget: Budget, *, describe: str = "query") -> tuple[T, Usage]:
    """Run ``work()`` on this thread within ``budget``; return its value and what it used.

    Raises :class:`BudgetExceeded` (the watchdog stopped it), :class:`QueryInterrupted` (a kernel
    interrupt stopped it), or whatever ``work`` raised. Nothing of the read keeps running, and a stop
    never surfaces as anything but :class:`BudgetExceeded`, wherever it lands: a stop can arrive late
    (sent while the engine frees a large result with the GIL released, it fires at the next bytecode),
    so every line from registering the run to finishing it is inside a handler.
    """
    if not getattr(sys.unraisablehook, "gestalt_quiet", False):
        sys.unraisablehook = _quiet_stops(sys.unraisablehook)
    guard_interrupts()  # a plain Python call (outside a cell's pre_run_cell hook) is guarded too
    run = _Run(budget)
    try:
        ok, value = _guarded(run, work)
    except _Stop:  # landed as _guarded was entered or returned: finish the run here
        run.caught()
        ok, value = _finished(run, (False, None))
    _WATCHDOG.remove(run)  # finished: no stop is sent to it any more
    usage = Usage(time.monotonic() - run.started, max(run.peak, resident() - run.baseline))
    if ok:
        return value, usage
    if isinstance(value, KeyboardInterrupt) and not isinstance(value, QueryInterrupted):
        release()
        raise QueryInterrupted(
            f"the {describe} was stopped after {usage.elapsed:.1f} s; the database is unchanged and usable."
        ) from None
    if value is None:
        kind = run.kind or "interrupted"
        release()
        if kind == "interrupted" and run.ident == threading.main_thread().ident:  # a resent interrupt: still an interrupt
            raise QueryInterrupted(f"the {describe} was stopped after {usage.elapsed:.1f} s; the database is unchanged and usable.") from None
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
    """Stop every read running on another thread (agent tools, after a kernel interrupt); how many. A read on
    this thread gets the interrupt itself, and is marked so that the watchdog resends it if it is swallowed."""
    here = threading.get_ident()
    runs = []
    for run in _WATCHDOG.current():
        if run.ident == here:
            run.interrupted()
        else:
            run.stop("interrupted")
            runs.append(run)
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

    stop_queries_then_interrupt.gestalt_guard = True  # type: ignore[attr-defined]  # a mark on the function, read to find our handler again
    signal.signal(signal.SIGINT, stop_queries_then_interrupt)


def running() -> int:
    """How many budgeted reads are running now."""
    return len(_WATCHDOG.current())


_RAISE = {
    ("cell", "time"): "raise it with --timeout SECONDS on the cell or %config GestaltMagic.timeout = SECONDS",
    ("cell", "memory"): "raise it with --memory-limit SIZE (e.g. {more}) on the cell or %config GestaltMagic.memory_limit = '{more}'",
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
        f"database is unchanged and usable. To let it run, {_RAISE[(budget.scope, kind)].format(more=raised(budget.memory))}."
    )


def raised(memory: int) -> str:
    """A memory budget to suggest over ``memory``: 4GiB, or twice the budget when that is not more."""
    suggested = max(4 * 1024**3, 2 * memory)
    return f"{suggested // 1024**3}GiB" if suggested % 1024**3 == 0 else size(suggested).replace(" ", "")


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
