"""The drawing as Cypher: a read-only query whose result is exactly the nodes and relationships drawn.

Drawn means on the canvas now — after double-click expansions, ``add``, ``remove`` — less what the
page last reported hidden. Every relationship pattern is typed (an untyped one reads every edge
per node, see DESIGN.md). Ids are written in their stored form (an integer id ``0`` as
``"__lc_int__:0"``, see :mod:`gestalt_nb.ids`), so the query means the same wherever it runs.

GestaltDB's read-only check accepts at most 10,000 characters. While the ids fit, each branch
starts from one node looked up by id (``MATCH (n {id: ...})-[r:TYPE]->(m) WHERE id(r) IN [...]``).
A larger drawing gets a short query over parameters ``$nodes`` and ``$edges`` (kept on the returned
:class:`DrawingQuery`): it is correct at any size, but finds its start nodes by scanning every node.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import Any

from ..subgraph import Subgraph

#: The longest query GestaltDB's read-only path accepts.
QUERY_CHARS = 10_000
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NODE = "RETURN n, null AS r, null AS m"


def _type(name: str) -> str:
    return name if _NAME.match(name) else "`" + name.replace("`", "``") + "`"


def _pattern(kind: str) -> str:
    return f"-[r:{_type(kind)}]->" if kind else "-[r]->"


class DrawingQuery(str):
    """The query text, plus what it needs to run: ``params`` (empty when ids are written inline) and
    ``rows`` (how many rows the result has: pass ``limit=rows`` when that is above the row limit).

    ``cell()`` is the ``%%gcypher`` cell to paste, options included.
    """

    params: dict[str, Any]
    rows: int

    def __new__(cls, text: str, params: dict[str, Any], rows: int) -> DrawingQuery:
        query = super().__new__(cls, text)
        query.params, query.rows = params, rows
        return query

    def cell(self) -> str:
        options = [f"--limit {self.rows}"] if self.rows > 1000 else []
        if self.params:
            options.append("-P " + json.dumps(self.params, ensure_ascii=False))
        return "%%gcypher" + "".join(" " + option for option in options) + "\n" + str(self)


def drawn(subgraph: Subgraph, hidden: set[str]) -> tuple[list[str], list[Any]]:
    """The drawn node ids and relationships, hidden nodes (and their relationships) left out."""
    nodes = [node_id for node_id in subgraph.nodes if node_id not in hidden]
    shown = set(nodes)
    edges = [edge for edge in subgraph.edges.values() if edge.id not in hidden and edge.source in shown and edge.target in shown]
    return nodes, edges


def drawing_query(subgraph: Subgraph, hidden: set[str] | None = None) -> DrawingQuery:
    """The query returning exactly what is drawn (see the module's docstring)."""
    nodes, edges = drawn(subgraph, hidden or set())
    ends = {end for edge in edges for end in (edge.source, edge.target)}
    alone = [node_id for node_id in nodes if node_id not in ends]  # the rest arrive with their relationships
    rows = len(alone) + len(edges)
    by_start: dict[tuple[str, str], list[str]] = defaultdict(list)
    for edge in edges:
        by_start[edge.source, edge.type].append(edge.id)
    branches = [f"MATCH (n {{id: {json.dumps(node_id)}}}) {_NODE}" for node_id in alone]
    branches += [
        f"MATCH (n {{id: {json.dumps(source)}}}){_pattern(kind)}(m) WHERE id(r) IN {json.dumps(ids)} RETURN n, r, m"
        for (source, kind), ids in by_start.items()
    ]
    text = "\nUNION ALL\n".join(branches)
    if branches and len(text) <= QUERY_CHARS:
        return DrawingQuery(text, {}, rows)
    branches = [f"MATCH (n) WHERE id(n) IN $nodes {_NODE}"] if alone or not edges else []
    branches += [f"MATCH (n){_pattern(kind)}(m) WHERE id(r) IN $edges RETURN n, r, m" for kind in sorted({edge.type for edge in edges})]
    return DrawingQuery("\nUNION ALL\n".join(branches), {"nodes": alone, "edges": [edge.id for edge in edges]}, rows)
