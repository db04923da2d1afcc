"""%%gcypher overhead against the adapter's query_read_only and the raw GraphDB.query.

A 1,000-row typed query on a 10,000-node / 30,000-edge LMDB graph; medians of several runs.
"run()" is gestalt_nb's Python path (parse, limit, read-only query, Subgraph); "%%gcypher (no
display)" adds the magic's argument handling; "+ display" adds the display formatting a notebook
front end would receive (widget model, viewer document, static HTML table and SVG, text):
everything except the browser drawing it. Variants run in rotation; medians are reported.

"The split" divides a displayed cell into the engine (GraphDB.query), the adapter's read-only
check (validate_read_only), the adapter's conversion (normalize over the engine's records),
gestalt-nb (run() minus query_read_only) and display (+ display minus %%gcypher alone).
--load-ext times ``%load_ext gestalt_nb`` against jupysql's ``%load_ext sql`` in fresh processes;
--memory measures the kernel memory each kept, displayed 1,000-row result holds, against jupysql.

    python bench/bench_gcypher.py [--runs 7] [--load-ext] [--memory]
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


_LOAD = """
import time
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
started = time.perf_counter()
shell.run_line_magic("load_ext", {name!r})
print(time.perf_counter() - started)
"""


def load_ext(runs: int) -> None:
    """``%load_ext`` in a fresh interpreter each time (imports included), rotating the two."""
    import subprocess

    samples: dict = {"gestalt_nb": [], "sql": []}
    for _ in range(runs):
        for name in samples:
            out = subprocess.run([sys.executable, "-c", _LOAD.format(name=name)], capture_output=True, text=True, check=True)
            samples[name].append(float(out.stdout.strip().splitlines()[-1]))
    ours, theirs = (statistics.median(samples[name]) for name in ("gestalt_nb", "sql"))
    print(f"%load_ext gestalt_nb {ours * 1000:7.1f} ms | %load_ext sql (jupysql) {theirs * 1000:7.1f} ms | {ours / theirs:4.2f}x")


_KEEP = """
import gc, sys, tempfile, resource, tracemalloc
from pathlib import Path
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
kind, count = sys.argv[1], int(sys.argv[2])
if kind == "gcypher":
    sys.path.insert(0, {bench!r})
    from graphs import build
    import gestalt_nb
    graph = build(Path(tempfile.mkdtemp()) / "g")
    shell.run_line_magic("load_ext", "gestalt_nb")
    gestalt_nb.use(graph, alias="bench")
    cell = lambda: shell.run_cell_magic("gcypher", "", {query!r})
else:
    shell.run_line_magic("load_ext", "sql")
    shell.run_line_magic("config", "SqlMagic.displaylimit = 1000")
    shell.run_line_magic("config", "SqlMagic.autolimit = 0")
    shell.run_line_magic("sql", "duckdb://")
    shell.run_cell_magic("sql", "", "CREATE TABLE t AS SELECT i AS a, i * 2 AS b, 'name ' || i AS c, i % 7 AS w FROM range(30000) r(i)")
    cell = lambda: shell.run_cell_magic("sql", "", "SELECT * FROM t LIMIT 1000")
first = cell(); shell.display_formatter.format(first)  # warm up: imports, caches
kept = []
gc.collect()
tracemalloc.start()
for _ in range(count):
    result = cell()
    shell.display_formatter.format(result)  # what the notebook receives
    kept.append(result)
gc.collect()
print("HELD", tracemalloc.get_traced_memory()[0] / count)
"""


def memory(count: int = 10) -> None:
    """Bytes each kept, displayed result holds (tracemalloc, after displaying it; fresh process)."""
    import subprocess

    bench = str(Path(__file__).resolve().parent)
    code = _KEEP.format(bench=bench, query=QUERY)
    held = {}
    for kind in ("gcypher", "sql"):
        out = subprocess.run([sys.executable, "-c", code, kind, str(count)], capture_output=True, text=True, check=True)
        held[kind] = float(next(line for line in out.stdout.splitlines() if line.startswith("HELD ")).split()[1])
    mib = 1024 * 1024
    print(
        f"kept 1,000-row result: %%gcypher {held['gcypher'] / mib:5.2f} MiB | jupysql %%sql {held['sql'] / mib:5.2f} MiB "
        f"| {held['gcypher'] / held['sql']:4.2f}x"
    )


def split(graph, shell, runs: int) -> None:
    """Where a displayed 1,000-row cell goes: engine, check, conversion, gestalt-nb, display."""
    from langchain_gestaltdb._read_only import validate_read_only
    from langchain_gestaltdb._serialization import normalize

    engine_records = graph.graph.query(QUERY).records
    t = interleaved_medians(
        {
            "engine": lambda: graph.graph.query(QUERY),
            "check": lambda: validate_read_only(QUERY, ()),
            "conversion": lambda: [normalize(record) for record in engine_records],
            "read": lambda: graph.query_read_only(QUERY),
            "run": lambda: gestalt_nb.run(QUERY),
            "magic": lambda: shell.run_cell_magic("gcypher", "", QUERY),
            "displayed": lambda: shell.display_formatter.format(shell.run_cell_magic("gcypher", "", QUERY)),
        },
        runs,
    )
    parts = {
        "engine (GraphDB.query)": t["engine"],
        "adapter read-only check": t["check"],
        "adapter conversion (normalize)": t["conversion"],
        "gestalt-nb (run - query_read_only)": t["run"] - t["read"],
        "magic (%%gcypher - run)": t["magic"] - t["run"],
        "display (+ display - %%gcypher)": t["displayed"] - t["magic"],
    }
    print(f"split of a displayed 1,000-row %%gcypher: {t['displayed'] * 1000:.1f} ms in all (median of {runs})")
    for name, seconds in parts.items():
        print(f"{name:>36}: {seconds * 1000:8.1f} ms  {seconds / t['displayed'] * 100:5.1f}%")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--load-ext", action="store_true", help="only time %%load_ext against jupysql's")
    parser.add_argument("--memory", action="store_true", help="only measure kernel memory per kept result")
    args = parser.parse_args()
    if args.load_ext:
        return load_ext(args.runs)
    if args.memory:
        return memory()
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
        split(graph, shell, args.runs)
        graph.close()


if __name__ == "__main__":
    main()
