"""Shortest-path time and peak memory against path length: before (MATCH SHORTEST) and after.

Graphs: generated directed chains (paths of 5, 30 and 200 hops) and a 10,000-node / 16,000-
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
import time
import threading
import warnings
from pathlib import Path

import networkx as nx
from IPython.core.interactiveshell import InteractiveShell

import gestalt_nb
from gestalt_nb.budget import BudgetExceeded, resident
from gestalt_nb.errors import GestaltError


def before(connection, a, b, kinds, max_hops, timeout):
    """The pre-issue-21 implementation: the engine's MATCH SHORTEST over typed relationships."""
    ends = [gestalt_nb.ids.resolve(connection.db, value) for value in (a, b)]
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
        except BaseException as exc:  # noqa: BLE001 - the budget's stop is not an Exception today
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
    except BaseException as exc:  # noqa: BLE001
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
