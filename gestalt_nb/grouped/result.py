"""``OverviewResult``: a graph seen whole, as groups (super-nodes) and the relationships between them.

Everything is computed from the compact copy (``compact.py``) and the grouping (``grouping.py``)
with numpy, once: ``groups``, ``links``, ``membership`` and the drawn ``subgraph`` of super-nodes.
``drill_subgraph(group)`` is a group's members (highest degree first, a bounded slice, the rest one
"N more" node) with their relationships to each other, read from the database, and one
super-edge per neighbouring group. Super-nodes are ours: their ids cannot be a node's id, and they
are marked in ``Subgraph.groups``, never in a person's own data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from ..checks import checked_methods, whole
from ..display import Displayable
from ..errors import GestaltError
from ..graph.ids import as_loaded, stored
from ..graph.subgraph import Edge, Node, Subgraph, edge_from_json, node_from_json
from ..options import Size
from .colours import colour_slots
from .compact import Compact
from .grouping import STRONGEST, Grouping, dense, own_group
from .naming import Naming, name_groups

if TYPE_CHECKING:
    from ..session import Connection

TOP_MEMBERS = 10


def _mix(counts: np.ndarray, names: list[str], total: int, most: int = 4) -> str:
    """``"Person 80%, Company 20%"``: the biggest shares of ``counts`` (one row), by name."""
    order = [int(i) for i in np.argsort(-counts, kind="stable")[:most] if counts[i] > 0]
    parts = [f"{names[i]} {100 * counts[i] / max(total, 1):.0f}%" for i in order]
    rest = int((counts > 0).sum()) - len(order)
    return ", ".join(parts + ([f"{rest} more"] if rest > 0 else []))


def highest_degree(membership: np.ndarray, degree: np.ndarray, count: int, top: int = TOP_MEMBERS) -> dict[int, list[int]]:
    """Each group's ``top`` highest-degree members (ties: in node order; ``membership`` -1: in no group). Only the
    candidates are sorted: the nodes whose degree reaches their group's ``top``-th highest, found from a histogram of
    group and degree (0.015 s against 0.06 s for sorting every node, at 1M nodes)."""
    if count == 0:
        return {}
    ceiling = max(min(1023, 2**22 // count - 1), 0)  # a degree above it counts as it: more candidates, never fewer
    inside = membership >= 0
    clipped = np.minimum(degree, ceiling)
    histogram = np.bincount(membership[inside] * (ceiling + 1) + clipped[inside], minlength=count * (ceiling + 1))
    at_least = np.cumsum(histogram[: count * (ceiling + 1)].reshape(count, ceiling + 1)[:, ::-1], axis=1)[:, ::-1]
    threshold = np.maximum((at_least >= top).sum(axis=1) - 1, 0)  # [g]: its top-th highest degree (0: fewer members)
    candidates = np.flatnonzero(inside & (clipped >= threshold[np.maximum(membership, 0)]))
    order = candidates[np.lexsort((-degree[candidates], membership[candidates]))]
    groups = membership[order]
    starts = np.searchsorted(groups, np.arange(count))
    return {g: [int(n) for n in order[start:start + top] if membership[n] == g] for g, start in enumerate(starts)}


@checked_methods
@dataclass(eq=False)
class OverviewResult(Displayable):
    """The whole graph (or the part with the given labels and types) in groups; displays as a drawing of them."""

    compact: Compact
    grouping: Grouping
    by: str
    connection: Connection | None
    notes: list[str] = field(default_factory=list)
    elapsed: float = 0.0
    reused: bool = False
    view_options: dict[str, Any] = field(default_factory=lambda: {"size": Size("nodes", area=True), "caption": "caption"})
    #: Where this level is: the captions of the groups opened to reach it (empty at the top).
    trail: tuple[str, ...] = ()
    #: Its super-nodes' id prefix before making it unique (a level inside group 3 of the top: "group:3/").
    base_prefix: str = "group:"
    #: The moment it shows ("as of 2023-01-01T00:00:00Z"; empty: the present), from ``overview(as_of=)``.
    moment: str = ""
    #: With ``overview(since=)``: per group, its members ``before`` (at since), ``after`` (at the moment), ``added``, ``removed``.
    growth: dict[str, np.ndarray] | None = None

    # -- what is in each group ----------------------------------------------------------
    @property
    def membership_array(self) -> np.ndarray:
        return self.grouping.membership

    @property
    def group_count(self) -> int:
        return len(self.grouping.names)

    @cached_property
    def prefix(self) -> str:
        """The super-nodes' id prefix, made longer until no node id starts with it."""
        prefix = self.base_prefix
        while self.compact.any_key_starts(prefix.encode("utf-8")):
            prefix = "~" + prefix
        return prefix

    def node_id(self, group: int) -> str:
        return f"{self.prefix}{group}"

    @cached_property
    def _label_counts(self) -> np.ndarray:
        count = self.group_count
        table = np.zeros((count, len(self.compact.labels)), dtype=np.int64)
        for column, numbers in enumerate(self.compact.label_members):
            groups = self.membership_array[numbers[numbers >= 0]]
            table[:, column] = np.bincount(groups[groups >= 0], minlength=count)[:count]
        return table

    def _ends(self) -> tuple[np.ndarray, np.ndarray]:
        """Each relationship's source group and target group (not kept: 24 MB at 3M relationships)."""
        return self.membership_array[self.compact.src], self.membership_array[self.compact.dst]

    @cached_property
    def _type_counts(self) -> np.ndarray:
        """Relationships touching each group, by type (a relationship inside a group counts once)."""
        source, target = self._ends()
        return self._count_types(source, target, source != target)

    def _count_types(self, source: np.ndarray, target: np.ndarray, apart: np.ndarray) -> np.ndarray:
        count, kinds = self.group_count, max(len(self.compact.type_names), 1)
        at_source = np.bincount(source * kinds + self.compact.etype, minlength=count * kinds)
        at_target = np.bincount(target[apart] * kinds + self.compact.etype[apart], minlength=count * kinds)
        return (at_source + at_target)[: count * kinds].reshape(count, kinds)

    @cached_property
    def sizes(self) -> np.ndarray:
        members = self.membership_array[self.membership_array >= 0]
        return np.bincount(members, minlength=self.group_count)[: self.group_count]

    @property
    def labels_alike(self) -> bool:
        """Whether every group has the same most common label (a graph of one label): colour by label would draw
        every group alike, so the overview colours by group."""
        return len({self.top_label(group) for group in range(self.group_count)}) <= 1

    def top_label(self, group: int) -> str:
        row = self._label_counts[group]
        return self.compact.labels[int(row.argmax())] if row.size and row.max() > 0 else "(no label)"

    def special(self, group: int) -> bool:
        """A group of our own making ("no relationships", "small communities", "other"): named by what it is."""
        return own_group(self.grouping.names[group])

    @cached_property
    def naming(self) -> Naming:
        """What sets each group apart (communities; a label or property grouping is named by its value already)."""
        special = [self.by != "community" or self.special(g) for g in range(self.group_count)]
        read = self._read_nodes if self.connection is not None and not self.connection.closed and self.by == "community" else None
        return name_groups(self.membership_array, self.sizes, self._label_counts, self.compact.labels, special, self._tops,
                           self._member_names, read)

    def _read_nodes(self, numbers: np.ndarray) -> list[dict[str, Any]]:
        return self._nodes_of(self.compact.ids(numbers))

    def _nodes_of(self, ids: list[str]) -> list[dict[str, Any]]:
        """The nodes ``ids`` in the adapter's JSON, in that order (an absent one: ``{}``)."""
        found = {raw["id"]: raw for raw in self._live().nodes(ids)}
        return [found.get(node_id, {}) for node_id in ids]

    def caption(self, group: int) -> str:
        head = self.naming.heads[group] or self.grouping.names[group]
        grew = "" if self.growth is None else f" (+{int(self.growth['added'][group]):,} −{int(self.growth['removed'][group]):,})"
        return f"{head} ×{int(self.sizes[group]):,}{grew}"

    @cached_property
    def groups(self):
        """One row per group: group, name, size, top label, label mix, relationship types, caption, what sets it
        apart (``distinguishing``) and its best-connected members by name (``top_members``); with growth (``since=``)
        also its members ``before`` (at since), ``after`` (at the moment), ``added`` and ``removed``."""
        import pandas as pd

        labels, types, naming = self._label_counts, self._type_counts, self.naming
        rows = []
        for group in range(self.group_count):
            size = int(self.sizes[group])
            rows.append({
                "group": group, "name": self.grouping.names[group], "size": size, "top_label": self.top_label(group),
                "labels": _mix(labels[group], self.compact.labels, size),
                "types": _mix(types[group], self.compact.type_names, int(types[group].sum())),
                "caption": self.caption(group), "distinguishing": naming.distinguishing[group], "top_members": naming.members[group],
                **self._grew(group),
            })
        return pd.DataFrame(rows, columns=["group", "name", "size", "top_label", "labels", "types", "caption", "distinguishing", "top_members",
                                           *(self.growth or {})])

    def _grew(self, group: int) -> dict[str, int]:
        return {name: int(column[group]) for name, column in (self.growth or {}).items()}

    def within(self, group: Any, *, max_groups: int = 100) -> OverviewResult:
        """The communities inside ``group`` (its number or super-node id): Leiden again on its members and the
        relationships among them, as an ``OverviewResult`` one level down (its ``trail`` says where it is)."""
        from .levels import within  # the level below: grouping, within the cell's budget

        return within(self, group, max_groups=max_groups)

    @cached_property
    def links(self):
        """Relationships by source group, target group and type, with how many (they add up to every relationship)."""
        import pandas as pd

        count, kinds = self.group_count, max(len(self.compact.type_names), 1)
        source, target = self._ends()
        keys, _, counts = dense((source * count + target) * kinds + self.compact.etype, inverse=False)
        pairs, kind = np.divmod(keys, kinds)
        frame = pd.DataFrame({"source_group": pairs // count, "target_group": pairs % count,
                              "type": [self.compact.type_names[int(k)] for k in kind], "count": counts})
        return frame.sort_values("count", ascending=False, kind="stable").reset_index(drop=True)

    @cached_property
    def membership(self):
        """Every node of the overview (id as loaded) → its group."""
        import pandas as pd

        numbers = np.flatnonzero(self.membership_array >= 0)
        return pd.Series(self.membership_array[numbers], index=[as_loaded(i) for i in self.compact.ids(numbers)], name="group")

    def group_of(self, node_ids: Any):
        """The group of each of ``node_ids`` (ids as loaded or stored); -1 for a node outside the overview."""
        import pandas as pd

        if node_ids is None or isinstance(node_ids, (bool, float, dict)) or not isinstance(node_ids, (str, int, list, tuple, set, np.ndarray, pd.Index, pd.Series)):
            raise GestaltError(f"group_of takes a node id or a list of node ids, not {node_ids!r}.")
        ids = [node_ids] if isinstance(node_ids, (str, int)) else list(node_ids)
        numbers = self.compact.numbers(stored(item) for item in ids)
        groups = np.where(numbers >= 0, self.membership_array[np.maximum(numbers, 0)], -1)
        return pd.Series(groups, index=ids, name="group")

    def group_number(self, group: Any) -> int:
        """A group's number from its number or its super-node's id (an error naming the range otherwise)."""
        number = -1
        if isinstance(group, str):
            text = group[len(self.prefix):].split("+", 1)[0] if group.startswith(self.prefix) else group
            number = int(text) if text.isdigit() else -1
        elif isinstance(group, (int, np.integer)) and not isinstance(group, (bool, np.bool_)):
            number = int(group)
        else:  # 1.5, True, a list: never taken for a group
            raise GestaltError(f"A group is its number (0 to {self.group_count - 1}) or its super-node's id ({self.node_id(0)!r}), not {group!r}.")
        if not 0 <= number < self.group_count:
            raise GestaltError(f"No group {group!r}: the groups are 0 to {self.group_count - 1} (see .groups).")
        return number

    def member_numbers(self, group: Any) -> np.ndarray:
        """Node integers of a group's members, highest degree first."""
        numbers = np.flatnonzero(self.membership_array == self.group_number(group))
        return numbers[np.argsort(-self.compact.degree[numbers], kind="stable")]

    def members(self, group: Any, limit: int = 1000):
        """A group's members, highest degree first: id, labels, degree and their properties (at most ``limit``)."""
        import pandas as pd

        numbers = self.member_numbers(group)[: whole(limit, "limit", 0)]
        ids = self.compact.ids(numbers)
        rows = []
        for number, node_id, raw in zip(numbers, ids, self._nodes_of(ids)):
            rows.append({"id": as_loaded(node_id), "labels": list(raw.get("labels") or ()), "degree": int(self.compact.degree[number]),
                         **(raw.get("properties") or {})})
        return pd.DataFrame(rows)

    def _live(self) -> Connection:
        if self.connection is None:
            raise GestaltError("This overview was grouped from a query's result; its members are in that result (.subgraph).")
        self.connection.db  # noqa: B018 - reading it fails clearly when the connection is closed
        return self.connection

    # -- drawing --------------------------------------------------------------------------
    def _super_node(self, group: int, names: dict[int, str]) -> Node:
        labels, types = self._label_counts[group], self._type_counts[group]
        size = int(self.sizes[group])
        top = ", ".join(f"{names.get(n, as_loaded(self.compact.keys[n].decode()))} ({int(self.compact.degree[n])})" for n in self._tops.get(group, []))
        properties = {"caption": self.caption(group), "nodes": size, "group": self.grouping.names[group],
                      "labels": _mix(labels, self.compact.labels, size),
                      "relationship types": _mix(types, self.compact.type_names, int(types.sum())),
                      "highest degree": top, **({"apart": self.naming.distinguishing[group]} if self.naming.distinguishing[group] else {}),
                      **self._grew(group)}
        return Node(self.node_id(group), (self.top_label(group),), properties)

    @cached_property
    def _tops(self) -> dict[int, list[int]]:
        return highest_degree(self.membership_array, self.compact.degree, self.group_count)

    @cached_property
    def _member_names(self) -> dict[int, str]:
        """Captions of the groups' highest-degree members (their ``name``, else their id)."""
        numbers = [n for members in self._tops.values() for n in members]
        if self.connection is None or self.connection.closed or not numbers:
            return {}
        ids = self.compact.ids(numbers)
        names = {}
        for number, node_id, raw in zip(numbers, ids, self._nodes_of(ids)):
            name = (raw.get("properties") or {}).get("name")
            names[number] = str(name) if name is not None else str(as_loaded(node_id))
        return names

    @cached_property
    def subgraph(self) -> Subgraph:
        """One super-node per group and one super-edge per pair of connected groups, strongest first."""
        where = f"{' › '.join(self.trail)}: " if self.trail else f"Overview by {self.by}{' ' + self.moment if self.moment else ''}: "
        drawn = Subgraph(title=f"{where}{self.group_count:,} groups of {self.compact.node_count:,} nodes", notes=[*self.notes, *self.naming.notes])
        source, target, apart = self._ends_counted()
        names = self._member_names
        for group in range(self.group_count):
            drawn.add_node(self._super_node(group, names))
            drawn.groups[self.node_id(group)] = {"group": group, "size": int(self.sizes[group])}
        edges = self._super_edges(source, target, apart)
        del source, target, apart
        strongest: dict[str, int] = {}
        for edge in edges:  # strongest first: each group keeps its strongest few
            ends = (edge.source, edge.target)
            if any(strongest.get(end, 0) < STRONGEST for end in ends):
                drawn.add_edge(edge)
                for end in ends:
                    strongest[end] = strongest.get(end, 0) + 1
        linked = [(self.group_number(edge.source), self.group_number(edge.target)) for edge in drawn.edges.values()]
        for group, slot in enumerate(colour_slots(self.sizes, linked, [self.special(g) for g in range(self.group_count)])):
            drawn.groups[self.node_id(group)]["colour"] = slot  # used when the canvas colours by group
        if len(drawn.edges) < len(edges):
            drawn.notes.append(f"{len(edges):,} pairs of groups are connected; the {len(drawn.edges):,} strongest links are drawn "
                               f"(each group's {STRONGEST} strongest; all of them are in .links).")
        return drawn

    def _ends_counted(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``_ends()`` and which relationships join two groups, with ``_type_counts`` made from them when not yet
        made (the drawing needs both: the relationships are gathered once)."""
        source, target = self._ends()
        apart = source != target
        if "_type_counts" not in self.__dict__:
            self.__dict__["_type_counts"] = self._count_types(source, target, apart)
        return source, target, apart

    def _super_edges(self, source: np.ndarray, target: np.ndarray, apart: np.ndarray) -> list[Edge]:
        count, kinds = self.group_count, max(len(self.compact.type_names), 1)
        low, high = np.minimum(source, target)[apart], np.maximum(source, target)[apart]
        keys, _, counts = dense((low * count + high) * kinds + self.compact.etype[apart], inverse=False)
        pairs, kind = np.divmod(keys, kinds)
        by_pair: dict[int, dict[int, int]] = {}
        for pair, k, c in zip(pairs.tolist(), kind.tolist(), counts.tolist()):
            by_pair.setdefault(pair, {})[k] = c
        edges = []
        for pair, mix in sorted(by_pair.items(), key=lambda item: -sum(item[1].values())):
            a, b = divmod(pair, count)
            total = sum(mix.values())
            row = np.zeros(len(self.compact.type_names), dtype=np.int64)
            for k, c in mix.items():
                row[k] = c
            edges.append(Edge(f"{self.prefix}{a}~{b}", self.node_id(a), self.node_id(b), self.compact.type_names[int(row.argmax())],
                              {"relationships": total, "types": _mix(row, self.compact.type_names, total)}))
        return edges

    def drill_subgraph(self, group: Any, max_nodes: int = 500, *, offset: int = 0) -> Subgraph:
        """A group's members ``offset .. offset+max_nodes`` (highest degree first), their relationships to each
        other (read from the database), one super-edge to each neighbouring group, and the rest as one "N more" node."""
        number = self.group_number(group)
        offset, max_nodes = whole(offset, "offset", 0), whole(max_nodes, "max_nodes", 1)
        connection = self._live()
        members = self.member_numbers(number)
        chosen = members[offset: offset + max_nodes]
        drawn = Subgraph(title=f"{self.caption(number)}: members {offset + 1:,}–{offset + len(chosen):,}")
        ids = self.compact.ids(chosen)
        for raw in connection.nodes(ids):
            drawn.add_node(node_from_json(raw))
        from .reading import adjacency  # the members' own relationships, from GestaltDB's typed adjacency

        inside, outside = adjacency(connection.db, ids, self.compact, self.membership_array, number)
        for raw in connection.edges(inside):
            drawn.add_edge(edge_from_json(raw))
        rest = len(members) - offset - len(chosen)
        more = f"{self.prefix}{number}+{offset + len(chosen)}"
        for (member, other), total in outside.items():  # to its own group's undrawn members: to "N more"
            if other == number and rest <= 0:
                continue  # members drawn in an earlier slice
            target = more if other == number else self.node_id(other)
            drawn.add_edge(Edge(f"{self.prefix}{member}>{target}", member, target, "", {"relationships": total}))
        if rest > 0:
            drawn.add_node(Node(more, (self.top_label(number),), {"caption": f"{rest:,} more", "nodes": rest, "group": self.grouping.names[number]}))
            colour = self.subgraph.groups.get(self.node_id(number), {}).get("colour", -1)  # the rest: its group's colour
            drawn.groups[more] = {"group": number, "size": rest, "offset": offset + len(chosen), "colour": colour}
            drawn.notes.append(f"{self.caption(number)}: drew {len(chosen):,} of {len(members):,} members (highest degree first); "
                               f"double-click \"{rest:,} more\" for the next {min(rest, max_nodes):,}.")
        return drawn

    def summary(self) -> str:
        return (f"{self.group_count:,} groups of {self.compact.node_count:,} nodes and {self.compact.edge_count:,} relationships "
                f"(by {self.by}, {self.elapsed:.2f} s{', reused' if self.reused else ''})")

    def __repr__(self) -> str:
        return f"OverviewResult({self.summary()})"
