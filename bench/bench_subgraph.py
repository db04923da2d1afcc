"""Seed resolution and a 2-hop ``query_subgraph`` at 10k/30k and 100k/300k: flat with graph size.

Both graphs have the same shape (average degree 6, three relationship types, ``__name_lc``
indexed), so a bounded call should cost the same on both. Calls alternate between the two
graphs (interleaved), each on names drawn afresh; we print wall and CPU medians and the
100k/10k ratio. For contrast, a case-insensitive name *scan* (``toLower(n.name) = $x`` in
Cypher, what the index replaces) is timed a few times on each.

    python bench/bench_subgraph.py [--runs 25]
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import tempfile
import time
from pathlib import Path

from gestaltdb.graphdb import Edge, GraphDB, Node
from langchain_gestaltdb import GestaltDBGraph

import gestalt_nb
from gestalt_nb.graph import names
from gestalt_nb.graph.names import NAME_KEY, keyed

TYPES = ("KNOWS", "WORKS_WITH", "FOLLOWS")


def build(path: Path, nodes: int, edges: int, seed: int = 7) -> GestaltDBGraph:
    rng = random.Random(seed)
    db = GraphDB.create(path, backend="lmdb", serializer="json", backend_options={"map_size": 4 * 1024**3}, indexed_node_properties=[NAME_KEY])
    with db.transaction() as tx:
        tx.put_nodes(keyed(tx, [Node(f"p{i}", labels=["Person"], properties={"name": f"Person {i}"}) for i in range(nodes)]))
        tx.put_edges_bulk(
            [Edge(f"e{j}", f"p{rng.randrange(nodes)}", f"p{rng.randrange(nodes)}", properties={"type": TYPES[j % 3], "confidence": (j % 10) / 10}) for j in range(edges)],
            check_existing=False,
        )
    return GestaltDBGraph(db, owns_graph=True)


def timed(call):
    gc.collect()
    gc.disable()
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        value = call()
        return time.perf_counter() - wall, time.process_time() - cpu, value
    finally:
        gc.enable()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=25)
    args = parser.parse_args()
    sizes = {"10k/30k": (10_000, 30_000), "100k/300k": (100_000, 300_000)}
    with tempfile.TemporaryDirectory() as tmp:
        connections = {}
        for label, (n, e) in sizes.items():
            started = time.perf_counter()
            connections[label] = gestalt_nb.use(build(Path(tmp) / label.replace("/", "_"), n, e), alias=label.replace("/", "_"))
            print(f"built {label} in {time.perf_counter() - started:.1f} s")
        rng = random.Random(1)
        samples = {(label, what): [] for label in sizes for what in ("seed", "2hop")}
        nodes_seen = {label: [] for label in sizes}
        for _ in range(args.runs):
            for label, (n, _) in sizes.items():  # interleaved
                connection = connections[label]
                name = f"PERSON {rng.randrange(min(n for n, _ in sizes.values()))}"
                samples[(label, "seed")].append(timed(lambda: names.lookup(connection.db, name, limit=10))[:2])
                wall, cpu, result = timed(lambda: connection.subgraph([name], max_hops=2))
                samples[(label, "2hop")].append((wall, cpu))
                nodes_seen[label].append(len(result.nodes))
        print(f"\n{'graph':>10} {'call':>6} {'wall median':>12} {'cpu median':>11}  nodes (median)")
        medians = {}
        for (label, what), values in samples.items():
            wall = statistics.median(v[0] for v in values)
            cpu = statistics.median(v[1] for v in values)
            medians[(label, what)] = (wall, cpu)
            extra = f"  {statistics.median(nodes_seen[label]):.0f}" if what == "2hop" else ""
            print(f"{label:>10} {what:>6} {wall * 1000:10.2f} ms {cpu * 1000:9.2f} ms{extra}")
        for what in ("seed", "2hop"):
            small, large = medians[("10k/30k", what)], medians[("100k/300k", what)]
            print(f"ratio 100k/10k {what}: wall {large[0] / small[0]:.2f}x, cpu {large[1] / small[1]:.2f}x")
        print("\ncase-insensitive name scan (Cypher toLower, no index), 3 runs each:")
        scans = {}
        for label in sizes:
            graph = connections[label].graph
            runs = [timed(lambda: graph.query("MATCH (n:Person) WHERE toLower(n.name) = $x RETURN n.name", {"x": "person 5"}))[:2] for _ in range(3)]
            scans[label] = statistics.median(r[0] for r in runs)
            print(f"{label:>10} scan {scans[label] * 1000:10.1f} ms (index lookup is {scans[label] / medians[(label, 'seed')][0]:,.0f}x faster)")
        for connection in connections.values():
            connection.graph.close()


if __name__ == "__main__":
    main()
