"""GestaltStore against LangGraph's InMemoryStore, SqliteStore and AsyncSqliteStore.

Sections (``--sections``; all by default):

* ``inmemory`` — put, get and prefix-search latency against InMemoryStore (below);
* ``sqlite`` — against SqliteStore on a file (langgraph-checkpoint-sqlite): sequential put and
  get, prefix search (one user's namespace, ``limit=10``) with and without a value filter, and one
  ``batch`` of 1,000 new puts into existing namespaces (spread over 100 users) and into 10 new
  namespaces (an agent that starts remembering new users), at each ``--sizes``; vector search (``index=``, the
  same embedding function for both) in one namespace of 100 items and across all namespaces, at
  ``--vector-size`` items. Targets: batch and vector search ≤ 2× SqliteStore.
* ``batch`` — only the two batch rows of ``sqlite`` (quick: ``--sections batch --sizes 10000``);
* ``async`` — 1,000 and 10,000 gathered ``aput`` then ``aget`` coroutines against
  AsyncSqliteStore (target ≤ 3×).

Durability is each store's default: SqliteStore commits in SQLite's rollback-journal mode with
``synchronous=FULL`` (the journal and the database file are fsynced on every commit); GestaltDB's
LMDB environment is opened with ``sync=True`` (the data and meta pages are fsynced on every commit).
Every figure is a median of interleaved samples; ratios are GestaltStore / the other store. The
SqliteStore rows also give the CPU-time ratio: on a shared machine fsync waits and other processes
move the wall-clock ratio from run to run (a quiet machine is the hard case: SqliteStore's batch
then takes ~8 ms), the CPU ratio much less. Needs ``pip install langgraph-checkpoint-sqlite``.

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
import asyncio
import gc
import hashlib
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from gestaltdb.graphdb import GraphDB
from langgraph.store.base import PutOp
from langgraph.store.memory import InMemoryStore

from gestalt_nb.memory.store import GestaltStore

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


# -- against SqliteStore / AsyncSqliteStore ---------------------------------------------------
DIMS = 64
try:  # SqliteStore's index= loads sqlite-vec, which needs a Python whose sqlite3 loads extensions
    import pysqlite3.dbapi2 as SQLITE
except ImportError:
    import sqlite3 as SQLITE


def embed(texts: list[str]) -> list[list[float]]:
    """Deterministic and cheap, the same for both stores: a vector from the text's hash."""
    out = []
    for text in texts:
        seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
        out.append(np.random.default_rng(seed).standard_normal(DIMS).tolist())
    return out


def gestalt_store(tmp: Path, name: str, **options) -> GestaltStore:
    db = GraphDB.create(tmp / name, backend="lmdb", serializer="json", backend_options={"map_size": 8 * 1024**3})
    return GestaltStore(db, **options)


def sqlite_store(tmp: Path, name: str, **options):
    from langgraph.store.sqlite import SqliteStore

    conn = SQLITE.connect(str(tmp / f"{name}.sqlite"), check_same_thread=False, isolation_level=None)
    store = SqliteStore(conn, **options)
    store.setup()
    return store


def median_of(samples: dict, name: str) -> float:
    return statistics.median(samples[name])


def timed(action) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one call (CPU leaves out waiting for fsync and for the other cores' load)."""
    gc.collect()
    gc.disable()
    try:
        started, cpu = time.perf_counter(), time.process_time()
        action()
        return time.perf_counter() - started, time.process_time() - cpu
    finally:
        gc.enable()


CPU: dict[tuple[str, str], float] = {}  # (row label, store) → median CPU seconds of the last interleave


def interleave(stores: dict, make_action, runs: int, label: str = "") -> dict:
    samples = {name: [] for name in stores}
    for run in range(runs):
        for name, store in stores.items():
            samples[name].append(timed(make_action(store, name, run)))
    for name, values in samples.items():
        CPU[(label, name)] = statistics.median(cpu for _, cpu in values)
    return {name: statistics.median(wall for wall, _ in values) for name, values in samples.items()}


def sqlite_rows(size: int, runs: int, ops: int, tmp: Path, batches_only: bool = False) -> list[tuple]:
    stores = {"sqlite": sqlite_store(tmp, f"s{size}"), "gestalt": gestalt_store(tmp, f"sg{size}")}
    for store in stores.values():
        fill(store, size)
    users = size // PER_NAMESPACE
    rng = random.Random(7)
    rows = []

    def batch_of_puts(store, name, run):
        ops_ = [PutOp(("users", str(i % users), "memories"), f"b{run}.{i}", value(i)) for i in range(1000)]
        return lambda: store.batch(ops_)

    def batch_into_new_namespaces(store, name, run):
        ops_ = [PutOp(("users", f"new{run}-{i % 10}", "memories"), f"k{i}", value(i)) for i in range(1000)]
        return lambda: store.batch(ops_)

    def sequential_puts(store, name, run):
        keys = [(str(rng.randrange(users)), f"p{run}.{i}") for i in range(ops)]
        return lambda: [store.put(("users", u, "memories"), k, value(1)) for u, k in keys]

    def sequential_gets(store, name, run):
        picks = [rng.randrange(size) for _ in range(ops)]
        return lambda: [store.get(("users", str(i // PER_NAMESPACE), "memories"), f"m{i}") for i in picks]

    def searches(store, name, run):
        picks = [str(rng.randrange(users)) for _ in range(ops)]
        return lambda: [store.search(("users", u), limit=10) for u in picks]

    def filtered_searches(store, name, run):
        picks = [str(rng.randrange(users)) for _ in range(ops)]
        return lambda: [store.search(("users", u), filter={"kind": "fact", "n": {"$gte": 10}}, limit=10) for u in picks]

    cases = [("1,000 puts, existing ns", batch_of_puts, 1), ("1,000 puts, 10 new ns", batch_into_new_namespaces, 1)]
    if not batches_only:
        cases += [(f"put ×{ops}", sequential_puts, ops), (f"get ×{ops}", sequential_gets, ops),
                  (f"search ×{ops}", searches, ops), (f"filtered search ×{ops}", filtered_searches, ops)]
    for label, action, per in cases:
        medians = interleave(stores, action, runs, label)
        rows.append((f"{size:,} items", label, medians["sqlite"] / per, medians["gestalt"] / per))
    stores["gestalt"].close()
    return rows


def vector_rows(size: int, runs: int, tmp: Path) -> list[tuple]:
    index = {"dims": DIMS, "embed": embed, "fields": ["text"]}
    stores = {"sqlite": sqlite_store(tmp, f"v{size}", index=index), "gestalt": gestalt_store(tmp, f"vg{size}", index=index)}
    for store in stores.values():
        fill(store, size)
        store.search(("users", "0"), query="warm up", limit=10)
        store.search((), query="warm up", limit=10)
    users = size // PER_NAMESPACE
    rng = random.Random(3)
    rows = []

    def one_namespace(store, name, run):
        users_ = [str(rng.randrange(users)) for _ in range(20)]
        return lambda: [store.search(("users", u, "memories"), query=f"memory number {u}", limit=10) for u in users_]

    def all_namespaces(store, name, run):
        return lambda: [store.search((), query=f"memory number {run}.{i}", limit=10) for i in range(5)]

    for label, action, per in (("vector search, one namespace", one_namespace, 20),
                               ("vector search, all namespaces", all_namespaces, 5)):
        medians = interleave(stores, action, runs)
        rows.append((f"{size:,} items", label, medians["sqlite"] / per, medians["gestalt"] / per))
    stores["gestalt"].close()
    return rows


async def async_rows(counts: list[int], runs: int, tmp: Path) -> list[tuple]:
    from langgraph.store.sqlite import AsyncSqliteStore

    rows = []
    async with AsyncSqliteStore.from_conn_string(str(tmp / "async.sqlite")) as theirs:
        await theirs.setup()
        ours = gestalt_store(tmp, "async")
        stores = {"sqlite": theirs, "gestalt": ours}
        for count in counts:
            samples = {(name, op): [] for name in stores for op in ("aput", "aget")}
            for run in range(runs):
                for name, store in stores.items():
                    ns = ("users", f"{count}-{run}")
                    started = time.perf_counter()
                    await asyncio.gather(*(store.aput(ns, f"k{i}", value(i)) for i in range(count)))
                    samples[(name, "aput")].append(time.perf_counter() - started)
                    started = time.perf_counter()
                    found = await asyncio.gather(*(store.aget(ns, f"k{i}") for i in range(count)))
                    samples[(name, "aget")].append(time.perf_counter() - started)
                    assert all(item is not None for item in found)
            for op in ("aput", "aget"):
                rows.append((f"{count:,} gathered", op, statistics.median(samples[("sqlite", op)]),
                             statistics.median(samples[("gestalt", op)])))
        ours.close()
    return rows


def print_rows(title: str, other: str, rows: list[tuple]) -> None:
    """Wall-clock medians and their ratio; the CPU-time ratio too where it was measured."""
    print(f"\n{title}", flush=True)
    print(f"{'':>18} {'':>30} {other:>14} {'GestaltStore':>14} {'ratio':>7} {'CPU ratio':>10}")
    for where, label, theirs, ours in rows:
        cpu = [CPU.get((label, name)) for name in ("sqlite", "gestalt")]
        cpu_ratio = f"{cpu[1] / cpu[0]:>9.2f}×" if all(cpu) else ""
        print(f"{where:>18} {label:>30} {theirs * 1e3:>11.3f} ms {ours * 1e3:>11.3f} ms {ours / theirs:>6.2f}× {cpu_ratio:>10}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sections", nargs="+", default=["inmemory", "sqlite", "async"], choices=["inmemory", "sqlite", "batch", "async"])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--vector-size", type=int, default=10_000, help="items for the vector-search rows (0: skip them)")
    parser.add_argument("--gathered", type=int, nargs="+", default=[1_000, 10_000])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--ops", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if "inmemory" in args.sections:
            rows = []
            for size in args.sizes:
                rows.extend(measure(size, args.runs, args.ops, Path(tmp)))
            print(f"\nmedian µs per call over {args.runs} interleaved samples of {args.ops} calls (CPU time in brackets)")
            print(f"{'items':>8} {'op':>7} {'InMemoryStore':>20} {'GestaltStore':>20} {'ratio':>7} {'CPU ratio':>10}")
            for size, op, mem_wall, our_wall, mem_cpu, our_cpu in rows:
                print(f"{size:>8,} {op:>7} {mem_wall * 1e6:>9.1f} ({mem_cpu * 1e6:>7.1f}) {our_wall * 1e6:>9.1f} ({our_cpu * 1e6:>7.1f}) "
                      f"{our_wall / mem_wall:>6.1f}× {our_cpu / mem_cpu:>9.1f}×")
        if "sqlite" in args.sections:
            title = f"against SqliteStore (SQLite {SQLITE.sqlite_version}): median per call (batch: per batch) over {args.runs} interleaved samples"
            for size in args.sizes:
                print_rows(title, "SqliteStore", sqlite_rows(size, args.runs, args.ops, Path(tmp)))
            if args.vector_size:
                print_rows(title, "SqliteStore", vector_rows(args.vector_size, args.runs, Path(tmp)))
        if "batch" in args.sections and "sqlite" not in args.sections:
            title = f"batches against SqliteStore (SQLite {SQLITE.sqlite_version}): median per batch over {args.runs} interleaved samples"
            for size in args.sizes:
                print_rows(title, "SqliteStore", sqlite_rows(size, args.runs, args.ops, Path(tmp), batches_only=True))
        if "async" in args.sections:
            rows = asyncio.run(async_rows(args.gathered, max(3, args.runs // 2), Path(tmp)))
            print_rows("against AsyncSqliteStore: median wall time of the whole gather", "AsyncSqlite", rows)


if __name__ == "__main__":
    main()
