"""Untyped relationship patterns: as written ("before"), rewritten to every type ("after"), typed.

The three queries of issue 22 on bulk-loaded graphs (bench/graphs.py: :Person nodes, three types)
at 10k/30k and 100k/300k. "before" is the adapter's query_read_only on the untyped text, stopped by
a time budget (--budget seconds; printed as "> N s (stopped)"); "after" is gestalt_nb's rewrite
(types read in the query's snapshot, then query_read_only on the rewritten text); "typed" is
query_read_only with every type spelled out by hand. after and typed run interleaved; medians.
Every finished pair is checked to return the same rows.

--types-sweep measures where the alternation stops paying: a 10k/30k graph with T types, the
one-node queries untyped against rewritten (this sets untyped.TYPES_PER_RELATIONSHIP; above
~1,700 short type names the rewritten text passes the adapter's 10,000-character limit).

    python bench/bench_untyped.py [--runs 5] [--budget 60] [--sizes 10000:30000,100000:300000] [--types-sweep]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gestaltdb.cypher import parse_ast
from gestaltdb.graphdb import Edge, GraphDB, Node
from graphs import TYPES, build
from langchain_gestaltdb import GestaltDBGraph

from gestalt_nb.cypher import untyped
from gestalt_nb.cypher.budget import Budget, BudgetExceeded, run_within

QUERIES = (
    ("whole graph", "MATCH ()-[r]->() RETURN count(r) AS c", "MATCH ()-[r:{t}]->() RETURN count(r) AS c"),
    ("one node, both ways", "MATCH (a {{id: '{n}'}})-[r]-(b) RETURN count(r) AS c", "MATCH (a {{id: '{n}'}})-[r:{t}]-(b) RETURN count(r) AS c"),
    ("*1..2 from one node", "MATCH (a {{id: '{n}'}})-[*1..2]->(b) RETURN count(b) AS c", "MATCH (a {{id: '{n}'}})-[:{t}*1..2]->(b) RETURN count(b) AS c"),
)


def once(action) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def after(graph, text):
    """What gestalt_nb's read path does: the sites of a text are found once (remembered), the
    types read in the query's snapshot at every run, the rewritten text checked once per type list."""
    found = untyped.find_in(text)
    records, rewrite = untyped.read(graph, found, None)
    assert rewrite.applied, rewrite.reason
    return records


def before(graph, text, budget: float):
    """Seconds and rows of the untyped query as written, or (None, None) when the budget stopped it."""
    try:
        started = time.perf_counter()
        rows, _ = run_within(lambda: graph.query_read_only(text), Budget(budget, 8 << 30, "cell"))
        return time.perf_counter() - started, rows
    except BudgetExceeded:
        return None, None


def measure(graph, queries, runs: int, budget: float) -> None:
    for name, plain, typed in queries:
        samples: dict[str, list[float]] = {"after": [], "typed": []}
        rows_after, rows_typed = after(graph, plain), graph.query_read_only(typed)  # warm up
        assert json.dumps(rows_after, sort_keys=True) == json.dumps(rows_typed, sort_keys=True)
        for _ in range(runs):
            samples["after"].append(once(lambda: after(graph, plain)))
            samples["typed"].append(once(lambda: graph.query_read_only(typed)))
        seconds, rows = before(graph, plain, budget)
        if rows is not None:
            assert json.dumps(rows, sort_keys=True) == json.dumps(rows_after, sort_keys=True), name
        a, t = statistics.median(samples["after"]), statistics.median(samples["typed"])
        shown = f"> {budget:.0f} s (stopped by the budget)" if seconds is None else f"{seconds:8.3f} s ({seconds / t:6.1f}x typed)"
        print(f"  {name:>22}: before {shown} | after {a:8.4f} s | typed {t:8.4f} s | after/typed {a / t:5.2f}x")


def sized(tmp: Path, nodes: int, edges: int, runs: int, budget: float) -> None:
    started = time.perf_counter()
    graph = build(tmp / f"g{nodes}", nodes, edges)
    print(f"{nodes:,} nodes / {edges:,} relationships, {len(TYPES)} types (built in {time.perf_counter() - started:.1f} s)")
    t = "|".join(TYPES)
    queries = [(name, plain.format(n="p5"), typed.format(n="p5", t=t)) for name, plain, typed in QUERIES]
    measure(graph, queries, runs, budget)
    graph.close()


def many_types(path: Path, types: int, nodes: int = 10_000, edges: int = 30_000) -> GestaltDBGraph:
    rng = random.Random(3)
    db = GraphDB.create(path, backend="lmdb", backend_options={"map_size": 2 << 30})
    with db.transaction() as tx:
        tx.put_nodes([Node(f"p{i}", labels=["Person"]) for i in range(nodes)])
        tx.put_edges_bulk(
            [Edge(f"e{j}", f"p{rng.randrange(nodes)}", f"p{rng.randrange(nodes)}", properties={"type": f"T{j % types}"}) for j in range(edges)],
            check_existing=False,
        )
    return GestaltDBGraph(db, owns_graph=True)


def sweep(tmp: Path, runs: int) -> None:
    print("types sweep (10k/30k): one-node queries, untyped as written against the alternation")
    for types in (10, 100, 400, 1000, 1500):
        graph = many_types(tmp / f"t{types}", types)
        for name, plain, _ in QUERIES[1:]:
            text = plain.format(n="p5")
            found = untyped.find(text, parse_ast(text))
            alternation = untyped.apply(found, tuple(sorted(f"T{i}" for i in range(types))))
            timings = {"untyped": [], "alternation": []}
            graph.query_read_only(alternation)
            for _ in range(runs):
                timings["untyped"].append(once(lambda: graph.query_read_only(text)))
                timings["alternation"].append(once(lambda: graph.query_read_only(alternation)))
            u, a = statistics.median(timings["untyped"]), statistics.median(timings["alternation"])
            print(f"  {types:>5} types, {name:>22}: untyped {u:7.3f} s | alternation {a:7.3f} s | {u / a:6.1f}x faster")
        graph.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--sizes", default="10000:30000,100000:300000")
    parser.add_argument("--types-sweep", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.types_sweep:
            sweep(Path(tmp), args.runs)
            return
        for size in args.sizes.split(","):
            nodes, edges = (int(part) for part in size.split(":"))
            sized(Path(tmp), nodes, edges, args.runs, args.budget)


if __name__ == "__main__":
    main()
