"""The overview as of a moment against the present's, on a big history loaded through the loader
(``python bench/bench_overview_as_of.py [NODES] [ROUNDS]``; 1,000,000 nodes by default).

The history: NODES people in 30 planted groups of unequal sizes and one relationship per person (most inside its
group, a fifth anywhere), each node and relationship one version valid from a day between 2019 and 2023 (a
relationship from the later of its ends' days), written in one ``one_history_commit()`` block: one commit.
One version per element keeps the history at 2 x NODES versions — GestaltDB's ``commit_versions`` held 14 GB and had
not finished after 10 minutes on 4M (stop 52). As of 2022-01-01 about 60% of the graph is valid.

Interleaved rounds, medians: the overview of the present (its compact copy read again each round) and as of
2022-01-01 with the moment's scratch graph kept (its copy read again too); once, after the rounds, the first
overview of the moment (GestaltDB's history decoded, the scratch graph written). Peak resident memory is printed.
"""

from __future__ import annotations

import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from graphs import planted_blocks

import gestalt_nb
from gestalt_nb.grouped import compact
from gestalt_nb.temporal import visible

MOMENT = "2022-01-01"


def build(nodes: int, seed: int = 5) -> None:
    rng = np.random.default_rng(seed)
    sizes, starts = planted_blocks(rng, nodes)
    block = np.repeat(np.arange(30), sizes)
    inside = starts[block] + (rng.random(nodes) * sizes[block]).astype(int)
    target = np.where(rng.random(nodes) < 0.2, rng.integers(0, nodes, nodes), inside)
    days = rng.integers(0, 5 * 365, nodes)
    day = pd.Timestamp("2019-01-01") + pd.to_timedelta(days, unit="D")
    ids = np.char.add("n", np.arange(nodes).astype(str))
    people = pd.DataFrame({"id": ids, "name": np.char.add("Person ", np.arange(nodes).astype(str)), "from": day})
    links = pd.DataFrame({"id": np.char.add("e", np.arange(nodes).astype(str)), "source": ids, "target": ids[target],
                          "from": pd.Timestamp("2019-01-01") + pd.to_timedelta(np.maximum(days, days[target]), unit="D")})
    gestalt_nb.create(f"{tempfile.mkdtemp()}/g", map_size="64GiB")
    with gestalt_nb.one_history_commit():
        gestalt_nb.load_nodes(people, id="id", label="Person", valid_from="from")
        gestalt_nb.load_edges(links, source="source", target="target", type="KNOWS", id="id", valid_from="from")


def timed(call) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def main(nodes: int = 1_000_000, rounds: int = 3) -> None:
    gestalt_nb.settings.timeout = 3600  # the first read of a big history must not be stopped
    started = time.perf_counter()
    build(nodes)
    print(f"history loaded: {nodes:,} nodes, {nodes:,} relationships, {2 * nodes:,} versions in one commit in "
          f"{time.perf_counter() - started:.0f} s (peak resident {peak_gb():.1f} GB)", flush=True)
    started = time.perf_counter()
    first = gestalt_nb.overview(as_of=MOMENT)
    print(f"first overview as of {MOMENT} (history decoded, scratch graph written): {time.perf_counter() - started:.1f} s, "
          f"{first.group_count} groups (peak resident {peak_gb():.1f} GB)", flush=True)
    present, kept = [], []
    for _ in range(rounds):
        compact._CACHE.clear()
        present.append(timed(lambda: gestalt_nb.overview()))
        compact._CACHE.clear()
        kept.append(timed(lambda: gestalt_nb.overview(as_of=MOMENT)))
    base = statistics.median(present)
    print(f"overview of the present: median {base:.2f} s; as of {MOMENT}, its graph kept: {statistics.median(kept):.2f} s "
          f"= {statistics.median(kept) / base:.2f}x (medians of {rounds}; history versions decoded: {len(visible.history(gestalt_nb.connection().db)):,})")


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:3]))
