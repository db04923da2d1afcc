"""Entity resolution against the graph at 10k and 100k entities: one index lookup per name, flat with size.

Both graphs are written through ``gestalt_nb.ingest_graph_documents`` (the extraction write path:
resolution, ``__name_norm`` index, source links, one transaction per batch of 100 documents of 100
entities). Then, interleaved between the two graphs, a fresh ``Resolver`` resolves 500 names that
exist under another spelling ("ENTITY 123." for "Entity 123") and 500 that do not; we print wall
and CPU medians per call and the 100k/10k ratio. The write throughput is printed once per graph.

    python bench/bench_graphrag.py [--runs 15]
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import tempfile
import time
from pathlib import Path

from langchain_core.documents import Document

import gestalt_nb
from gestalt_nb.graphrag.resolution import Resolver, normalise

PER_DOC = 100


def build(path: Path, entities: int, alias: str) -> tuple[float, float]:
    gestalt_nb.create(str(path), alias=alias, map_size="8GiB")  # the current connection: extract writes here
    docs = []
    for start in range(0, entities, PER_DOC):
        nodes = [{"id": f"Entity {i}", "type": "Thing", "properties": {}} for i in range(start, start + PER_DOC)]
        rels = [{"source": nodes[k], "target": nodes[k + 1], "type": "NEXT", "properties": {}} for k in range(PER_DOC - 1)]
        docs.append({"nodes": nodes, "relationships": rels, "source": Document(id=f"doc{start}", page_content=f"document {start}")})
    started = time.perf_counter()
    gestalt_nb.ingest_graph_documents(docs, alias=alias, batch_size=100)
    return time.perf_counter() - started, entities / (time.perf_counter() - started)


def resolve(conn, entities: int, rng: random.Random) -> tuple[float, float]:
    names = [f"ENTITY  {rng.randrange(entities)}." for _ in range(500)] + [f"Missing {rng.randrange(10**9)}" for _ in range(500)]
    resolver = Resolver(conn.db)
    wall, cpu = time.perf_counter(), time.process_time()
    found = 0
    for name in names:
        found += resolver._existing(name, normalise(name)) is not None
    assert found == 500, found
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    sizes = {"small": 10_000, "large": 100_000}
    with tempfile.TemporaryDirectory() as tmp:
        for alias, size in sizes.items():
            seconds, rate = build(Path(tmp) / alias, size, alias)
            print(f"{size:>7,} entities (+{size - size // PER_DOC:,} relationships, {size // PER_DOC:,} sources): written in {seconds:.2f} s ({rate:,.0f} entities/s)")
        rng = random.Random(3)
        times = {alias: [] for alias in sizes}
        gc.disable()
        for _ in range(args.runs):
            for alias, size in sizes.items():
                times[alias].append(resolve(gestalt_nb.connection(alias), size, rng))
        gc.enable()
        for alias, size in sizes.items():
            wall = statistics.median(t[0] for t in times[alias])
            cpu = statistics.median(t[1] for t in times[alias])
            print(f"{size:>7,}: resolve 1,000 names (500 hits under another spelling, 500 misses): wall {wall * 1000:.1f} ms, CPU {cpu * 1000:.1f} ms (median of {args.runs})")
        ratio = statistics.median(t[0] for t in times["large"]) / statistics.median(t[0] for t in times["small"])
        cpu_ratio = statistics.median(t[1] for t in times["large"]) / statistics.median(t[1] for t in times["small"])
        print(f"100k / 10k: wall {ratio:.2f}x, CPU {cpu_ratio:.2f}x (flat = 1.0; a scan would be ~10x)")
        gestalt_nb.session.REGISTRY.close_all()


if __name__ == "__main__":
    main()
