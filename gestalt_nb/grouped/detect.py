"""Leiden communities from igraph, on a big graph in a child process, so a budget or a stop really ends them.

igraph's ``community_leiden`` is one long C call: no budget's stop and no kernel interrupt lands in
it before it returns (measured: a stop sent after 0.3 s lands when Leiden ends, whatever its
length). So from ``APART_FROM`` relationships the edges go to a child Python (this file, run as a
script: only numpy and igraph are imported) through a temporary ``.npy`` file, and the kernel waits
for it in short sleeps, where a time budget's stop and Ctrl-C land; either kills the child. The
child's resident memory counts against the memory budget, with what the kernel itself gained.
Smaller graphs take well under a second and are grouped in the kernel.

Why igraph's Leiden: on the bench graph (1M nodes, 3M relationships, ``bench/bench_overview.py``)
it gave modularity 0.894 with 2 iterations; Louvain (``community_multilevel``) 0.815 and slower
here, leidenalg 0.871 and ~10x slower, networkit's ParallelLeiden the same 0.894 and no faster on
this machine's two shared cores (PLM without refinement 0.67). The seed is fixed: the same
database gives the same communities.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np

#: Relationships from which Leiden runs in a child process (below, in the kernel: under a second).
APART_FROM = 500_000
#: Seconds between two looks at the child (a stop lands within this).
LOOK = 0.05
SEED = 7
ITERATIONS = 2
#: The peak resident memory (bytes) of the last Leiden process, as it measured itself (for the bench).
LAST_PROCESS_PEAK = [0]


def leiden(src: np.ndarray, dst: np.ndarray, n: int, resolution: float) -> tuple[np.ndarray, float]:
    """Membership (int32, one per node) and modularity of igraph's Leiden on the undirected graph."""
    import igraph  # deferred: start-up time

    graph = igraph.Graph(n=n, edges=_pairs(src, dst), directed=False)
    igraph.set_random_number_generator(random.Random(SEED))  # the same database, the same communities
    try:
        found = graph.community_leiden(objective_function="modularity", resolution=resolution, n_iterations=ITERATIONS)
    finally:
        igraph.set_random_number_generator(random)
    return np.asarray(found.membership, dtype=np.int32), float(found.modularity)


def _pairs(src: np.ndarray, dst: np.ndarray, chunk: int = 1 << 16) -> Any:
    """The relationships as (source, target) tuples, a chunk of Python ints at a time: igraph reads an
    iterator of tuples straight into its edge vector — measured at 1M nodes / 3M relationships, 0.7 s CPU
    and 250 MB at the peak, against 2.5 s and 630 MB for the same edges as one numpy array."""
    for start in range(0, src.size, chunk):
        yield from zip(src[start:start + chunk].tolist(), dst[start:start + chunk].tolist())


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
    if src.size < APART_FROM:
        return leiden(src, dst, n, resolution)
    with tempfile.TemporaryDirectory(prefix="gestalt-overview-") as folder:
        np.save(os.path.join(folder, "edges.npy"), np.stack((src.astype(np.int32, copy=False), dst.astype(np.int32, copy=False))))
        with open(os.path.join(folder, "errors.txt"), "wb") as errors:  # a file: a chatty child never blocks on a full pipe
            try:
                child = subprocess.Popen([sys.executable, __file__, folder, str(n), repr(float(resolution))],
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors)
            except OSError:  # no Python to start (an embedded interpreter): in the kernel, unstoppable but right
                return leiden(src, dst, n, resolution)
            try:
                _wait(child, watch)
            finally:
                if child.poll() is None:
                    child.kill()
                    child.wait()
        if child.returncode != 0:
            from ..errors import GestaltError  # deferred: this file also runs as the child script, outside the package

            with open(os.path.join(folder, "errors.txt"), encoding="utf-8", errors="replace") as handle:
                last = handle.read().strip().splitlines()[-1:] or ["no message"]
            if child.returncode < 0:
                raise GestaltError(f"Finding communities stopped: its process was killed (signal {-child.returncode}), likely out of memory. "
                                   "Group a part of the graph (--labels, --types) or by label.")
            raise GestaltError(f"Finding communities failed in its process (exit {child.returncode}): {last[0]}")
        membership = np.load(os.path.join(folder, "membership.npy"))
        with open(os.path.join(folder, "modularity.txt")) as handle:
            modularity, peak = handle.read().split()
        LAST_PROCESS_PEAK[0] = int(peak)
        return membership, float(modularity)


def _wait(child: Any, watch: Callable[[int, float], None] | None) -> None:
    started = time.monotonic()
    while child.poll() is None:
        time.sleep(LOOK)  # a budget's stop or an interrupt lands here
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


def _main(folder: str, n: str, resolution: str) -> None:
    _die_with_parent()
    edges = np.load(os.path.join(folder, "edges.npy"))
    membership, modularity = leiden(edges[0], edges[1], int(n), float(resolution))
    del edges
    np.save(os.path.join(folder, "membership.npy"), membership)
    with open("/proc/self/status") as status:  # the peak resident set of this process alone (VmHWM, in kB)
        peak = next((int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:")), 0)
    with open(os.path.join(folder, "modularity.txt"), "w") as handle:
        handle.write(f"{modularity!r} {peak}")


if __name__ == "__main__":
    _main(*sys.argv[1:4])
