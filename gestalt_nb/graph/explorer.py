"""Walk out from a node one typed hop at a time, with undo, a node budget and the Cypher to match.

One rule for expanding, wherever it starts (``Explorer.expand()``, the explorer's Expand button, a
double-click on any canvas): relationships are followed both ways unless a direction is given.
Ids a person or their code reads from the explorer (``find``, ``node_details``, ``last_expansion``,
``last_sampling``, the Cypher) are as loaded (``0``, not the stored ``__lc_int__:0``), and so are
the keys of the ``Subgraph`` it keeps, like every drawing's; its tables and networkx graph too.

Expansion reads GestaltDB's typed adjacency (``sample_neighbors``, seeded so a session is
reproducible), never an untyped ``-[r]->`` pattern, which scans every edge per node. The Cypher
shown for what is on screen names the exact relationships drawn (``WHERE id(r) IN [...]``).
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import GestaltError
from . import catalog
from .ids import as_loaded, resolve
from .subgraph import Subgraph, edge_from_json, node_from_json
from .values import display_properties

if TYPE_CHECKING:  # only for annotations: capabilities never import the session at run time
    from ..session import Connection

DIRECTIONS = {"out": "out", "in": "in", "both": "any"}
_SAMPLED = "Drew"


def _pattern(direction: str, kind: str) -> str:
    return {"out": f"-[r:{kind}]->", "in": f"<-[r:{kind}]-", "both": f"-[r:{kind}]-"}[direction]


@dataclass
class _State:
    subgraph: Subgraph
    cypher: list[str] = field(default_factory=list)
    #: Per (node, type, direction): neighbours the expansions so far left out.
    left: dict[tuple[str, str, str], int] = field(default_factory=dict)


class Explorer:
    """The exploration state of one connection; widgets and tests drive the same methods."""

    def __init__(self, connection: Connection, *, node_budget: int = 200, sample_size: int | None = 10, seed: int = 0) -> None:
        if node_budget < 1 or (sample_size is not None and sample_size < 1):
            raise GestaltError("node_budget and sample_size must be positive whole numbers (sample_size=None: no sampling).")
        self.connection = connection
        self.node_budget = node_budget
        #: Neighbours drawn per node and type on each expansion; None draws them all (within the budget).
        self.sample_size = sample_size
        self.rng = random.Random(seed)
        self.state = _State(Subgraph(title="explorer"))
        self.history: list[_State] = []
        #: The last expansion, per (node, type): how many neighbours it drew of how many there are.
        self.last_sampling: list[dict[str, Any]] = []
        self._last_expand: dict[str, Any] | None = None

    @property
    def max_sample_size(self) -> int:
        """The largest per-hop sample worth offering: the node budget (a person may want every neighbour)."""
        return self.node_budget

    @property
    def last_expansion(self) -> dict[str, Any]:
        """The nodes, direction and types of the last expansion (what ``expand_all`` repeats)."""
        return dict(self._last_expand or {})

    @property
    def left_out(self) -> int:
        """Neighbours the last expansion's sample left out (0 when it drew them all)."""
        return sum(item["total"] - item["drawn"] for item in self.last_sampling)

    @property
    def subgraph(self) -> Subgraph:
        return self.state.subgraph

    def relationship_types(self, node_id: str | int | None = None) -> list[str]:
        """Every relationship type in the graph (its type index, not the schema sample); with ``node_id``, those that node has."""
        db = self.connection.db
        if node_id is None:
            return catalog.relationship_types(db, self.connection.graph)
        return list(catalog.node_types(db, resolve(db, node_id), self.connection.graph))

    # -- finding a start ------------------------------------------------------
    def find(self, label: str, prop: str, value: Any, *, limit: int = 25) -> list[str]:
        """Ids (as loaded: ``0`` for an integer id) of ``label`` nodes whose indexed ``prop`` equals ``value`` (at most ``limit``)."""
        db = self.connection.db
        if prop not in db.indexed_node_properties:
            indexed = ", ".join(sorted(db.indexed_node_properties)) or "none"
            raise GestaltError(
                f"'{prop}' has no property index, so it cannot be looked up (indexed: {indexed}). "
                f"Create one with connection.db.create_node_property_index('{prop}'), or start from a node id."
            )
        found = []
        for key in db.iter_node_ids_by_label_property(label, prop, value):
            found.append(as_loaded(db.key_to_string(key)))
            if len(found) >= limit:
                break
        return found

    def start(self, node_id: str) -> None:
        """Clear the canvas (undoable) and put one node on it."""
        given, node_id = node_id, resolve(self.connection.db, node_id)
        nodes = self.connection.nodes([node_id])
        if not nodes:
            raise GestaltError(f"No node with id {given!r}. Find one by label and an indexed property, or run a query.")
        self._remember()
        subgraph = Subgraph(title="explorer")
        subgraph.add_node(node_from_json(nodes[0]), highlight=True)
        self.state = _State(subgraph, [f"MATCH (n {{id: {_literal(node_id)}}}) RETURN n, null AS r, null AS m"])

    # -- walking --------------------------------------------------------------
    def expand(
        self,
        node_ids: list[str] | None = None,
        *,
        direction: str = "both",
        types: list[str] | None = None,
        sample_size: int | None = None,
        sample_all: bool = False,
    ) -> int:
        """Add up to ``sample_size`` neighbours per node and type, both directions by default (as a double-click
        on the canvas does); returns how many nodes were added.

        ``direction`` is ``"both"`` by default (like a double-click on the canvas), or ``"out"`` / ``"in"``.

        ``node_ids`` defaults to the highlighted (start) nodes; ``types`` to every relationship type
        each node has (read from its own typed adjacency, not from the schema sample); ``sample_size``
        to the explorer's. ``sample_all=True`` (or an explorer made with ``sample_size=None``) draws
        every neighbour. Stops adding nodes at the node budget. Whenever a sample or the budget
        leaves neighbours out, the subgraph's notes say how many were drawn of how many,
        ``truncated`` is set, and ``expand_all()`` draws the rest within the budget.
        """
        node_ids = self._expandable(node_ids, direction)
        size = None if sample_all else (sample_size or self.sample_size)
        self._last_expand = {"node_ids": [as_loaded(node_id) for node_id in node_ids], "direction": direction, "types": types}
        step = _Step(self, direction, size)
        for node_id in node_ids:
            for kind in list(types) if types else self.relationship_types(node_id):
                step.read(node_id, kind)
        self._remember()
        subgraph = copy.deepcopy(self.subgraph)
        for raw in self.connection.nodes(list(step.new_nodes)):
            subgraph.add_node(node_from_json(raw))
        for raw in self.connection.edges(list(step.edge_ids)):
            subgraph.add_edge(edge_from_json(raw))
        self.last_sampling = step.sampling
        left = dict(self.state.left)
        for item in step.sampling:  # what each (node, type, direction) still leaves out, over all expansions
            left[resolve(self.connection.db, item["node"]), item["type"], direction] = item["total"] - item["drawn"]
        subgraph.truncated = any(left.values())
        subgraph.notes = [note for note in subgraph.notes if not note.startswith(_SAMPLED)]
        if self.left_out:
            subgraph.notes.append(step.note(self.node_budget))
        self.state = _State(subgraph, [*self.state.cypher, *step.branches], left)
        return len(step.new_nodes)

    def _expandable(self, node_ids: list[str] | None, direction: str) -> list[str]:
        """The stored ids to expand (default: the highlighted nodes), each checked to be drawn."""
        if direction not in DIRECTIONS:
            raise GestaltError(f"direction must be one of {', '.join(DIRECTIONS)}, not {direction!r}.")
        if not self.subgraph.nodes:
            raise GestaltError("Nothing to expand yet: start from a node first.")
        db = self.connection.db
        wanted = list(node_ids) if node_ids else sorted(self.subgraph.highlight_nodes, key=str)
        resolved = [resolve(db, node_id) for node_id in wanted]
        unknown = [repr(as_loaded(node_id)) for node_id in resolved if as_loaded(node_id) not in self.subgraph.nodes]
        if unknown:
            raise GestaltError(f"Not on the canvas: {', '.join(unknown)}. Expand a node that is drawn.")
        return resolved

    def expand_all(self, node_ids: list[str] | None = None, *, direction: str | None = None, types: list[str] | None = None) -> int:
        """Draw every neighbour (no sampling) within the node budget; by default of the last expansion.

        This is what an "expand all" control calls after an expansion whose notes say neighbours were left out.
        """
        last = self._last_expand or {}
        return self.expand(
            node_ids if node_ids is not None else last.get("node_ids"),
            direction=direction or last.get("direction", "both"),
            types=types if types is not None else last.get("types"),
            sample_all=True,
        )

    def undo(self) -> bool:
        """Go back one step; False when there is nothing to undo."""
        if not self.history:
            return False
        self.state = self.history.pop()
        return True

    def reset(self) -> None:
        self._remember()
        self.state = _State(Subgraph(title="explorer"))

    def _remember(self) -> None:
        self.history.append(self.state)

    def cypher(self) -> str:
        """A query that returns exactly what is drawn (paste it into a %%gcypher cell)."""
        return "\nUNION ALL\n".join(self.state.cypher)

    def node_details(self, node_id: str) -> dict[str, Any]:
        """A drawn node's id (as loaded), labels and properties, temporal values as ISO text."""
        node = self.subgraph.nodes[as_loaded(resolve(self.connection.db, node_id))]
        return {"id": as_loaded(node.id), "labels": list(node.labels), **display_properties(node.properties)}

    def adopt(self, subgraph: Subgraph) -> None:
        """Continue from a drawing someone else made (a query result's canvas): undoable like a step."""
        self._remember()
        self.state = _State(copy.deepcopy(subgraph), list(self.state.cypher))


class _Step:
    """One expansion's reads: per (node, type) a sample (or all) of the typed adjacency, within the node budget."""

    def __init__(self, explorer: Explorer, direction: str, size: int | None) -> None:
        self.explorer, self.direction, self.size = explorer, direction, size
        self.db = explorer.connection.db
        self.edge_ids: dict[str, None] = {}
        self.new_nodes: dict[str, None] = {}
        self.branches: list[str] = []
        self.sampling: list[dict[str, Any]] = []
        self.budget_hit = False

    def read(self, node_id: str, kind: str) -> None:
        db, way, size, drawn = self.db, DIRECTIONS[self.direction], self.size, self.explorer.subgraph.nodes
        total = db.count_typed_adjacency(node_id, kind, way)
        if not total:
            return
        if size is None or total <= size:
            records = db.iter_typed_adjacency(node_id, kind, way)
        else:
            records = db.sample_neighbors(node_id, kind, direction=way, sample_size=size, rng=self.explorer.rng)
        chosen = []
        for record in records:
            neighbor = db.key_to_string(record["neighbor_id"])
            if as_loaded(neighbor) not in drawn and neighbor not in self.new_nodes:
                if len(drawn) + len(self.new_nodes) >= self.explorer.node_budget:
                    self.budget_hit = True
                    if size is None:
                        break  # drawing all: stop reading a huge adjacency at the budget
                    continue
                self.new_nodes[neighbor] = None
            chosen.append(db.key_to_string(record["edge_id"]))
        self.edge_ids.update(dict.fromkeys(chosen))
        self.sampling.append({"node": as_loaded(node_id), "type": kind, "drawn": len(chosen), "total": total})
        if chosen:
            self.branches.append(
                f"MATCH (n {{id: {_literal(node_id)}}}){_pattern(self.direction, kind)}(m) "
                f"WHERE id(r) IN {json.dumps(sorted(set(chosen)))} RETURN n, r, m"
            )

    def note(self, node_budget: int) -> str:
        drawn, total = sum(item["drawn"] for item in self.sampling), sum(item["total"] for item in self.sampling)
        how = "the node budget" if self.budget_hit else f"a sample of {self.size} per node and type"
        return (
            f"{_SAMPLED} {drawn:,} of {total:,} neighbours ({how}). "
            + ("Expand all (explorer.expand_all()) draws the rest within the node budget." if not self.budget_hit or self.size is not None else "")
            + (f" Node budget reached ({node_budget}); raise it to go further." if self.budget_hit else "")
        )


def _literal(node_id: str) -> str:
    """A node id as a Cypher literal, as loaded: ``0`` for a stored ``__lc_int__:0`` (gestalt-nb rewrites it back)."""
    value = as_loaded(node_id)
    return str(value) if isinstance(value, int) else json.dumps(node_id)
