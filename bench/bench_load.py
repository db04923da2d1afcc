"""Loading 10,000 nodes + 30,000 relationships from DataFrames, against naive add_graph_documents.

Each run loads into a fresh LMDB database. gestalt_nb: ``load_nodes`` + ``load_edges`` (validation,
conversion and one transaction each). Naive: the adapter's ``add_graph_documents`` outside any
transaction (one LMDB commit per write), the quickest path a newcomer finds; it is timed once,
because it takes tens of seconds. Also timed: re-loading the same frames (all rows unchanged).

    python bench/bench_load.py [--runs 5] [--skip-naive]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

import pandas as pd
from langchain_gestaltdb import GestaltDBGraph, GraphDocument, GraphNode, GraphRelationship

import gestalt_nb
from gestalt_nb.session import REGISTRY

N, E = 10_000, 30_000
TYPES = ("KNOWS", "WORKS_WITH", "FOLLOWS")


def frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = random.Random(7)
    nodes = pd.DataFrame(
        {"pid": [f"p{i}" for i in range(N)], "name": [f"Person {i}" for i in range(N)], "age": [20 + i % 50 for i in range(N)], "score": [(i % 97) / 97 for i in range(N)]}
    )
    edges = pd.DataFrame(
        {"src": [f"p{rng.randrange(N)}" for _ in range(E)], "dst": [f"p{rng.randrange(N)}" for _ in range(E)], "kind": [TYPES[j % 3] for j in range(E)], "weight": [j % 10 for j in range(E)], "eid": [f"e{j}" for j in range(E)]}
    )
    return nodes, edges


def naive(tmp: Path, nodes: pd.DataFrame, edges: pd.DataFrame) -> float:
    graph = GestaltDBGraph.create(tmp / "naive", backend="lmdb", backend_options={"map_size": 4 * 1024**3})
    people = {row.pid: GraphNode(id=row.pid, type="Person", properties={"name": row.name, "age": row.age, "score": row.score}) for row in nodes.itertuples()}
    document = GraphDocument(
        nodes=list(people.values()),
        relationships=[
            GraphRelationship(source=people[row.src], target=people[row.dst], type=row.kind, properties={"weight": row.weight}, id=row.eid)
            for row in edges.itertuples()
        ],
    )
    started = time.perf_counter()
    graph.add_graph_documents([document])
    seconds = time.perf_counter() - started
    graph.close()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--skip-naive", action="store_true")
    args = parser.parse_args()
    nodes, edges = frames()
    loads, reloads = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.runs):
            gestalt_nb.create(Path(tmp) / f"run{run}")
            started = time.perf_counter()
            gestalt_nb.load_nodes(nodes, id="pid", label="Person")
            gestalt_nb.load_edges(edges, source="src", target="dst", type_column="kind", id="eid")
            loads.append(time.perf_counter() - started)
            started = time.perf_counter()
            again = gestalt_nb.load_edges(edges, source="src", target="dst", type_column="kind", id="eid")
            reloads.append(time.perf_counter() - started)
            assert again.unchanged == E
            REGISTRY.close()
        load = statistics.median(loads)
        print(f"gestalt_nb load_nodes + load_edges ({N:,} + {E:,} rows): median {load:.2f} s over {args.runs} runs {[round(x, 2) for x in loads]}")
        print(f"re-load of the {E:,} relationships (all unchanged): median {statistics.median(reloads):.2f} s")
        if not args.skip_naive:
            slow = naive(Path(tmp), nodes, edges)
            print(f"naive add_graph_documents (no transaction, once): {slow:.1f} s  → gestalt_nb is {slow / load:.1f}x faster")


if __name__ == "__main__":
    main()
