"""The overview at scale: kernel-side time and memory of ``gestalt_nb.overview`` against its floor.

    python bench/bench_overview.py [--sizes 100000,1000000] [--rounds 3]

For each size a planted-partition graph (30 blocks of unequal sizes, 3 relationships per node) is
written once with GestaltDB's ``ingest_arrow`` into a temp LMDB database. Then, in rounds that
alternate (medians; this machine is shared):
- ``first``: ``overview("community")`` on a cold cache (the copy read from LMDB, Leiden — in its own
  process from 500k relationships — and the drawing of the groups: what the first frame waits for);
- ``floor``: the same edges, already in numpy, handed straight to the chosen library's detection in
  this process (``grouped.detect.leiden``: networkit's graph made from the arrays, then its Leiden, on
  as many threads as the overview uses, one: the same answer in every process; on every core too, for comparison);
- ``again``: a second call on the unchanged database (reuses the copy and the grouping);
- ``drill``: a group's members to draw (``drill_subgraph``, 200 members, their relationships read);
- ``within``: the biggest group grouped again (``OverviewResult.within``, a level down).
Wall time and CPU time (this process and its children: the load of the shared machine hardly moves
it) are both reported. Peak memory is measured in a fresh process per size: resident set size at its peak, above the
process after opening the database. Ratios are printed against the targets of issue 28.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from graphs import planted_blocks  # noqa: E402  (the path above first)


def build(path: str, nodes: int, seed: int = 5) -> None:
    import pyarrow as pa

    import gestalt_nb

    rng = np.random.default_rng(seed)
    sizes, starts = planted_blocks(rng, nodes)
    src, dst = [], []
    for start, size in zip(starts, sizes):
        count = int(size * 2.8)
        src.append(start + rng.integers(0, size, count))
        dst.append(start + rng.integers(0, size, count))
    src.append(rng.integers(0, nodes, int(nodes * 0.2)))
    dst.append(rng.integers(0, nodes, int(nodes * 0.2)))
    src, dst = np.concatenate(src), np.concatenate(dst)
    connection = gestalt_nb.create(path, alias="bench", map_size="16GiB")
    ids = np.char.add("n", np.arange(nodes).astype(str))
    labels = ["Person" if i % 4 else "Company" for i in range(nodes)]
    connection.db.ingest_arrow(pa.array(ids), pa.array(np.char.add("e", np.arange(src.size).astype(str))), pa.array(ids[src]),
                               pa.array(ids[dst]), pa.array(np.where(np.arange(src.size) % 3, "KNOWS", "WORKS_WITH")),
                               labels=pa.array([[label] for label in labels]))
    connection.close()


def _cpu() -> float:
    """CPU seconds of this process and its finished children (Leiden's process): a figure the shared machine's load hardly moves."""
    import os

    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def measure(paths: dict[int, str], rounds: int) -> dict[int, dict[str, list[float]]]:
    """Rounds alternating between the sizes and, within a size, between the overview and its floor."""
    import gestalt_nb
    from gestalt_nb.grouped import compact, detect

    gestalt_nb.settings.timeout = 900  # a loaded machine must not stop the measurement
    connections = {nodes: gestalt_nb.connect(path, alias=f"bench{nodes}", map_size="16GiB") for nodes, path in paths.items()}
    times: dict[int, dict[str, list[float]]] = {nodes: {} for nodes in paths}
    for _ in range(rounds):
        for nodes, connection in connections.items():
            found = times[nodes]
            compact._CACHE.clear()
            started, cpu = time.perf_counter(), _cpu()
            result = connection.overview("community")  # read, Leiden, the drawing: what the first frame waits for
            found.setdefault("first", []).append(time.perf_counter() - started)
            found.setdefault("first cpu", []).append(_cpu() - cpu)
            started = time.perf_counter()
            connection.overview("community")
            found.setdefault("again", []).append(time.perf_counter() - started)
            copy = result.compact
            started, cpu = time.perf_counter(), _cpu()
            detect.leiden(copy.src, copy.dst, len(copy.keys), 1.0, threads=detect.THREADS)  # the floor: the same edges straight to networkit's Leiden, as the overview runs it
            found.setdefault("floor", []).append(time.perf_counter() - started)
            found.setdefault("floor cpu", []).append(_cpu() - cpu)
            started = time.perf_counter()
            detect.leiden(copy.src, copy.dst, len(copy.keys), 1.0, threads=0)  # on every core: faster, but not the same answer twice
            found.setdefault("floor every core", []).append(time.perf_counter() - started)
            biggest = int(result.groups.sort_values("size", ascending=False)["group"].iloc[0])
            started = time.perf_counter()
            inside = result.within(biggest)
            found.setdefault("within", []).append(time.perf_counter() - started)
            found.setdefault("within groups", []).append(inside.group_count)
            compact._CACHE.clear()
            started = time.perf_counter()
            compact.read(connection.db)
            found.setdefault("read", []).append(time.perf_counter() - started)
            started = time.perf_counter()
            result.drill_subgraph(0, 200)
            found.setdefault("drill", []).append(time.perf_counter() - started)
            found.setdefault("biggest group", []).append(int(result.groups["size"].iloc[0]))
            found.setdefault("groups", []).append(result.group_count)
    from gestalt_nb.session import REGISTRY

    REGISTRY.close_all()
    return times


def peak(path: str) -> dict[str, float]:
    """Peak memory of a fresh process running one overview, sampled every 20 ms: resident set (which counts
    the LMDB file's pages the read touched: the OS's page cache, shared and droppable) and anonymous memory
    (the process's own heap: what the overview really holds), each above the process after opening the
    database; and the peak resident set of Leiden's own process (a big graph's communities are found there), as
    it measured itself (VmHWM: the parent's pages it shared until its exec do not count)."""
    code = (
        "import json, sys, threading, time; sys.path.insert(0, %r)\n"
        "def sample():\n"
        "    values = dict(line.split(':', 1) for line in open('/proc/self/status'))\n"
        "    return int(values['VmRSS'].split()[0]) // 1024, int(values['RssAnon'].split()[0]) // 1024\n"
        "import gestalt_nb, networkit, pandas; gestalt_nb.settings.timeout = 900\n"
        "c = gestalt_nb.connect(%r, alias='bench', map_size='16GiB')\n"
        "base = sample(); top = list(base); done = False\n"
        "def watch():\n"
        "    while not done:\n"
        "        now = sample(); top[0] = max(top[0], now[0]); top[1] = max(top[1], now[1]); time.sleep(0.02)\n"
        "thread = threading.Thread(target=watch, daemon=True); thread.start()\n"
        "r = gestalt_nb.overview('community'); r.groups; r.subgraph\n"
        "done = True; thread.join()\n"
        "from gestalt_nb.grouped import detect; child = detect.LAST_PROCESS_PEAK[0] // 2**20\n"
        "print(json.dumps({'rss_mb': top[0] - base[0], 'anon_mb': top[1] - base[1], 'total_anon_mb': top[1], 'child_mb': child}))\n"
    ) % (str(ROOT), path)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep", help="a folder where the built graphs are kept and found again (they take minutes at 1M)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        paths = {}
        for nodes in [int(size) for size in args.sizes.split(",")]:
            paths[nodes] = path = str(Path(args.keep or folder) / f"graph-{nodes}")
            started = time.perf_counter()
            if not Path(path).exists():
                subprocess.run([sys.executable, __file__, "--build", path, str(nodes)], check=True)
            print(f"{nodes:,} nodes: built in {time.perf_counter() - started:.0f} s", flush=True)
        found = {nodes: {key: statistics.median(values) for key, values in times.items()} for nodes, times in measure(paths, args.rounds).items()}
        for nodes, medians in found.items():
            medians.update(peak(paths[nodes]))
            report(nodes, medians)
    sizes = sorted(found)
    if len(sizes) > 1:
        low, high = sizes[0], sizes[-1]
        print(f"{low:,} → {high:,} nodes: first call {found[high]['first'] / found[low]['first']:.1f}× wall, "
              f"{found[high]['first cpu'] / found[low]['first cpu']:.1f}× CPU (target ≤ 12× for 10× the nodes)")


def report(nodes: int, medians: dict[str, float]) -> None:
    print(f"{nodes:,} nodes, medians:")
    print(f"  first {medians['first']:.2f} s wall, {medians['first cpu']:.2f} s CPU (read {medians['read']:.2f} s) · floor (networkit's Leiden on the "
          f"same numpy edges) {medians['floor']:.2f} s wall, {medians['floor cpu']:.2f} s CPU → {medians['first'] / medians['floor']:.2f}× wall, "
          f"{medians['first cpu'] / medians['floor cpu']:.2f}× CPU the floor (target ≤ 1.5×; first frame ≤ 10 s at 1M, ≤ 2 s at 100k)")
    print(f"  again {medians['again'] * 1000:.1f} ms → {medians['again'] / medians['first']:.3f}× the first (target ≤ 0.1×)")
    print(f"  drill 200 of {int(medians['biggest group']):,} members: {medians['drill']:.2f} s · {int(medians['groups'])} groups")
    print(f"  within the biggest group: {medians['within']:.2f} s, {int(medians['within groups'])} groups inside (target ≤ 2 s at 1M) · "
          f"the floor on every core {medians['floor every core']:.2f} s (not deterministic: the overview runs on one thread)")
    print(f"  peak memory added by the overview in the kernel: {medians['anon_mb']:.0f} MB of its own (process total {medians['total_anon_mb']:.0f} MB; "
          f"target ≤ 600 MB at 1M), {medians['rss_mb']:.0f} MB resident with the LMDB pages it read; Leiden's process (when used) "
          f"{medians['child_mb']:.0f} MB resident at its peak", flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--build":
        build(sys.argv[2], int(sys.argv[3]))
    else:
        main()
