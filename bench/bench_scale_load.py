"""Loading N nodes + 3N relationships from DataFrames, against the database's own columnar path.

The baseline (``arrow``) is GestaltDB's ``GraphDB.ingest_arrow`` over the same frames turned into
Arrow columns, in one transaction, into a database with the same engine indexes a gestalt-nb
database has (the label index; the name lookup gestalt-nb keeps is its own cost). ``floor`` is
the object path: build ``Node``/``Edge`` objects from the same frames,
then ``put_nodes`` + ONE ``put_edges_bulk(check_existing=False)`` in one transaction. gestalt_nb is
``load_nodes`` + ``load_edges`` (validation, conversion, existence checks, one transaction each).
Every run is a fresh subprocess writing a fresh LMDB directory, floor and gestalt_nb alternating,
so peak RSS is per run; medians of wall time and of CPU time are printed, with rows/s and bytes on disk.

    python bench/bench_scale_load.py [--sizes 10000,100000,1000000] [--runs 3] [--kinds arrow,gestalt,floor]
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TYPES = ("KNOWS", "WORKS_WITH", "FOLLOWS")
MAP_SIZE = 48 * 1024**3


def frames(n: int):
    import pandas as pd

    rng = random.Random(7)
    e = 3 * n
    nodes = pd.DataFrame(
        {"pid": [f"p{i}" for i in range(n)], "name": [f"Person {i}" for i in range(n)], "age": [20 + i % 50 for i in range(n)], "score": [(i % 97) / 97 for i in range(n)]}
    )
    edges = pd.DataFrame(
        {
            "src": [f"p{rng.randrange(n)}" for _ in range(e)],
            "dst": [f"p{rng.randrange(n)}" for _ in range(e)],
            "kind": [TYPES[j % 3] for j in range(e)],
            "weight": [j % 10 for j in range(e)],
            "eid": [f"e{j}" for j in range(e)],
        }
    )
    return nodes, edges


def floor(path: Path, nodes, edges) -> None:
    from gestaltdb.graphdb import Edge, GraphDB, Node

    db = GraphDB.create(path, backend="lmdb", serializer="json", backend_options={"map_size": MAP_SIZE})
    with db.transaction() as tx:
        tx.put_nodes(
            [
                Node(pid, labels=["Person"], properties={"name": name, "age": age, "score": score})
                for pid, name, age, score in zip(nodes["pid"].tolist(), nodes["name"].tolist(), nodes["age"].tolist(), nodes["score"].tolist())
            ]
        )
        tx.put_edges_bulk(
            [
                Edge(eid, src, dst, properties={"weight": weight, "type": kind})
                for src, dst, kind, weight, eid in zip(
                    edges["src"].tolist(), edges["dst"].tolist(), edges["kind"].tolist(), edges["weight"].tolist(), edges["eid"].tolist()
                )
            ],
            check_existing=False,
        )
    db.close()


def arrow(path: Path, nodes, edges) -> None:
    """GestaltDB's own columnar path: ``GraphDB.ingest_arrow`` (pandas → Arrow, index maintenance deferred and rebuilt)."""
    import pyarrow as pa
    from gestaltdb.graphdb import GraphDB

    db = GraphDB.create(path, backend="lmdb", serializer="json", backend_options={"map_size": MAP_SIZE})
    with db.transaction() as tx:
        tx.ingest_arrow(
            pa.array(nodes["pid"]), pa.array(edges["eid"]), pa.array(edges["src"]), pa.array(edges["dst"]), pa.array(edges["kind"]),
            labels=pa.array([["Person"]] * len(nodes)),
            node_properties={name: pa.array(nodes[name]) for name in ("name", "age", "score")},
            edge_properties={"weight": pa.array(edges["weight"])},
        )
    db.close()


def gestalt(path: Path, nodes, edges) -> None:
    import gestalt_nb
    from gestalt_nb.session import REGISTRY

    gestalt_nb.create(path, map_size=MAP_SIZE)
    gestalt_nb.load_nodes(nodes, id="pid", label="Person")
    gestalt_nb.load_edges(edges, source="src", target="dst", type_column="kind", id="eid")
    REGISTRY.close_all()


def worker(kind: str, frames_path: str, out: str) -> None:
    with open(frames_path, "rb") as handle:
        nodes, edges = pickle.load(handle)
    # imported off the clock for both: the engine, and what gestalt_nb imports on first use (the adapter, pandas, pyarrow)
    import pyarrow  # noqa: F401
    from gestaltdb.graphdb import GraphDB  # noqa: F401

    import gestalt_nb.data.loading  # noqa: F401

    path = Path(out)
    wall, cpu = time.perf_counter(), time.process_time()
    {"floor": floor, "arrow": arrow, "gestalt": gestalt}[kind](path, nodes, edges)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"wall": wall, "cpu": cpu, "rss": rss, "disk": size}))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--kinds", default="arrow,gestalt", help="which loads to compare (floor, arrow, gestalt); the first is the baseline")
    parser.add_argument("--worker", nargs=3, metavar=("KIND", "FRAMES", "OUT"))
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return
    import gestalt_nb

    print(f"gestalt_nb from {gestalt_nb.__file__}", flush=True)
    for n in (int(size) for size in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            frames_path = Path(tmp) / "frames.pkl"
            with open(frames_path, "wb") as handle:
                pickle.dump(frames(n), handle)
            kinds = args.kinds.split(",")
            samples: dict[str, list[dict]] = {kind: [] for kind in kinds}
            for run in range(args.runs):
                order = kinds if run % 2 == 0 else kinds[::-1]
                for kind in order:
                    out = Path(tmp) / f"{kind}{run}"
                    done = subprocess.run(
                        [sys.executable, __file__, "--worker", kind, str(frames_path), str(out)],
                        capture_output=True, text=True, env=os.environ, check=False,
                    )
                    if done.returncode:
                        raise SystemExit(f"{kind} run failed:\n{done.stderr[-3000:]}")
                    samples[kind].append(json.loads(done.stdout.strip().splitlines()[-1]))
                    shutil.rmtree(out, ignore_errors=True)
            report(n, args.runs, samples, kinds)


def report(n: int, runs: int, samples: dict[str, list[dict]], kinds: list[str]) -> None:
    rows = 4 * n
    med = {kind: {key: statistics.median(s[key] for s in samples[kind]) for key in ("wall", "cpu", "rss", "disk")} for kind in kinds}
    base = med[kinds[0]]
    print(f"\n{n:,} nodes + {3 * n:,} relationships ({rows:,} rows), median of {runs} interleaved runs, one process per load", flush=True)
    for kind in kinds:
        m = med[kind]
        print(
            f"  {kind:>8}: wall {m['wall']:7.2f} s  cpu {m['cpu']:7.2f} s  {rows / m['wall']:10,.0f} rows/s  "
            f"peak RSS {m['rss'] / 1024**2:7.0f} MiB  disk {m['disk'] / 1024**2:7.1f} MiB",
            flush=True,
        )
    for kind in kinds[1:]:
        m = med[kind]
        print(
            f"  ratio {kind} / {kinds[0]}: wall {m['wall'] / base['wall']:.2f}x  cpu {m['cpu'] / base['cpu']:.2f}x  "
            f"peak RSS {m['rss'] / base['rss']:.2f}x",
            flush=True,
        )
    print("  wall samples " + "  ".join(f"{kind} {[round(s['wall'], 2) for s in samples[kind]]}" for kind in kinds), flush=True)


if __name__ == "__main__":
    main()
