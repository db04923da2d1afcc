"""Deterministic synthetic graphs for the benchmarks (LMDB, bulk-loaded in one transaction)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
from gestaltdb.graphdb import Edge, GraphDB, Node
from langchain_gestaltdb import GestaltDBGraph

TYPES = ("KNOWS", "WORKS_WITH", "FOLLOWS")


def build(path: Path, nodes: int = 10_000, edges: int = 30_000, seed: int = 7) -> GestaltDBGraph:
    """``nodes`` :Person nodes and ``edges`` typed relationships (three types, random endpoints)."""
    rng = random.Random(seed)
    db = GraphDB.create(path, backend="lmdb", backend_options={"map_size": 4 * 1024**3}, indexed_node_properties=["name"])
    with db.transaction() as tx:
        tx.put_nodes(
            [Node(f"p{i}", labels=["Person"], properties={"name": f"Person {i}", "age": 20 + i % 50, "score": (i % 97) / 97}) for i in range(nodes)]
        )
        tx.put_edges_bulk(
            [
                Edge(f"e{j}", f"p{rng.randrange(nodes)}", f"p{rng.randrange(nodes)}", properties={"type": TYPES[j % 3], "weight": j % 10})
                for j in range(edges)
            ],
            check_existing=False,
        )
    return GestaltDBGraph(db, owns_graph=True)


def planted_blocks(rng: np.random.Generator, nodes: int, blocks: int = 30) -> tuple[np.ndarray, np.ndarray]:
    """(sizes, first node) of ``blocks`` planted groups of unequal sizes (Pareto, at least 10 each) covering ``nodes``."""
    weights = rng.pareto(1.5, blocks) + 1
    sizes = np.maximum((weights / weights.sum() * nodes).astype(int), 10)
    sizes[0] += nodes - sizes.sum()
    return sizes, np.concatenate([[0], np.cumsum(sizes)[:-1]])
