"""GestaltStore against LangGraph's InMemoryStore: put, get and prefix-search latency.

Each store is filled with N items (100 per namespace ``("users", U, "memories")``), then the
three operations run in rotation — InMemoryStore and GestaltStore interleaved, garbage
collection off while timed — and each sample is the mean of ``--ops`` calls. Medians of
``--runs`` samples are reported as wall-clock microseconds per call with their ratio
(GestaltStore / InMemoryStore), and the CPU-time medians alongside.

* put: a new key into an existing namespace (one transaction per call);
* get: an existing key;
* search: ``search(("users", U), limit=10)`` — one user's items out of all of them.

    python bench/bench_memory.py [--sizes 10000 100000] [--runs 7] [--ops 200]
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gestaltdb.graphdb import GraphDB  # noqa: E402
from langgraph.store.base import PutOp  # noqa: E402
from langgraph.store.memory import InMemoryStore  # noqa: E402

from gestalt_nb.memory.store import GestaltStore  # noqa: E402

PER_NAMESPACE = 100


def value(i: int) -> dict:
    return {"text": f"memory number {i}", "kind": ("preference", "fact", "episode")[i % 3], "n": i % 97}


def fill(store, size: int) -> float:
    started = time.perf_counter()
    ops = [PutOp(("users", str(i // PER_NAMESPACE), "memories"), f"m{i}", value(i)) for i in range(size)]
    for offset in range(0, size, 2000):
        store.batch(ops[offset : offset + 2000])
    return time.perf_counter() - started


def actions(store, size: int, seed: int):
    rng = random.Random(seed)
    users = size // PER_NAMESPACE
    counter = [0]

    def put():
        counter[0] += 1
        store.put(("users", str(rng.randrange(users)), "memories"), f"new{counter[0]}", value(counter[0]))

    def get():
        i = rng.randrange(size)
        assert store.get(("users", str(i // PER_NAMESPACE), "memories"), f"m{i}") is not None

    def search():
        assert len(store.search(("users", str(rng.randrange(users))), limit=10)) == 10

    return {"put": put, "get": get, "search": search}


def sample(action, ops: int) -> tuple[float, float]:
    gc.collect()
    gc.disable()
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(ops):
            action()
        return (time.perf_counter() - wall) / ops, (time.process_time() - cpu) / ops
    finally:
        gc.enable()


def measure(size: int, runs: int, ops: int, tmp: Path) -> list[tuple]:
    memory = InMemoryStore()
    db = GraphDB.create(tmp / f"g{size}", backend="lmdb", serializer="json", backend_options={"map_size": 8 * 1024**3})
    ours = GestaltStore(db)
    fills = fill(memory, size), fill(ours, size)
    print(f"{size:,} items: filled InMemoryStore in {fills[0]:.2f} s, GestaltStore in {fills[1]:.2f} s "
          f"(batches of 2,000 puts; ×{fills[1] / fills[0]:.0f})")
    stores = {"memory": actions(memory, size, 1), "gestalt": actions(ours, size, 1)}
    for kinds in stores.values():
        for action in kinds.values():
            action()  # warm up
    samples = {(store, op): [] for store in stores for op in ("put", "get", "search")}
    for _ in range(runs):
        for op in ("put", "get", "search"):
            for store in stores:
                samples[(store, op)].append(sample(stores[store][op], ops))
    rows = []
    for op in ("put", "get", "search"):
        mem_wall = statistics.median(s[0] for s in samples[("memory", op)])
        our_wall = statistics.median(s[0] for s in samples[("gestalt", op)])
        mem_cpu = statistics.median(s[1] for s in samples[("memory", op)])
        our_cpu = statistics.median(s[1] for s in samples[("gestalt", op)])
        rows.append((size, op, mem_wall, our_wall, mem_cpu, our_cpu))
    ours.close()
    db.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--ops", type=int, default=200)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            rows.extend(measure(size, args.runs, args.ops, Path(tmp)))
    print(f"\nmedian µs per call over {args.runs} interleaved samples of {args.ops} calls (CPU time in brackets)")
    print(f"{'items':>8} {'op':>7} {'InMemoryStore':>20} {'GestaltStore':>20} {'ratio':>7} {'CPU ratio':>10}")
    for size, op, mem_wall, our_wall, mem_cpu, our_cpu in rows:
        print(f"{size:>8,} {op:>7} {mem_wall * 1e6:>9.1f} ({mem_cpu * 1e6:>7.1f}) {our_wall * 1e6:>9.1f} ({our_cpu * 1e6:>7.1f}) "
              f"{our_wall / mem_wall:>6.1f}× {our_cpu / mem_cpu:>9.1f}×")


if __name__ == "__main__":
    main()
