"""Two drawings of one read, at two moments, compared: what was added, removed and changed, as a table and a drawing.

The drawing is one ``Subgraph`` (the one drawable shape): the later moment's nodes and relationships plus what was
removed, each node carrying the property ``change`` (``added`` / ``removed`` / ``changed`` / ``same``; ``change (diff)``
where the read's own nodes have a ``change``) that the result's view colours by and the legend names; what changed is
highlighted. Relationships carry ``change`` too (coloured and filtered by it like the nodes); removed nodes and
relationships are drawn faded, as ghosts (``Subgraph.faded``); a changed one's properties are listed old → new in the
canvas's panel (``Subgraph.changed``). The result displays as its view: Graph (coloured by change) | Changes | Query.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..display import Displayable
from ..graph.subgraph import Edge, Node, Subgraph
from ..options import Colour

#: The node property a diff's drawing is coloured by.
CHANGE = "change"
#: Each change in its own colour in every diff (added green, changed orange, removed red — drawn as a faded ghost —,
#: the same grey-blue), not the palette's order by frequency, which gave "added" another colour in each drawing.
CHANGE_COLOURS = {"added": "#59a14f", "changed": "#f28e2b", "removed": "#e15759", "same": "#8ca0b3"}
COLUMNS = ["id", "kind", "change", "property", "before", "after"]


@dataclass
class DiffResult(Displayable):
    """What a read returned at ``before`` and at ``after``, compared.

    ``changes`` has one row per added or removed node or relationship (``property`` empty) and one per changed
    property of one present at both moments (``(labels)`` for a node's labels); ``subgraph`` draws them
    coloured by change (``change_property``, the node property it is written in); the result displays as that drawing,
    the changes and the query.
    """

    query: str
    before: str
    after: str
    changes: pd.DataFrame
    subgraph: Subgraph
    notes: list[str] = field(default_factory=list)
    change_property: str = CHANGE
    view_options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.view_options = {"color": Colour(self.change_property, colours=CHANGE_COLOURS), **self.view_options}

    def counts(self) -> dict[str, int]:
        """How many nodes and relationships were added, removed and changed."""
        whole = self.changes.drop_duplicates(["id", "kind"])
        return {change: int((whole["change"] == change).sum()) for change in ("added", "removed", "changed")}

    def __repr__(self) -> str:
        counts = ", ".join(f"{number} {change}" for change, number in self.counts().items())
        return f"<DiffResult {self.before} → {self.after}: {counts}>"


def _fields(item: Node | Edge) -> dict[str, Any]:
    fields = {key: value for key, value in item.properties.items() if key != "type"}
    if isinstance(item, Node):
        fields["(labels)"] = sorted(item.labels)
    return fields


def _compare(kind: str, old: dict[Any, Any], new: dict[Any, Any], rows: list[tuple[Any, ...]],
             changed: dict[Any, dict[str, tuple[Any, Any]]]) -> dict[Any, str]:
    """Rows for one kind (node / relationship) appended to ``rows``, what changed put in ``changed``; each id's change returned."""
    marks: dict[Any, str] = {}
    for key, item in new.items():
        if key not in old:
            marks[key] = "added"
            rows.append((key, kind, "added", None, None, None))
            continue
        before, after = _fields(old[key]), _fields(item)
        differing = [name for name in sorted(set(before) | set(after), key=str) if before.get(name) != after.get(name)]
        marks[key] = "changed" if differing else "same"
        rows.extend((key, kind, "changed", name, before.get(name), after.get(name)) for name in differing)
        if differing:
            changed[key] = {name: (before.get(name), after.get(name)) for name in differing}
    for key in old:
        if key not in new:
            marks[key] = "removed"
            rows.append((key, kind, "removed", None, None, None))
    return marks


def compare(query: str, before: str, after: str, old: Subgraph, new: Subgraph) -> DiffResult:
    """``old`` (the read at ``before``) against ``new`` (at ``after``)."""
    rows: list[tuple[Any, ...]] = []
    drawing = Subgraph(title=f"{before} → {after}", notes=[*old.notes, *new.notes], truncated=old.truncated or new.truncated)
    node_marks = _compare("node", old.nodes, new.nodes, rows, drawing.changed)
    edge_marks = _compare("relationship", old.edges, new.edges, rows, drawing.changed)
    name = change_name(old, new)
    for key, mark in node_marks.items():
        node = new.nodes.get(key) or old.nodes[key]
        drawing.add_node(Node(node.id, node.labels, {**node.properties, name: mark}), highlight=mark != "same")
    for key, mark in edge_marks.items():
        edge = new.edges.get(key) or old.edges[key]
        drawing.add_edge(Edge(edge.id, edge.source, edge.target, edge.type, {**edge.properties, name: mark}), highlight=mark != "same")
    drawing.faded = {key for marks in (node_marks, edge_marks) for key, mark in marks.items() if mark == "removed"}
    changes = pd.DataFrame(rows, columns=COLUMNS)
    return DiffResult(query, before, after, changes, drawing, change_property=name)


def change_name(*drawings: Subgraph) -> str:
    """``change``, or ``change (diff)``, ``change (diff 2)``, … where the read's own nodes or relationships have that property already."""
    taken = {key for drawing in drawings for items in (drawing.nodes, drawing.edges) for item in items.values() for key in item.properties}
    name, number = CHANGE, 1
    while name in taken:
        name, number = f"{CHANGE} (diff{'' if number == 1 else f' {number}'})", number + 1
    return name
