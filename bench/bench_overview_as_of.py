"""The overview as of a moment against the present's, on a big history loaded through the loader
(``python bench/bench_overview_as_of.py [NODES] [ROUNDS] [PATH] [MOMENT]``; 1,000,000 nodes by default; PATH: a
history it built before, read again without loading it; MOMENT: 2022-01-01 by default).

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
import subprocess
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


def build(nodes: int, path: str, seed: int = 5) -> None:
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
    gestalt_nb.create(path, map_size="64GiB")
    with gestalt_nb.one_history_commit():
        gestalt_nb.load_nodes(people, id="id", label="Person", valid_from="from")
        gestalt_nb.load_edges(links, source="source", target="target", type="KNOWS", id="id", valid_from="from")


def timed(call) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def built(nodes: int) -> str:
    """The history, loaded in a child process (its memory, 19.5 GB at its peak for 1M, is not this process's)."""
    path, started = f"{tempfile.mkdtemp()}/g", time.perf_counter()
    code = f"import bench_overview_as_of as b; b.build({nodes}, {path!r}); print(f'{{b.peak_gb():.1f}}')"
    peak = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).parent, check=True, capture_output=True, text=True)
    print(f"history loaded: {nodes:,} nodes, {nodes:,} relationships, {2 * nodes:,} versions in one commit in "
          f"{time.perf_counter() - started:.0f} s (peak resident {peak.stdout.split()[-1]} GB) at {path}", flush=True)
    return path


def main(nodes: int = 1_000_000, rounds: int = 3, path: str | None = None, moment: str = MOMENT) -> None:
    """``path``: a history this script built before (printed when it was), read again without loading it."""
    gestalt_nb.settings.timeout = 3600  # the first read of a big history must not be stopped
    gestalt_nb.settings.memory_limit = "12GiB"  # nor by the default 2 GiB: the moment's graph at 1M needs more
    gestalt_nb.connect(path or built(nodes), map_size="64GiB")
    started = time.perf_counter()
    first = gestalt_nb.overview(as_of=moment)
    print(f"first overview as of {moment} (history decoded, scratch graph written): {time.perf_counter() - started:.1f} s, "
          f"{first.group_count} groups (peak resident {peak_gb():.1f} GB)", flush=True)
    present, kept = [], []
    for _ in range(rounds):
        compact._CACHE.clear()
        present.append(timed(lambda: gestalt_nb.overview()))
        compact._CACHE.clear()
        kept.append(timed(lambda: gestalt_nb.overview(as_of=moment)))
    for when, grouped in (("the present", gestalt_nb.overview()), (moment, gestalt_nb.overview(as_of=moment))):
        largest = ", ".join(f"{name} {size:,}" for name, size in zip(grouped.groups["name"][:3], grouped.groups["size"][:3]))
        print(f"{when}: {grouped.compact.node_count:,} nodes, {grouped.compact.edge_count:,} relationships, "
              f"{grouped.group_count} groups (largest: {largest})", flush=True)
    base = statistics.median(present)
    print(f"overview of the present: median {base:.2f} s; as of {moment}, its graph kept: {statistics.median(kept):.2f} s "
          f"= {statistics.median(kept) / base:.2f}x (medians of {rounds}; history versions decoded: {len(visible.history(gestalt_nb.connection().db)):,})")


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:3]), *sys.argv[3:5])
