"""Overhead of the time/memory budget (a watched worker thread) on the 1,000-row benchmark query.

The same query as bench_gcypher.py (typed, 1,000 rows, on 10,000 nodes / 30,000 edges), run
through the adapter's ``query_read_only`` directly (today's path without a budget) and inside
``gestalt_nb.cypher.budget.run_within`` (what every read now does), in rotation; medians of wall time and
of CPU time (process-wide, so the watchdog's own polling counts). Also a short 50-row query, where
a fixed per-call cost would show most. Target: at most 10% over the unbudgeted read.

    python bench/bench_budget.py [--runs 15] [--hang-dump]   (--hang-dump: print every thread's stack if it hangs 60 s)
"""

from __future__ import annotations

import _thread
import argparse
import gc
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from graphs import build

from gestalt_nb.cypher.budget import Budget, BudgetExceeded, QueryInterrupted, run_within

QUERY = "MATCH (a:Person)-[r:KNOWS]->(b:Person) RETURN a, r, b LIMIT 1000"
SHORT = "MATCH (a:Person)-[r:KNOWS]->(b:Person) RETURN a, r, b LIMIT 50"
#: Runs for minutes if nothing stops it.
ENDLESS = "MATCH (a:Person)-[:KNOWS]->(b:Person), (c:Person) RETURN count(*) AS n"
BUDGET = Budget(60.0, 2 * 1024**3)


def interleaved(actions: dict, runs: int) -> dict:
    """(wall median, cpu median) per action, in rotation, garbage collection off while timed."""
    for action in actions.values():
        action()
    samples = {name: ([], []) for name in actions}
    for _ in range(runs):
        for name, action in actions.items():
            gc.collect()
            gc.disable()
            try:
                wall, cpu = time.perf_counter(), time.process_time()
                action()
                samples[name][0].append(time.perf_counter() - wall)
                samples[name][1].append(time.process_time() - cpu)
            finally:
                gc.enable()
    return {name: (statistics.median(w), statistics.median(c)) for name, (w, c) in samples.items()}


def main() -> None:
    if "--hang-dump" in sys.argv:
        import faulthandler

        sys.argv.remove("--hang-dump")
        faulthandler.dump_traceback_later(60, exit=True)
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        graph = build(Path(tmp) / "g")
        assert len(graph.query_read_only(QUERY)) == 1000
        for label, query in (("1,000 rows", QUERY), ("50 rows", SHORT)):
            timings = interleaved(
                {
                    "query_read_only (no budget)": lambda q=query: graph.query_read_only(q),
                    "inside run_within (budget)": lambda q=query: run_within(lambda: graph.query_read_only(q), BUDGET),
                },
                args.runs,
            )
            (base_wall, base_cpu), (wall, cpu) = timings.values()
            print(f"{label}: {query}  (median of {args.runs})")
            for name, (w, c) in timings.items():
                print(f"  {name:>28}: {w * 1000:8.2f} ms wall  {c * 1000:8.2f} ms CPU")
            print(f"  budget overhead: {wall / base_wall:.3f}x wall, {cpu / base_cpu:.3f}x CPU (target <= 1.10x)")
        calls = 2000
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(calls):
            run_within(lambda: None, BUDGET)
        print(f"fixed cost of run_within per read: {(time.perf_counter() - wall) / calls * 1e6:.0f} us wall, "
              f"{(time.process_time() - cpu) / calls * 1e6:.0f} us CPU")
        overruns, interrupts = [], []
        for _ in range(5):
            try:
                run_within(lambda: graph.query_read_only(ENDLESS), Budget(0.5, 2 * 1024**3))
            except BudgetExceeded as exc:
                overruns.append(exc.usage.elapsed - 0.5)
            fired = []
            timer = threading.Timer(0.5, lambda: (fired.append(time.monotonic()), _thread.interrupt_main()))
            timer.start()
            try:
                run_within(lambda: graph.query_read_only(ENDLESS), BUDGET)
            except QueryInterrupted:
                interrupts.append(time.monotonic() - fired[0])
            timer.join()
        print(f"stop latency past a 0.5 s time budget (query thread ended): median {statistics.median(overruns) * 1000:.0f} ms, max {max(overruns) * 1000:.0f} ms")
        print(f"interrupt to QueryInterrupted raised (incl. freeing what it built): median {statistics.median(interrupts) * 1000:.0f} ms, max {max(interrupts) * 1000:.0f} ms")
        graph.close()


if __name__ == "__main__":
    main()
