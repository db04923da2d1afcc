"""%%gcypher overhead against the adapter's query_read_only and the raw GraphDB.query.

A 1,000-row typed query on a 10,000-node / 30,000-edge LMDB graph; medians of several runs.
"run()" is gestalt_nb's Python path (parse, limit, read-only query, Subgraph); "%%gcypher (no
display)" adds the magic's argument handling; "+ display" adds the display formatting a notebook
front end would receive (widget model, viewer document, static HTML table and SVG, text):
everything except the browser drawing it. Variants run in rotation; medians are reported.

"The split" divides a displayed cell into the engine (GraphDB.query), the adapter's read-only
check (validate_read_only), the conversion of the engine's values (the adapter's normalize over every
record before gestalt_nb/graph/rows.py; Rows.from_engine after, the rows' JSON then made for what a
view shows, inside display), gestalt-nb (run() minus those three), the magic and display (+ display
minus %%gcypher alone); the parts add up to the displayed cell.
--load-ext times ``%load_ext gestalt_nb`` against jupysql's ``%load_ext sql`` in fresh processes;
--memory measures the kernel memory each kept, displayed 1,000-row result holds, against jupysql.
--compare TREE [TREE …] runs the split (or --memory, --load-ext) with gestalt_nb imported from each tree (PYTHONPATH),
one worker process per tree, rounds alternating between them, and prints the parts side by side.
--first-frame times Shift+Enter to the first drawn frame at 1k / 5k / 10k / 50k nodes against ipysigma's Sigma(G) in
JupyterLab and headless Chromium (bench/first_frame.py; with --compare, one server per tree); --kernel-split
times that cell's kernel side in parts: the engine, the rest of run(), the canvas's first message, the static rest.

    python bench/bench_gcypher.py [--runs 7] [--load-ext] [--memory] [--first-frame [--sizes N …]] [--compare BEFORE AFTER]
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

from graphs import build
from IPython.core.interactiveshell import InteractiveShell

import gestalt_nb

QUERY = "MATCH (a:Person)-[r:KNOWS]->(b:Person) RETURN a, r, b LIMIT 1000"


def median_seconds(action, runs: int) -> float:
    action()  # warm up caches and imports
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def interleaved_medians(actions: dict, runs: int, *, warm: bool = True) -> dict:
    """Median seconds per action, running them in rotation so machine drift hits all alike.

    As timeit does, garbage collection is off while an action is timed (and run between actions),
    so one action's garbage is not collected on another's clock.
    """
    for action in actions.values() if warm else ():
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


def load_ext(runs: int, trees: list[str] | None = None) -> None:
    """``%load_ext`` in a fresh interpreter each time (imports included), rotating jupysql and each tree.

    ``trees``: gestalt_nb imported from each of them (PYTHONPATH), e.g. before and after a change.
    """
    import os
    import subprocess

    bench = str(Path(__file__).resolve().parent)
    kinds = [("sql", None)] + [("gestalt_nb", tree) for tree in trees or [None]]
    samples: dict = {kind: [] for kind in kinds}
    for _ in range(runs):
        for name, tree in kinds:
            env = {**os.environ, "PYTHONPATH": tree} if tree else None
            # cwd: the bench folder, so `python -c` does not import gestalt_nb from the current directory
            out = subprocess.run([sys.executable, "-c", _LOAD.format(name=name)], capture_output=True, text=True, check=True, env=env, cwd=bench)
            samples[(name, tree)].append(float(out.stdout.strip().splitlines()[-1]))
    theirs = statistics.median(samples[("sql", None)])
    for name, tree in kinds[1:]:
        ours = statistics.median(samples[(name, tree)])
        where = f" ({tree})" if tree else ""
        print(f"%load_ext gestalt_nb{where} {ours * 1000:7.1f} ms | %load_ext sql (jupysql) {theirs * 1000:7.1f} ms | {ours / theirs:4.2f}x")


_KEEP = """
import gc, sys, tempfile, resource, tracemalloc
from pathlib import Path
from IPython.core.displaypub import CapturingDisplayPublisher
from IPython.core.interactiveshell import InteractiveShell
from IPython.display import display
shell = InteractiveShell.instance()
shell.display_pub = CapturingDisplayPublisher()  # what the notebook would receive, dropped after each display
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
def shown(result):
    display(result)  # as a notebook does: a view displays itself (a display id), any other result is formatted
    assert shell.display_pub.outputs, "nothing was displayed"
    shell.display_pub.outputs.clear()
shown(cell())  # warm up: imports, caches
kept = []
gc.collect()
tracemalloc.start()
for _ in range(count):
    result = cell()
    shown(result)
    kept.append(result)
gc.collect()
print("HELD", tracemalloc.get_traced_memory()[0] / count)
"""


def memory(count: int = 10, trees: list[str] | None = None) -> None:
    """Bytes each kept, displayed result holds (tracemalloc, after displaying it; fresh process each).

    ``trees``: measure %%gcypher with gestalt_nb imported from each of them (PYTHONPATH) in turn.
    """
    import os
    import subprocess

    bench = str(Path(__file__).resolve().parent)
    code = _KEEP.format(bench=bench, query=QUERY)

    def held(kind: str, tree: str | None = None) -> float:
        env = {**os.environ, "PYTHONPATH": tree} if tree else None
        # cwd: the bench folder, so `python -c` does not import gestalt_nb from the current directory before PYTHONPATH
        out = subprocess.run([sys.executable, "-c", code, kind, str(count)], capture_output=True, text=True, check=True, env=env, cwd=bench)
        return float(next(line for line in out.stdout.splitlines() if line.startswith("HELD ")).split()[1])

    mib = 1024 * 1024
    sql = held("sql")
    for tree in trees or [None]:
        ours = held("gcypher", tree)
        where = f" ({tree})" if tree else ""
        print(f"kept 1,000-row result{where}: %%gcypher {ours / mib:5.2f} MiB | jupysql %%sql {sql / mib:5.2f} MiB | {ours / sql:4.2f}x")


def split_actions(graph, shell) -> dict:
    """One displayed 1,000-row cell and its parts, as actions; ``conversion`` is what the code under test
    does to the engine's records: the adapter's ``normalize`` over all of them (before gestalt_nb/graph/rows.py),
    or ``Rows.from_engine`` (after: the rows' JSON is made later, for what a view shows, inside "display")."""
    import importlib.util

    from langchain_gestaltdb._read_only import validate_read_only
    from langchain_gestaltdb._serialization import normalize

    engine_records = graph.graph.query(QUERY).records
    if importlib.util.find_spec("gestalt_nb.graph.rows") is not None:
        from gestalt_nb.graph.rows import Rows

        conversion = lambda: Rows.from_engine(engine_records)
    else:
        conversion = lambda: [normalize(record) for record in engine_records]
    return {
        "engine": lambda: graph.graph.query(QUERY),
        "check": lambda: validate_read_only(QUERY, ()),
        "conversion": conversion,
        "run": lambda: gestalt_nb.run(QUERY),
        "magic": lambda: shell.run_cell_magic("gcypher", "", QUERY),
        "displayed": lambda: displayed(shell, shell.run_cell_magic("gcypher", "", QUERY)),
    }


def displayed(shell, result) -> None:
    """Display ``result`` as a notebook does and drop what would be sent.

    Views display themselves (``_ipython_display_``, under a display id), so ``display_formatter.format``
    returns nothing for them: display() through a capturing publisher measures what the page receives.
    """
    from IPython.core.displaypub import CapturingDisplayPublisher
    from IPython.display import display

    if not isinstance(shell.display_pub, CapturingDisplayPublisher):
        shell.display_pub = CapturingDisplayPublisher()
    display(result)
    assert shell.display_pub.outputs, "nothing was displayed"
    shell.display_pub.outputs.clear()


def split_parts(t: dict) -> dict:
    """The parts of a displayed cell from the actions' medians (they add up to the displayed cell)."""
    return {
        "engine (GraphDB.query)": t["engine"],
        "adapter read-only check": t["check"],
        "conversion of engine values": t["conversion"],
        "gestalt-nb (run - the three above)": t["run"] - t["engine"] - t["check"] - t["conversion"],
        "magic (%%gcypher - run)": t["magic"] - t["run"],
        "display (+ display - %%gcypher)": t["displayed"] - t["magic"],
    }


def split(graph, shell, runs: int) -> None:
    """Where a displayed 1,000-row cell goes: engine, check, conversion, gestalt-nb, magic, display."""
    t = interleaved_medians(split_actions(graph, shell), runs)
    print(f"split of a displayed 1,000-row %%gcypher: {t['displayed'] * 1000:.1f} ms in all (median of {runs})")
    for name, seconds in split_parts(t).items():
        print(f"{name:>36}: {seconds * 1000:8.1f} ms  {seconds / t['displayed'] * 100:5.1f}%")


def worker() -> None:
    """``--worker``: build the graph, then time one round of the split's actions per ``round`` line on stdin."""
    import json

    with tempfile.TemporaryDirectory() as tmp:
        graph = build(Path(tmp) / "g")
        shell = InteractiveShell.instance()
        shell.run_line_magic("load_ext", "gestalt_nb")
        gestalt_nb.use(graph, alias="bench")
        actions = split_actions(graph, shell)
        print("@@ready", flush=True)
        for line in sys.stdin:
            if line.strip() != "round":
                break
            print("@@" + json.dumps(interleaved_medians(actions, 1, warm=False)), flush=True)
        graph.close()


def _answer(process) -> str:
    for line in process.stdout:
        if line.startswith("@@"):
            return line[2:].strip()
    raise RuntimeError(f"the worker stopped: {process.stderr.read()[-2000:]}")


def compare(trees: list[str], runs: int) -> None:
    """The split with gestalt_nb imported from each tree (PYTHONPATH), one worker process per tree, rounds
    alternating between them (the first round of each is a warm-up and dropped); medians per part."""
    import json
    import os
    import subprocess

    workers = [
        subprocess.Popen([sys.executable, __file__, "--worker"], env={**os.environ, "PYTHONPATH": tree},
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for tree in trees
    ]
    for process in workers:
        assert _answer(process) == "ready"
    samples: list[dict] = [{} for _ in trees]
    for number in range(runs + 1):
        order = list(range(len(trees)))[:: 1 if number % 2 else -1]
        for index in order:
            workers[index].stdin.write("round\n")
            workers[index].stdin.flush()
            timings = json.loads(_answer(workers[index]))
            for name, seconds in timings.items():
                if number:
                    samples[index].setdefault(name, []).append(seconds)
    for process in workers:
        process.stdin.close()
        process.wait()
    medians = [{name: statistics.median(values) for name, values in sample.items()} for sample in samples]
    parts = [split_parts(t) for t in medians]
    header = "".join(f"{Path(tree).name or tree:>24}" for tree in trees)
    print(f"split of a displayed 1,000-row %%gcypher, medians of {runs} alternating rounds (ms, % of the cell):")
    print(f"{'':>36}{header}   after/before")
    for name in parts[0]:
        cells = "".join(f"{part[name] * 1000:14.1f} ({part[name] / t['displayed'] * 100:5.1f}%)" for part, t in zip(parts, medians))
        ratio = parts[-1][name] / parts[0][name] if parts[0][name] > 0 else float("nan")
        print(f"{name:>36}{cells}   {ratio:5.2f}x")
    cells = "".join(f"{t['displayed'] * 1000:14.1f}         " for t in medians)
    print(f"{'displayed cell in all':>36}{cells}   {medians[-1]['displayed'] / medians[0]['displayed']:5.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--load-ext", action="store_true", help="only time %%load_ext against jupysql's")
    parser.add_argument("--memory", action="store_true", help="only measure kernel memory per kept result")
    parser.add_argument("--compare", nargs="+", metavar="TREE", help="the split (or --memory) with gestalt_nb from each tree, interleaved")
    parser.add_argument("--first-frame", action="store_true", help="Shift+Enter to first frame against ipysigma (bench/first_frame.py)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 10000, 50000], help="node counts for --first-frame")
    parser.add_argument("--kernel-split", action="store_true", help="the --first-frame cell's kernel side in parts (no browser)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker()
    if args.kernel_split:
        from first_frame import kernel_split

        return kernel_split(args.sizes, args.runs, args.compare)
    if args.first_frame:
        from first_frame import first_frames

        return first_frames(args.sizes, args.runs, args.compare)
    if args.load_ext:
        return load_ext(args.runs, args.compare)
    if args.memory:
        return memory(trees=args.compare)
    if args.compare:
        return compare(args.compare, args.runs)
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
            displayed(shell, shell.run_cell_magic("gcypher", "", QUERY))

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
