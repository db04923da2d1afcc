"""Schema, explorer and retrieval-view timings on a 10,000-node / 30,000-edge LMDB graph.

Medians of several runs for: ``%gschema`` with default limits (refreshed each run, so the sample
is really taken), one explorer expansion of a node with ~10 neighbours (all types, both
directions, drawn), and a 2-hop retrieval view (retriever run + subgraph + view built).

    python bench/bench_explore.py [--runs 7]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_gcypher import median_seconds
from graphs import build
from IPython.core.interactiveshell import InteractiveShell

import gestalt_nb
from gestalt_nb.graph.explorer import Explorer
from gestalt_nb.render import render


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        graph = build(Path(tmp) / "g")
        shell = InteractiveShell.instance()
        shell.run_line_magic("load_ext", "gestalt_nb")
        connection = gestalt_nb.use(graph, alias="bench")
        db = graph.graph
        # A node with about ten neighbours over all types and both directions.
        degrees = {
            node: sum(db.count_typed_adjacency(node, kind, "any") for kind in ("KNOWS", "WORKS_WITH", "FOLLOWS"))
            for node in (f"p{i}" for i in range(200))
        }
        start = min(degrees, key=lambda node: abs(degrees[node] - 10))

        def schema_view():
            result = shell.run_line_magic("gschema", "--refresh")
            shell.display_formatter.format(result)

        def expansion():
            explorer = Explorer(connection, sample_size=100)
            explorer.start(start)
            explorer.expand(direction="both")
            render(explorer.subgraph).iframe()
            return explorer

        retriever = connection.retriever(
            seed_ids=(start,), hops=[{"edge_type": "KNOWS", "direction": "any"}, {"edge_type": "FOLLOWS", "direction": "out"}]
        )

        def retrieval_view():
            result = gestalt_nb.show_retrieval(retriever, "bench")
            shell.display_formatter.format(result)
            return result

        timings = {
            "%gschema (default limits, display)": median_seconds(schema_view, args.runs),
            f"explorer expansion ({degrees[start]} neighbours)": median_seconds(expansion, args.runs),
            "2-hop retrieval view": median_seconds(retrieval_view, args.runs),
        }
        print(f"graph: 10,000 nodes / 30,000 edges; median of {args.runs}")
        print(f"expansion added {len(expansion().subgraph.nodes) - 1} nodes; retrieval drew {retrieval_view().subgraph.summary()}")
        for name, seconds in timings.items():
            print(f"{name:>40}: {seconds * 1000:8.1f} ms")
        graph.close()


if __name__ == "__main__":
    main()
