"""Two moments diffed, and the overview as of a moment against the present's, on a history loaded through the loader
(``python bench/bench_diff.py [NODES] [ROUNDS]``; 100,000 nodes by default).

The history: NODES - 100 people (each a role change, so two node versions), 100 companies, and two employment
relationships per person (the first ended, the second open): NODES nodes, 2 x people relationship versions.
Interleaved rounds, medians:

- ``diff``: ``gestalt_nb.diff`` (what ``%gdiff`` runs) of two moments of one company's people (a bounded read), first
  (the history read, both moments' scratch graphs built) and again (both moments kept), against the same read of the
  present run twice; the read runs begun at the company (the far-end rewrite, ``cypher/anchor.py``; its diff checked
  against ``ANCHORED``, written so), and again as written (``rewrite_far_end`` off: every person read);
- the whole graph (``%gdiff`` without ``--query``: cut at the row limit, 1,000 rows);
- ``overview``: the overview of the present, of a moment (its scratch graph kept; the compact copy read again each round,
  as for the present) and the first overview of a moment (its scratch graph built), each as a ratio to the present's.
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
from gestalt_nb.grouped import compact
from gestalt_nb.magics.temporal import WHOLE_GRAPH
from gestalt_nb.temporal import visible

BEFORE, AFTER = "2021-06-01", "2023-06-01"
COMPANY = "MATCH (p:Person)-[r:WORKS_AT]->(c:Company {name: 'Company 7'}) RETURN p, r, c"
#: The same read begun at the company, as the far-end rewrite runs COMPANY: GestaltDB walks a pattern from its first
#: node, so COMPANY as written reads every person to find the company's.
ANCHORED = "MATCH (c:Company {name: 'Company 7'})<-[r:WORKS_AT]-(p:Person) RETURN p, r, c"


def build(people: int, companies: int) -> None:
    """The history through the loader, its three loads in one ``one_history_commit()`` block: one commit.

    Each load with ``valid_from`` is otherwise one commit, and GestaltDB's ``commit_versions`` looks every new
    version's id up in every earlier commit: three loads of a 10,000-node history took 702 s, 100,000 nodes would
    take days. In one commit the load grows with the history, not its square.
    """
    folder = tempfile.mkdtemp()
    gestalt_nb.create(f"{folder}/g", map_size="16GiB")
    ids = [f"p{n}" for n in range(people)]
    change = [f"202{1 + n % 3}-0{1 + n % 9}-01" for n in range(people)]
    frame = pd.DataFrame({"id": ids * 2, "name": [f"Person {n}" for n in range(people)] * 2,
                          "role": ["engineer"] * people + ["lead"] * people,
                          "from": ["2019-01-01"] * people + change, "to": change + [None] * people})
    ended = [f"202{2 + n % 2}-0{1 + n % 9}-01" for n in range(people)]
    jobs = pd.DataFrame({"job": [f"j{n}a" for n in range(people)] + [f"j{n}b" for n in range(people)], "person": ids * 2,
                         "company": [f"c{(n * 2) % companies}" for n in range(people)] + [f"c{(n * 3) % companies}" for n in range(people)],
                         "from": ["2020-01-01"] * people + ended, "to": ended + [None] * people})
    with gestalt_nb.one_history_commit():
        gestalt_nb.load_nodes(frame, id="id", label="Person", valid_from="from", valid_to="to")
        gestalt_nb.load_nodes(pd.DataFrame({"id": [f"c{n}" for n in range(companies)], "name": [f"Company {n}" for n in range(companies)],
                                            "from": [None] * companies}), id="id", label="Company", valid_from="from")
        gestalt_nb.load_edges(jobs, source="person", target="company", type="WORKS_AT", id="job", valid_from="from", valid_to="to")


def timed(call) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def forget_moments() -> None:
    visible._history.clear()
    while visible._moments:
        visible._drop(*visible._moments.popitem()[1])


def as_written(call):
    """``call()`` with the far-end rewrite off: COMPANY then reads every person to find the company's."""
    gestalt_nb.settings.rewrite_far_end = False
    try:
        return call()
    finally:
        gestalt_nb.settings.rewrite_far_end = True


def diffs(rounds: int) -> None:
    present, written, first, again, written_again, whole = [], [], [], [], [], []
    twice = lambda: [gestalt_nb.run(COMPANY, limit=100_000) for _ in "ab"]
    diff = lambda: gestalt_nb.diff(COMPANY, BEFORE, AFTER, limit=100_000)
    for _ in range(rounds):
        present.append(timed(twice))
        written.append(timed(lambda: as_written(twice)))
        forget_moments()
        first.append(timed(diff))
        again.append(timed(diff))
        written_again.append(timed(lambda: as_written(diff)))
        whole.append(timed(lambda: gestalt_nb.diff(WHOLE_GRAPH, BEFORE, AFTER)))
    result, base = diff(), statistics.median(present)
    assert gestalt_nb.diff(ANCHORED, BEFORE, AFTER, limit=100_000).counts() == result.counts() == as_written(diff).counts()
    assert "the pattern begins at (c:Company" in gestalt_nb.run(COMPANY, limit=100_000).rewrite
    print(f"the read of the present, twice: median {base:.2f} s begun at the company (the far-end rewrite); "
          f"{statistics.median(written):.2f} s as written (rewrite_far_end off)")
    print(f"diff of one company's people ({result.counts()}): first {statistics.median(first):.2f} s "
          f"= {statistics.median(first) / base:.1f}x, again {statistics.median(again):.2f} s = {statistics.median(again) / base:.2f}x; "
          f"as written, both moments kept: {statistics.median(written_again):.2f} s (medians of {rounds})")
    print(f"diff of the whole graph (cut at 1,000 rows), both moments kept: median {statistics.median(whole):.2f} s")


def overviews(rounds: int) -> None:
    present, kept, first = [], [], []
    for _ in range(rounds):
        compact._CACHE.clear()
        present.append(timed(lambda: gestalt_nb.overview()))
        compact._CACHE.clear()
        kept.append(timed(lambda: gestalt_nb.overview(as_of=AFTER)))
        forget_moments()
        compact._CACHE.clear()
        first.append(timed(lambda: gestalt_nb.overview(as_of=AFTER)))
    base = statistics.median(present)
    print(f"overview of the present: median {base:.2f} s; as of {AFTER}, its graph kept: {statistics.median(kept):.2f} s "
          f"= {statistics.median(kept) / base:.2f}x; as of {AFTER}, first (history read, its graph built): "
          f"{statistics.median(first):.2f} s = {statistics.median(first) / base:.2f}x (medians of {rounds})")


def main(nodes: int = 100_000, rounds: int = 3) -> None:
    started = time.perf_counter()
    build(nodes - 100, 100)
    print(f"history loaded: {nodes:,} nodes ({2 * (nodes - 100):,} node versions), {2 * (nodes - 100):,} relationship versions "
          f"in {time.perf_counter() - started:.1f} s")
    diffs(rounds)
    overviews(rounds)


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:3]))
