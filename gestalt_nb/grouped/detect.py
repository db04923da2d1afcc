"""Leiden communities from networkit, on a big graph in a child process, so a budget or a stop really ends them.

networkit's ``ParallelLeiden`` is one long C++ call: no budget's stop and no kernel interrupt lands
in it before it returns. So from ``APART_FROM`` relationships the edges go to a child Python (this
file, run as a script: only numpy and networkit are imported) through a pipe, a chunk at a time —
while the kernel is still reading them (``Feeder``, the compact read's sink), so the child's start
and its import overlap the read; its graph is made in one C++ call from compressed sparse rows once
the last relationship has come (``graph_of``) — and the kernel waits for it in short
sleeps, where a time budget's stop and Ctrl-C land; either kills the child. The child's resident
memory counts against the memory budget, with what the kernel itself gained. Smaller graphs take
well under a second and are grouped in a thread of the kernel (``Beside``; the Leiden call lets go of
the GIL). Either starts once the last relationship is read and runs while the kernel reads the nodes'
labels.

Why networkit's ParallelLeiden: on the bench graph (1M nodes, 3M relationships,
``bench/bench_overview.py``), on a quiet machine, it gave modularity 0.890 in 4.7 s on two threads
with two rounds (``ITERATIONS``; three rounds: 0.894 in 6.5 s; one thread: twice the time);
igraph's Leiden 0.892 in 15.2 s (one thread only), Louvain (``community_multilevel``) 0.815 and
slower, leidenalg 0.871 and ~10x slower, networkit's PLM 0.82 in 17.7 s. It runs on one thread (``THREADS``),
in the kernel and in the child alike, with its graph built on one thread and a fixed seed: the same database
gives the same communities in every process. (On two threads the moves race, and a graph built on two threads
orders its neighbours differently from run to run: five fresh processes on a 16k-relationship grid gave
57/56/56/54/57 groups.)
"""

from __future__ import annotations

import glob
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

#: Relationships from which Leiden runs in a child process (below, in the kernel: under a second).
APART_FROM = 500_000
#: Seconds between two looks at the child (a stop lands within this).
LOOK = 0.05
SEED = 7
#: Leiden's rounds (networkit's default is 3; the third gained 0.004 modularity for 40% more time here).
ITERATIONS = 2
#: networkit's threads for Leiden, in the kernel and in its process: one, so that the same database gives the same
#: groups in every process (two threads race and settle borderline nodes differently from run to run).
THREADS = 1
#: The peak resident memory (bytes) of the last Leiden process, as it measured itself (for the bench).
LAST_PROCESS_PEAK = [0]


def leiden(src: np.ndarray, dst: np.ndarray, n: int, resolution: float, threads: int = THREADS) -> tuple[np.ndarray, float]:
    """Membership (int32, one per node) and modularity of networkit's Leiden on the undirected graph,
    on ``threads`` threads (0: every core; 1: the same graph gives the same communities)."""
    with _ONE_AT_A_TIME:  # networkit's thread count and seed are global: a stopped overview's thread may still run
        with _threads(threads):  # the graph too: built on two threads, its neighbour order (and so the groups) varies
            return _leiden_on(graph_of(src, dst, n), resolution)


def weighted_leiden(src: np.ndarray, dst: np.ndarray, weight: np.ndarray, n: int, resolution: float) -> tuple[np.ndarray, float]:
    """Leiden on the undirected weighted graph ``src[i] - dst[i]`` (``weight[i]``), one thread, seeded: the graph of
    communities (each pair of communities once, weighted by the relationships between them), grouped again."""
    from types import SimpleNamespace

    import networkit  # deferred: start-up time

    order = np.lexsort((dst, src))
    src, dst, weight = np.asarray(src)[order], np.asarray(dst)[order], np.asarray(weight, dtype=np.float64)[order]
    rows = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=rows[1:])
    with _ONE_AT_A_TIME, _threads(1):
        graph = networkit.GraphFromCsr(SimpleNamespace(indptr=rows, indices=dst.astype(np.int64), data=weight, shape=(n, n)),
                                       directed=False, weighted=True)
        return _leiden_on(graph, resolution)


def graph_of(src: np.ndarray, dst: np.ndarray, n: int) -> Any:
    """networkit's undirected graph of the relationships ``src[i] - dst[i]`` (every one, a repeated pair twice), made
    from compressed sparse rows in C++: 0.3 s at 3M relationships, against 1.6 s for ``GraphFromCoo`` or ``addEdges``.
    A compact read gives the sources in order (node numbers follow LMDB's key order, as the adjacency's records do);
    otherwise they are sorted here."""
    from types import SimpleNamespace

    import networkit  # deferred: start-up time

    src, dst = np.asarray(src), np.asarray(dst)
    if src.size > 1 and not (src[1:] >= src[:-1]).all():
        order = np.argsort(src, kind="stable")
        src, dst = src[order], dst[order]
    rows = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=rows[1:])
    return networkit.GraphFromCsr(SimpleNamespace(indptr=rows, indices=dst, data=np.ones(src.size), shape=(n, n)), directed=False)


_ONE_AT_A_TIME = threading.Lock()


@contextmanager
def _threads(threads: int) -> Iterator[None]:
    """networkit on ``threads`` threads (0: every core) with the fixed seed, for what runs inside."""
    import networkit

    before = networkit.getMaxNumberOfThreads()
    networkit.setNumberOfThreads(threads or os.cpu_count() or 1)
    networkit.setSeed(SEED, False)
    try:
        yield
    finally:
        networkit.setNumberOfThreads(before)


def _leiden_on(graph: Any, resolution: float) -> tuple[np.ndarray, float]:
    """Leiden on ``graph`` (inside ``_threads``): on one thread, with the graph built on one thread too, the same
    graph gives the same communities in every process (measured: five fresh processes, one answer; on two threads
    the moves race and the answer varies)."""
    import networkit

    networkit.setSeed(SEED, False)
    found = networkit.community.ParallelLeiden(graph, iterations=ITERATIONS, gamma=resolution)
    found.run()
    partition = found.getPartition()
    modularity = networkit.community.Modularity().getQuality(partition, graph) if graph.numberOfEdges() else 0.0
    return np.asarray(partition.getVector(), dtype=np.int32), float(modularity)


def child_resident(pid: int) -> int:
    """A child process's resident memory in bytes (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def communities(src: np.ndarray, dst: np.ndarray, n: int, resolution: float,
                watch: Callable[[int, float], None] | None = None) -> tuple[np.ndarray, float]:
    """Leiden's membership and modularity; a big graph's in a child process. ``watch(child_bytes, seconds)``
    is called between looks at the child: it raises to stop (the child is then killed)."""
    with runner(resolution, int(src.size)) as sink:
        sink.start(n)
        for start in range(0, src.size, CHUNK):
            sink.feed(src[start:start + CHUNK], dst[start:start + CHUNK])
        return sink.result(watch)


def runner(resolution: float, relationships: int) -> Feeder | Beside:
    """Where Leiden runs for a graph of about ``relationships``: a child process from ``APART_FROM`` (when a
    Python can be started), else a thread of the kernel."""
    if relationships >= APART_FROM:
        try:
            return Feeder(resolution)
        except OSError:  # no Python to start (an embedded interpreter): a thread of the kernel (a stop lands; Leiden runs on to its end)
            pass
    return Beside(resolution)


#: Relationships sent to the child at a time when they are already in memory.
CHUNK = 1 << 18


class Feeder:
    """Leiden in a child process, given the relationships as they are read (a compact read's ``Sink``):
    ``start(n)``, ``feed(src, dst)`` for each chunk (queued: a thread writes the pipe), ``end()`` once the last is
    fed (Leiden starts), then ``result(watch)``. Used as a context manager, the child is killed, the writer
    ended and the folder removed on the way out, whatever happened."""

    def __init__(self, resolution: float) -> None:
        _clean_after_killed_kernels()
        self.folder = tempfile.mkdtemp(prefix=f"{FOLDER}{os.getpid()}-")
        self.errors = open(os.path.join(self.folder, "errors.txt"), "wb")  # a file: a chatty child never blocks on a full pipe
        try:
            self.child = subprocess.Popen([sys.executable, __file__, self.folder, repr(float(resolution))],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors,
                                          env={**os.environ, "OMP_WAIT_POLICY": "PASSIVE"})  # a shared core: no spinning
        except OSError:
            self.close()
            raise
        self.fed = self.ended = False
        self.outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self.writer = threading.Thread(target=self._write, name="gestalt-leiden-feed", daemon=True)
        self.writer.start()

    def __enter__(self) -> Feeder:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def start(self, nodes: int) -> None:
        self.fed = True
        self._send(np.int64(nodes).tobytes())

    def feed(self, src: np.ndarray, dst: np.ndarray) -> None:
        if src.size:
            self._send(np.int64(src.size).tobytes() + src.astype(np.int32, copy=False).tobytes() + dst.astype(np.int32, copy=False).tobytes())

    def _send(self, data: bytes | None) -> None:
        self.outbox.put(data)

    def _write(self) -> None:
        """The writer thread: the pipe is written here, so the kernel reads on while the child is still starting
        or building its graph (a pipe holds 64 KiB; a write waits for the child, with the GIL let go)."""
        stdin = self.child.stdin
        while (data := self.outbox.get()) is not None:
            try:
                stdin.write(data)
            except (BrokenPipeError, OSError, ValueError):  # the child ended early: ``result`` says why
                pass
        try:
            stdin.close()
        except (BrokenPipeError, OSError):
            pass

    def end(self) -> None:
        """Every relationship is sent: the child builds the last of its graph and runs Leiden (while the kernel reads on)."""
        if not self.ended:
            self.ended = True
            self._send(np.int64(0).tobytes())
            self._send(None)

    def result(self, watch: Callable[[int, float], None] | None = None) -> tuple[np.ndarray, float]:
        """Leiden's membership and modularity, once the child has them (``watch`` called between looks)."""
        self.end()
        if not _wait(self.child, watch):
            from ..errors import GestaltError  # deferred: this file also runs as the child script, outside the package

            self.errors.flush()
            with open(os.path.join(self.folder, "errors.txt"), encoding="utf-8", errors="replace") as handle:
                last = handle.read().strip().splitlines()[-1:] or ["no message"]
            if self.child.returncode < 0:
                raise GestaltError(f"Finding communities stopped: its process was killed (signal {-self.child.returncode}), likely out of memory. "
                                   "Group a part of the graph (--labels, --types) or by label.")
            raise GestaltError(f"Finding communities failed in its process (exit {self.child.returncode}): {last[0]}")
        membership = np.load(os.path.join(self.folder, "membership.npy"))
        with open(os.path.join(self.folder, "modularity.txt")) as handle:
            modularity, peak = handle.read().split()
        LAST_PROCESS_PEAK[0] = int(peak)
        return membership, float(modularity)

    def close(self) -> None:
        child = getattr(self, "child", None)
        if child is not None and child.poll() is None:
            child.kill()
            child.wait()
        writer = getattr(self, "writer", None)
        if writer is not None:  # (it closes the child's stdin)
            self.outbox.put(None)  # a killed child breaks the pipe: the writer ends at its next write
            writer.join()
        if child is not None and child.stdout is not None:
            child.stdout.close()
        self.errors.close()
        shutil.rmtree(self.folder, ignore_errors=True)


class Beside:
    """Leiden in a thread of the kernel (a graph under ``APART_FROM`` relationships), the same ``Sink`` as ``Feeder``:
    it starts once every relationship is read (``end``), and runs while the kernel reads the nodes' labels
    (networkit's Leiden lets go of the GIL). One thread and the fixed seed, as in the kernel. The kernel waits
    for it in short joins, where a budget's stop and Ctrl-C land; a stopped overview's thread is not killed
    (it cannot be) but ends within its sub-second run, and its result is dropped."""

    def __init__(self, resolution: float) -> None:
        self.resolution, self.fed, self.nodes = resolution, False, 0
        self.src: list[np.ndarray] = []
        self.dst: list[np.ndarray] = []
        self.found: list[Any] = []
        self.thread: threading.Thread | None = None

    def __enter__(self) -> Beside:
        return self

    def __exit__(self, *_: object) -> None:
        self.src, self.dst = [], []

    def start(self, nodes: int) -> None:
        self.fed, self.nodes = True, nodes

    def feed(self, src: np.ndarray, dst: np.ndarray) -> None:
        self.src.append(src)
        self.dst.append(dst)

    def end(self) -> None:
        if self.thread is None:
            src, dst = _joined(self.src), _joined(self.dst)
            self.src, self.dst = [], []
            self.thread = threading.Thread(target=self._run, args=(src, dst), name="gestalt-leiden", daemon=True)
            self.thread.start()

    def _run(self, src: np.ndarray, dst: np.ndarray) -> None:
        try:
            self.found.append(leiden(src, dst, self.nodes, self.resolution))
        except BaseException as exc:  # handed to the kernel's thread by ``result``
            self.found.append(exc)

    def result(self, watch: Callable[[int, float], None] | None = None) -> tuple[np.ndarray, float]:
        self.end()
        started = time.monotonic()
        while self.thread.is_alive():
            self.thread.join(LOOK)  # a budget's stop or an interrupt lands here
            if watch is not None:
                watch(0, time.monotonic() - started)
        found = self.found[0]
        if isinstance(found, BaseException):
            raise found
        return found


#: Leiden's folders in the temp dir: ``gestalt-overview-<kernel pid>-…``.
FOLDER = "gestalt-overview-"


def _clean_after_killed_kernels() -> int:
    """Remove the folders of Leiden's processes whose kernel is gone (killed with -9: nothing of it ran to clean
    up); how many. A folder is only ever removed once no process has its kernel's pid."""
    removed = 0
    if not os.path.isdir("/proc/self"):  # pragma: no cover - not Linux: no way to tell a live kernel's folder
        return 0
    for path in glob.glob(os.path.join(tempfile.gettempdir(), f"{FOLDER}*-*")):
        pid = os.path.basename(path)[len(FOLDER):].split("-", 1)[0]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            shutil.rmtree(path, ignore_errors=True)
            removed += 1
    return removed


def _wait(child: Any, watch: Callable[[int, float], None] | None) -> bool:
    """Whether the child found the communities: it says so on its stdout as soon as they are saved (its own ending,
    which frees its graph, is not waited for); False once it ended without (``returncode`` says how)."""
    import select

    started = time.monotonic()
    while True:
        if select.select([child.stdout], [], [], LOOK)[0]:  # between looks a budget's stop or an interrupt lands
            if os.read(child.stdout.fileno(), 1):
                return True
            child.wait()
            return False
        if watch is not None:
            watch(child_resident(child.pid), time.monotonic() - started)


def _die_with_parent() -> None:
    """Linux: end this process when the kernel that started it ends (killed, restarted), not compute on alone."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


def _joined(chunks: list[np.ndarray]) -> np.ndarray:
    """The chunks of node numbers as one array (empty when none came)."""
    return np.concatenate(chunks or [np.zeros(0, np.int32)])


def _exactly(stream: Any, count: int) -> bytes:
    data = stream.read(count)
    if len(data) != count:
        raise SystemExit("the kernel stopped sending relationships")
    return data


def _main(folder: str, resolution: str) -> None:
    """The child: the relationships taken as the kernel reads them, the graph made once the last has come, then
    Leiden (on ``THREADS`` threads)."""
    _die_with_parent()
    import networkit  # noqa: F401 - imported while the kernel still reads

    stream = sys.stdin.buffer
    nodes = int(np.frombuffer(_exactly(stream, 8), np.int64)[0])
    sources, targets = [], []
    while count := int(np.frombuffer(_exactly(stream, 8), np.int64)[0]):
        pairs = np.frombuffer(_exactly(stream, 8 * count), np.int32).reshape(2, count)
        sources.append(pairs[0])
        targets.append(pairs[1])
    with _threads(THREADS):
        graph = graph_of(_joined(sources), _joined(targets), nodes)
        del sources, targets
        membership, modularity = _leiden_on(graph, float(resolution))
        del graph
    np.save(os.path.join(folder, "membership.npy"), membership)
    with open("/proc/self/status") as status:  # the peak resident set of this process alone (VmHWM, in kB)
        peak = next((int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:")), 0)
    with open(os.path.join(folder, "modularity.txt"), "w") as handle:
        handle.write(f"{modularity!r} {peak}")
    sys.stdout.buffer.write(b"\n")  # found: the kernel reads the files now, while this process ends
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    _main(*sys.argv[1:3])
