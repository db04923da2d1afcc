"""The drawing as Cypher: a read-only query whose result is exactly the nodes and relationships drawn.

Drawn means on the canvas now — after double-click expansions, ``add``, ``remove`` — less what the
page last reported hidden. Every relationship pattern is typed (an untyped one reads every edge
per node, see ARCHITECTURE.md). Ids are written in their stored form (an integer id ``0`` as
``"__lc_int__:0"``, see :mod:`gestalt_nb.ids`), so the query means the same wherever it runs.

Each branch starts from one node looked up by id and reads its drawn relationships by typed
adjacency (``MATCH (n {id: "alice"})-[r:KNOWS|WORKS_FOR]-(m) WHERE id(r) IN [...]``); the start
nodes are chosen greedily to cover the relationships, so an exploration needs few. GestaltDB's
read-only check accepts at most 10,000 characters: when the ids written inline do not fit, the same
branches take them as parameters (``$n0``, ``$r0`` …, kept on the returned :class:`DrawingQuery`);
when even that does not fit (hundreds of start nodes) the query reads each type over all nodes
(``$nodes`` / ``$edges``) — right at any size, but a scan of the whole graph (~27 s at 10k/30k).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import Any

from ..graph.ids import stored
from ..graph.subgraph import Subgraph

#: The longest query GestaltDB's read-only path accepts.
QUERY_CHARS = 10_000
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NODE = "RETURN n, null AS r, null AS m"


def _type(name: str) -> str:
    return name if _NAME.match(name) else "`" + name.replace("`", "``") + "`"


def _pattern(kinds: list[str]) -> str:
    typed = [kind for kind in kinds if kind]
    return f"-[r:{'|'.join(_type(kind) for kind in typed)}]-" if len(typed) == len(kinds) else "-[r]-"


def cover(nodes: list[str], edges: list[Any]) -> dict[str, list[Any]]:
    """Start nodes and the relationships read from each: greedily the node touching most unread ones,
    so an exploration (stars around expanded nodes) needs few starts."""
    touching: dict[str, set[int]] = defaultdict(set)
    for number, edge in enumerate(edges):
        touching[edge.source].add(number)
        touching[edge.target].add(number)
    left, starts = set(range(len(edges))), {}
    order = {node_id: number for number, node_id in enumerate(nodes)}
    while left:
        best = max(touching, key=lambda node_id: (len(touching[node_id] & left), -order.get(node_id, 0)))
        mine = sorted(touching[best] & left)
        starts[best] = [edges[number] for number in mine]
        left -= set(mine)
        del touching[best]
    return starts


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


def _branches(alone: list[str], starts: dict[str, list[Any]], literal: bool) -> tuple[list[str], dict[str, Any]]:
    """One branch per start node: ids written inline (``literal``) or as parameters ``$n0``, ``$r0`` …"""
    params: dict[str, Any] = {}

    def value(name: str, item: Any) -> str:
        if literal:
            return json.dumps(item, ensure_ascii=False)  # astral characters as themselves: \ud83d-style escapes are not Cypher
        params[name] = item
        return "$" + name

    branches = [f"MATCH (n {{id: {value(f'n{k}', stored(node_id))}}}) {_NODE}" for k, node_id in enumerate(alone)]
    for k, (node_id, edges) in enumerate(starts.items(), start=len(alone)):
        kinds = sorted({edge.type for edge in edges})
        branches.append(f"MATCH (n {{id: {value(f'n{k}', stored(node_id))}}}){_pattern(kinds)}(m) "
                        f"WHERE id(r) IN {value(f'r{k}', [edge.id for edge in edges])} RETURN n, r, m")
    return branches, params


def drawing_query(subgraph: Subgraph, hidden: set[str] | None = None) -> DrawingQuery:
    """The query returning exactly what is drawn (see the module's docstring)."""
    nodes, edges = drawn(subgraph, hidden or set())
    ends = {end for edge in edges for end in (edge.source, edge.target)}
    alone = [node_id for node_id in nodes if node_id not in ends]  # the rest arrive with their relationships
    rows = len(alone) + len(edges)
    starts = cover(nodes, edges)
    for literal in (True, False):
        branches, params = _branches(alone, starts, literal)
        text = "\nUNION ALL\n".join(branches)
        if branches and len(text) <= QUERY_CHARS:
            return DrawingQuery(text, params, rows)
    # too many start nodes even for parameters: one branch per type over all nodes (a scan)
    branches = [f"MATCH (n) WHERE id(n) IN $nodes {_NODE}"] if alone or not edges else []
    branches += [f"MATCH (n){_pattern([kind])}>(m) WHERE id(r) IN $edges RETURN n, r, m" for kind in sorted({edge.type for edge in edges})]
    return DrawingQuery("\nUNION ALL\n".join(branches), {"nodes": [stored(node_id) for node_id in alone], "edges": [edge.id for edge in edges]}, rows)
