"""Bounded calls at 10k, 100k and 1M nodes (3 relationships per node): do they stay flat?

On the synthetic graphs of ``graphs.build`` (built once into ``--graphs DIR`` and reused), times
``%gschema --refresh`` (the magic, no display), one explorer expansion (all types, both
directions), a 2-hop retrieval (``KNOWS:any`` then ``FOLLOWS:out``, subgraph built) and a 1-hop
typed query through ``run``. All sizes are open at once and every call runs in rotation across
sizes; medians of wall time and CPU time, and each size's ratio to its 10k time.

    python bench/bench_scale_query.py [--sizes 10000,100000,1000000] [--runs 7] [--graphs DIR]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from graphs import build
from IPython.core.interactiveshell import InteractiveShell

import gestalt_nb
from gestalt_nb.graph.explorer import Explorer
from gestalt_nb.graph.retrieval import retrieve

START = "p5"


def ensure(path: Path, n: int) -> None:
    if (path / "manifest.json").exists() or any(path.glob("*.json")):
        return
    started = time.perf_counter()
    build(path, nodes=n, edges=3 * n).close()
    print(f"built {n:,} nodes in {time.perf_counter() - started:.0f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--graphs", default="/tmp/bench-scale-graphs")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    print(f"gestalt_nb from {gestalt_nb.__file__}", flush=True)
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "gestalt_nb")
    calls = {}
    for n in sizes:
        path = Path(args.graphs) / f"n{n}"
        ensure(path, n)
        connection = gestalt_nb.connect(str(path), alias=f"n{n}", map_size="8GiB")
        retriever = connection.retriever(seed_ids=(START,), hops=[{"edge_type": "KNOWS", "direction": "any"}, {"edge_type": "FOLLOWS", "direction": "out"}])

        def schema(alias=connection.alias):
            gestalt_nb.session.REGISTRY.switch(alias)
            return shell.run_line_magic("gschema", "--refresh")

        def expansion(connection=connection):
            explorer = Explorer(connection)
            explorer.start(START)
            explorer.expand(direction="both")
            return explorer.subgraph

        def retrieval(connection=connection, retriever=retriever):
            return retrieve(connection, retriever, "bench").subgraph

        def typed(connection=connection):
            return connection.run(f"MATCH (a:Person {{id: '{START}'}})-[r:KNOWS]->(b) RETURN a, r, b")

        calls[n] = {"%gschema --refresh": schema, "explorer expansion": expansion, "2-hop retrieval": retrieval, "1-hop typed query": typed}
    for per_size in calls.values():  # warm up
        for action in per_size.values():
            action()
    wall = {(n, name): [] for n in sizes for name in calls[n]}
    cpu = {(n, name): [] for n in sizes for name in calls[n]}
    for _ in range(args.runs):
        for name in calls[sizes[0]]:
            for n in sizes:
                gc.collect()
                gc.disable()
                try:
                    w, c = time.perf_counter(), time.process_time()
                    calls[n][name]()
                    wall[n, name].append(time.perf_counter() - w)
                    cpu[n, name].append(time.process_time() - c)
                finally:
                    gc.enable()
    print(f"median of {args.runs} interleaved runs; ms (ratio to {sizes[0]:,})")
    header = "".join(f"{n:>26,}" for n in sizes)
    print(f"{'':>22}{header}")
    for name in calls[sizes[0]]:
        for label, table in (("wall", wall), ("cpu", cpu)):
            base = statistics.median(table[sizes[0], name])
            cells = "".join(f"{statistics.median(table[n, name]) * 1000:14.1f} ms ({statistics.median(table[n, name]) / base:4.2f}x)" for n in sizes)
            print(f"{name + ' ' + label:>22}{cells}")
    gestalt_nb.session.REGISTRY.close_all()


if __name__ == "__main__":
    main()
