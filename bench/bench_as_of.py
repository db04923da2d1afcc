"""An as-of read against the same read of the present, on a history loaded through the loader (``python bench/bench_as_of.py``).

10k nodes (people and companies) and 20k employment relationships with intervals. Interleaved rounds, medians:
the first read of a moment (GestaltDB's history read and the moment's graph built) and a repeated read of it,
each as a ratio to the present's read. Also the engine's own ``FOR VALID_TIME AS OF`` Cypher on a 300-node history.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import gestalt_nb
from gestalt_nb.temporal import visible

READ = "MATCH (p:Person)-[r:WORKS_AT]->(c:Company {name: 'Company 7'}) RETURN p, r, c"


def build(people: int, companies: int) -> None:
    folder = tempfile.mkdtemp()
    gestalt_nb.create(f"{folder}/g", map_size="4GiB")
    frame = pd.DataFrame({"id": [f"p{n}" for n in range(people)], "name": [f"Person {n}" for n in range(people)],
                          "from": ["2019-01-01"] * people, "to": [None] * people})
    gestalt_nb.load_nodes(frame, id="id", label="Person", valid_from="from", valid_to="to")
    gestalt_nb.load_nodes(pd.DataFrame({"id": [f"c{n}" for n in range(companies)], "name": [f"Company {n}" for n in range(companies)]}),
                          id="id", label="Company")
    gestalt_nb.load_nodes(pd.DataFrame({"id": [f"c{n}" for n in range(companies)], "name": [f"Company {n}" for n in range(companies)],
                                        "from": [None] * companies}), id="id", label="Company", valid_from="from")
    jobs = pd.DataFrame({"job": [f"j{n}{half}" for n in range(people) for half in "ab"],
                         "person": [f"p{n}" for n in range(people) for _ in "ab"],
                         "company": [f"c{(n * (2 if half == 'a' else 3)) % companies}" for n in range(people) for half in "ab"],
                         "from": [start for _ in range(people) for start in ("2020-01-01", "2022-01-01")],
                         "to": [end for _ in range(people) for end in ("2022-01-01", None)]})
    gestalt_nb.load_edges(jobs, source="person", target="company", type="WORKS_AT", id="job", valid_from="from", valid_to="to")


def timed(call) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def main(nodes: int = 10_000, rounds: int = 5) -> None:
    started = time.perf_counter()
    build(nodes - 100, 100)
    print(f"history loaded: {nodes:,} nodes, {2 * (nodes - 100):,} relationship versions in {time.perf_counter() - started:.1f} s")
    present, first, again = [], [], []
    for number in range(rounds):
        present.append(timed(lambda: gestalt_nb.run(READ)))
        visible._history.clear()
        moment = f"2021-0{1 + number}-01"
        first.append(timed(lambda: gestalt_nb.run(READ, as_of=moment)))
        again.append(timed(lambda: gestalt_nb.run(READ, as_of=moment)))
    base = statistics.median(present)
    print(f"present read: median {base * 1000:.0f} ms over {rounds} interleaved rounds")
    print(f"as-of, first read of a moment: median {statistics.median(first):.2f} s = {statistics.median(first) / base:.0f}x the present")
    print(f"as-of, the same moment again: median {statistics.median(again) * 1000:.0f} ms = {statistics.median(again) / base:.2f}x the present")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
