"""Completion latency in %%gcypher cells on a 100,000-node graph, through IPython's real completer.

Each case is ``shell.Completer.completions(cell, cursor)`` — what the kernel runs for a Tab press —
on a 100k-node / 300k-relationship LMDB graph and on the small demo graph, in rotation, GC quiet,
medians of wall and CPU time. The target is <= 50 ms on the big graph. The "cold" case re-samples
the adapter's schema first (what the very first completion on a connection pays); a full label
count (``count_nodes_by_label``, O(N)) is timed alongside to show what completion never does.

    python bench/bench_completion.py [--runs 15] [--nodes 100000]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from graphs import build
from IPython.core.completer import provisionalcompleter
from IPython.core.interactiveshell import InteractiveShell

import gestalt_nb

CASES = {
    "label after (n:": "%%gcypher --alias {alias}\nMATCH (n:",
    "type in -[r:": "%%gcypher --alias {alias}\nMATCH (n:Person)-[r:",
    "property after p.": "%%gcypher --alias {alias}\nMATCH (p:Person)-[:KNOWS]->(q) WHERE p.",
    "parameter after $": "%%gcypher --alias {alias} -P params\nMATCH (p:Person {{name: $",
    "option after -": "%%gcypher --",
    "keyword RET": "%%gcypher --alias {alias}\nMATCH (p:Person) RET",
    "line magic label": "%gcypher --alias {alias} MATCH (n:Pe",
}


def measure(actions: dict, runs: int) -> dict:
    """(median wall s, median CPU s) per action, in rotation, GC off while timing."""
    for action in actions.values():
        action()
    wall: dict = {name: [] for name in actions}
    cpu: dict = {name: [] for name in actions}
    for _ in range(runs):
        for name, action in actions.items():
            gc.collect()
            gc.disable()
            try:
                started, started_cpu = time.perf_counter(), time.process_time()
                action()
                wall[name].append(time.perf_counter() - started)
                cpu[name].append(time.process_time() - started_cpu)
            finally:
                gc.enable()
    return {name: (statistics.median(wall[name]), statistics.median(cpu[name])) for name in actions}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--nodes", type=int, default=100_000)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        graph = build(Path(tmp) / "big", nodes=args.nodes, edges=3 * args.nodes)
        print(f"built {args.nodes:,} nodes / {3 * args.nodes:,} relationships in {time.perf_counter() - started:.1f} s")
        shell = InteractiveShell.instance()
        shell.run_line_magic("load_ext", "gestalt_nb")
        shell.user_ns["params"] = {"name": "Person 7", "min_age": 30}
        shell.user_ns["gestalt_nb"] = gestalt_nb
        gestalt_nb.demo(Path(tmp) / "demo", alias="demo")
        gestalt_nb.use(graph, alias="big")

        def completer(cell: str):
            def action():
                with provisionalcompleter():
                    found = list(shell.Completer.completions(cell, len(cell)))
                assert found, cell
            return action

        actions = {}
        for name, cell in CASES.items():
            actions[f"{name} | big"] = completer(cell.format(alias="big"))
            actions[f"{name} | demo"] = completer(cell.format(alias="demo"))

        def cold():
            graph.refresh_schema()  # the adapter's bounded sample, as on a connection's first completion
            completer(CASES["label after (n:"].format(alias="big"))()

        actions["cold: re-sample + label | big"] = cold
        actions["IPython alone: Python name"] = completer("gestalt_nb.sett")
        results = measure(actions, args.runs)
        count_started = time.perf_counter()
        full = graph.graph.count_nodes_by_label("Person")
        full_count = time.perf_counter() - count_started

    baseline = results["IPython alone: Python name"][0]
    print(f"\n{'case':<34} {'wall ms':>8} {'cpu ms':>8} {'big/demo':>9} {'vs IPython':>11}")
    for name, (wall, cpu) in results.items():
        ratio = ""
        if name.endswith("| big"):
            ratio = f"{wall / results[name.replace('| big', '| demo')][0]:.2f}x" if name.replace("| big", "| demo") in results else ""
        print(f"{name:<34} {wall * 1000:8.2f} {cpu * 1000:8.2f} {ratio:>9} {wall / baseline:10.2f}x")
    worst = max(wall for name, (wall, _) in results.items() if name.endswith("| big"))
    print(f"\nslowest completion on the {args.nodes:,}-node graph: {worst * 1000:.2f} ms (target <= 50 ms): "
          f"{'OK' if worst <= 0.05 else 'OVER'}")
    print(f"for scale: count_nodes_by_label('Person') over {full:,} nodes (never done by completion) took "
          f"{full_count * 1000:.0f} ms = {full_count / worst:.0f}x the slowest completion")


if __name__ == "__main__":
    main()
