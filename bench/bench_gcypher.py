"""%%gcypher overhead against the adapter's query_read_only and the raw GraphDB.query.

A 1,000-row typed query on a 10,000-node / 30,000-edge LMDB graph; medians of several runs.
"run()" is gestalt_nb's Python path (parse, limit, read-only query, Subgraph); "%%gcypher (no
display)" adds the magic's argument handling; "+ display" adds the display formatting a notebook
front end would receive (widget model, viewer document, static HTML table and SVG, text):
everything except the browser drawing it. Variants run in rotation; medians are reported.

    python bench/bench_gcypher.py [--runs 7]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from graphs import build  # noqa: E402
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402

import gestalt_nb  # noqa: E402

QUERY = "MATCH (a:Person)-[r:KNOWS]->(b:Person) RETURN a, r, b LIMIT 1000"


def median_seconds(action, runs: int) -> float:
    action()  # warm up caches and imports
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def interleaved_medians(actions: dict, runs: int) -> dict:
    """Median seconds per action, running them in rotation so machine drift hits all alike.

    As timeit does, garbage collection is off while an action is timed (and run between actions),
    so one action's garbage is not collected on another's clock.
    """
    for action in actions.values():
        action()  # warm up
    samples: dict = {name: [] for name in actions}
    for _ in range(runs):
        for name, action in actions.items():
            gc.collect()
            gc.disable()
            try:
                started = time.perf_counter()
                action()
                samples[name].append(time.perf_counter() - started)
            finally:
                gc.enable()
    return {name: statistics.median(values) for name, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        graph = build(Path(tmp) / "g")
        print(f"built 10,000 nodes / 30,000 edges in {time.perf_counter() - started:.2f} s")
        shell = InteractiveShell.instance()
        shell.run_line_magic("load_ext", "gestalt_nb")
        gestalt_nb.use(graph, alias="bench")
        rows = len(graph.query_read_only(QUERY))
        assert rows == 1000, rows

        def magic_and_display():
            result = shell.run_cell_magic("gcypher", "", QUERY)
            shell.display_formatter.format(result)

        def magic_only():
            shell.run_cell_magic("gcypher", "", QUERY)

        timings = interleaved_medians(
            {
                "raw GraphDB.query": lambda: graph.graph.query(QUERY),
                "query_read_only": lambda: graph.query_read_only(QUERY),
                "gestalt_nb.run()": lambda: gestalt_nb.run(QUERY),
                "%%gcypher (no display)": magic_only,
                "%%gcypher + display": magic_and_display,
            },
            args.runs,
        )
        base = timings["query_read_only"]
        raw = timings["raw GraphDB.query"]
        print(f"query: {QUERY}  ({rows} rows, median of {args.runs})")
        for name, seconds in timings.items():
            print(f"{name:>24}: {seconds * 1000:8.1f} ms   {seconds / raw:5.2f}x raw   {seconds / base:5.2f}x query_read_only")
        graph.close()


if __name__ == "__main__":
    main()
