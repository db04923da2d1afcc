"""What the name index costs the write path (issue 21, finding 6): a one-node Cypher write that
returns its node, and a 10,000-row load_nodes, with and without ``__name_lc``; interleaved, medians."""

from __future__ import annotations

import statistics
import sys
import tempfile
import time

import pandas as pd

import gestalt_nb
from gestalt_nb.session import REGISTRY


def without_index(path: str):
    """A database made without gestalt-nb (so without the name index), borrowed."""
    from gestaltdb.graphdb import GraphDB
    from langchain_gestaltdb import GestaltDBGraph

    db = GraphDB.create(path, backend="lmdb", serializer="json", backend_options={"map_size": 1 << 30})
    return gestalt_nb.use(GestaltDBGraph(db, owns_graph=True), alias="plain")


def main(rounds: int = 7) -> None:
    root = tempfile.mkdtemp()
    keyed = gestalt_nb.create(f"{root}/keyed", alias="keyed", map_size="1GiB")
    plain = without_index(f"{root}/plain")
    assert "__name_lc" in keyed.db.indexed_node_properties and "__name_lc" not in plain.db.indexed_node_properties
    times: dict[tuple[str, str], list[float]] = {}
    for round_ in range(rounds):
        for alias in ("keyed", "plain") if round_ % 2 == 0 else ("plain", "keyed"):
            started = time.perf_counter()
            gestalt_nb.run(f"CREATE (n:Thing {{id: 'c{round_}', name: 'Created {round_}'}}) RETURN n", alias=alias, write=True)
            times.setdefault(("cypher CREATE 1 node", alias), []).append(time.perf_counter() - started)
            frame = pd.DataFrame({"id": [f"r{round_}-{i}" for i in range(10_000)], "name": [f"Name {i}" for i in range(10_000)]})
            started = time.perf_counter()
            gestalt_nb.load_nodes(frame, id="id", label="Row", alias=alias)
            times.setdefault(("load_nodes 10,000 rows", alias), []).append(time.perf_counter() - started)
    for what in ("cypher CREATE 1 node", "load_nodes 10,000 rows"):
        k, p = statistics.median(times[(what, "keyed")]), statistics.median(times[(what, "plain")])
        print(f"{what}: with index {k * 1000:.1f} ms, without {p * 1000:.1f} ms, ratio {k / p:.2f}x")
    REGISTRY.close_all()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
