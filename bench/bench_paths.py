"""Shortest-path time and peak memory against path length: before (MATCH SHORTEST) and after.

Graphs: generated directed chains (paths of 5, 30 and 200 hops), generated ladders (two nodes per
step, every node joined to both of the next step's: 2^k shortest paths of k hops, the shape where
the engine's path enumeration blows up, as on the issue's Bayesian networks) and a 10,000-node / 16,000-
relationship sparse random graph (pairs 5 hops apart, the farthest pair from one node, and an
unreachable pair). "before" is the query ``shortest_path`` ran until issue 21:
``MATCH SHORTEST 1 p = (a {id: ..})-[:T*1..max_hops]-(b {id: ..}) RETURN p, length(p)``, within the
cell budget (so it may stop: shown as "stopped"); "after" is ``gestalt_nb.shortest_path`` now.
Time: median of ``--runs`` runs, before and after interleaved. Memory: the peak growth of the
process's resident memory (sampled every 2 ms) in one separate run of each, measured first.

    python bench/bench_paths.py [--runs 3] [--before-timeout 30]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
import warnings
from pathlib import Path

import networkx as nx
from IPython.core.interactiveshell import InteractiveShell

import gestalt_nb
from gestalt_nb.cypher.budget import BudgetExceeded, resident
from gestalt_nb.errors import GestaltError
from gestalt_nb.graph.ids import resolve


def before(connection, a, b, kinds, max_hops, timeout):
    """The pre-issue-21 implementation: the engine's MATCH SHORTEST over typed relationships."""
    ends = [resolve(connection.db, value) for value in (a, b)]
    query = (
        f"MATCH SHORTEST 1 p = (a {{id: {json.dumps(ends[0])}}})-[:{'|'.join(kinds)}*1..{max_hops}]-"
        f"(b {{id: {json.dumps(ends[1])}}}) RETURN p, length(p) AS hops"
    )
    result = connection.run(query, timeout=timeout)
    return result.records[0]["hops"] if result.records else None


def after(connection, a, b, kinds, max_hops, timeout):
    result = connection.shortest_path(a, b, types=kinds, max_hops=max_hops)
    return result.records[0]["hops"] if result.records else None


def stopped(exc: BaseException) -> bool:
    """The budget or a bound stopped the call (the budget's internal stop included, issue 21 finding 8)."""
    return isinstance(exc, (BudgetExceeded, GestaltError)) or type(exc).__name__ == "_Stop"


def measure(call, runs):
    """(median seconds, answer) — or ("stopped", reason) when the budget or a bound stopped it."""
    times, answer = [], None
    for _ in range(runs):
        started = time.perf_counter()
        try:
            answer = call()
        except BaseException as exc:
            if not stopped(exc):
                raise
            return "stopped", (str(exc).split(".")[0][:50] or type(exc).__name__)
        times.append(time.perf_counter() - started)
    return statistics.median(times), answer


def peak(call):
    """Peak growth of the process's resident memory during ``call`` (sampled every 2 ms), in bytes."""
    base, top, done = resident(), [0], threading.Event()

    def sample():
        while not done.is_set():
            top[0] = max(top[0], resident() - base)
            time.sleep(0.002)

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    try:
        call()
    except BaseException as exc:
        if not stopped(exc):
            raise
    finally:
        done.set()
        watcher.join()
    return max(top[0], resident() - base)


def quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gestalt_nb.GestaltWarning)
        return call(*args, **kwargs)


def load(shell, path, G, kind):
    shell.run_line_magic("gestalt", f"create {path}")
    connection = gestalt_nb.connection()
    quiet(gestalt_nb.from_networkx, G, label="N", type=kind)
    return connection


def cases(tmp, shell):
    chain = load(shell, Path(tmp) / "chain", nx.DiGraph([(i, i + 1) for i in range(250)]), "NEXT")
    yield from ((f"chain, {hops} hops", chain, 0, hops, ["NEXT"], max(hops, 10)) for hops in (5, 30, 200))
    steps = 201
    rungs = [((i, side), (i + 1, other)) for i in range(steps - 1) for side in (0, 1) for other in (0, 1)]
    ladder = nx.relabel_nodes(nx.DiGraph(rungs), {node: f"s{node[0]}-{node[1]}" for node in {n for edge in rungs for n in edge}})
    ladder = load(shell, Path(tmp) / "ladder", ladder, "STEP")
    yield from ((f"ladder, {hops} hops", ladder, "s0-0", f"s{hops}-0", ["STEP"], max(hops, 10)) for hops in (5, 30, 200))
    G = nx.gnm_random_graph(10_000, 16_000, seed=7, directed=True)
    sparse = load(shell, Path(tmp) / "sparse", G, "LINK")
    U = G.to_undirected()
    source = max(U.degree, key=lambda item: item[1])[0]
    distance = nx.single_source_shortest_path_length(U, source)
    five = next(node for node, hops in distance.items() if hops == 5)
    far = max(distance, key=distance.get)
    alone = next(node for node in U if node not in distance)
    for name, target in (("5 hops", five), (f"{distance[far]} hops (farthest)", far), ("unreachable", alone)):
        yield f"10k sparse, {name}", sparse, source, target, ["LINK"], 50
    yield from random_pairs(sparse, G)


def random_pairs(connection, G, pairs=200):
    """After only: 200 random pairs on the 10k graph, both directions; median and worst time, and the
    worst pair's peak Python allocations (tracemalloc; the search's dicts and lists are Python objects)."""
    import random
    import tracemalloc

    rng = random.Random(3)
    times, widest = [], (0, None)
    for _ in range(pairs):
        a, b = rng.sample(range(G.number_of_nodes()), 2)
        for direction in ("both", "out"):
            started = time.perf_counter()
            result = connection.shortest_path(a, b, types=["LINK"], max_hops=1000, direction=direction)
            times.append(time.perf_counter() - started)
            reached = int(result.notes[0].rsplit("; ", 1)[1].split()[0].replace(",", ""))
            widest = max(widest, (reached, (a, b, direction)), key=lambda item: item[0])
    tracemalloc.start()
    a, b, direction = widest[1]
    connection.shortest_path(a, b, types=["LINK"], max_hops=1000, direction=direction)
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    print(
        f"after, {len(times)} random pairs on the 10k graph: median {statistics.median(times):.4f} s, worst {max(times):.4f} s; "
        f"the pair reaching most nodes ({widest[0]:,}) peaks at {peak:.1f} MB of Python allocations"
    )
    return iter(())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--before-timeout", type=float, default=30.0)
    args = parser.parse_args()
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "gestalt_nb")
    print(f"{'case':34} {'before s':>10} {'after s':>9} {'ratio':>7} {'before MB':>10} {'after MB':>9}  answers")
    with tempfile.TemporaryDirectory() as tmp:
        for name, connection, a, b, kinds, max_hops in cases(tmp, shell):
            calls = {
                "before": lambda: before(connection, a, b, kinds, max_hops, args.before_timeout),
                "after": lambda: after(connection, a, b, kinds, max_hops, args.before_timeout),
            }
            memory = {key: peak(call) / 2**20 for key, call in calls.items()}
            timed = {key: [] for key in calls}
            answers = {}
            for _ in range(args.runs):  # interleaved: before, after, before, after, ...
                for key, call in calls.items():
                    seconds, answer = measure(call, 1)
                    timed[key].append(seconds)
                    answers[key] = answer
            seconds = {key: (statistics.median(v) if all(isinstance(x, float) for x in v) else None) for key, v in timed.items()}
            ratio = f"{seconds['before'] / seconds['after']:.0f}×" if seconds["before"] and seconds["after"] else "-"
            shown = {key: (f"{value:.3f}" if value is not None else "stopped") for key, value in seconds.items()}
            print(
                f"{name:34} {shown['before']:>10} {shown['after']:>9} {ratio:>7} {memory['before']:>10.1f} {memory['after']:>9.1f}"
                f"  {answers['before']} / {answers['after']}"
            )


if __name__ == "__main__":
    main()
