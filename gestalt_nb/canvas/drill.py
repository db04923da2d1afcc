"""Drilling into an overview on its canvas: a super-node opens in place into its members, and folds back.

``GroupExpander`` is the overview canvas's double-click: on a super-node it draws the group's members
(``OverviewResult.drill_subgraph``: highest degree first, their relationships to each other, one
super-edge to each neighbouring group, the rest as "N more") next to it and removes it, as one undoable
delta (Undo folds it back); on "N more" it draws the next slice; on a member it expands from the
database like any drawing. ``drill`` and ``collapse`` are the same from Python (``canvas.drill(g)``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import GestaltError
from .expand import add_expansion


class GroupExpander:
    #: The page offers Collapse on canvases whose expander folds groups back (``canvas.settings``).
    collapses = True

    def __init__(self, result: Any, members: Callable[[Any, str], Any] | None, *, max_nodes: int = 200) -> None:
        self.result, self.members, self.max_nodes = result, members, max_nodes
        #: the levels opened on this canvas, by their super-nodes' prefix (the top one included)
        self.levels: dict[str, Any] = {result.prefix: result}

    def connection(self) -> Any:
        """The open connection the overview's members come from (Path looks a path up there), else None."""
        live = self.result.connection
        return live if live is not None and not live.closed else None

    def level_of(self, group: dict[str, Any]) -> Any:
        return self.levels.get(group.get("level", self.result.prefix), self.result)

    def __call__(self, canvas: Any, node_id: str) -> dict[str, int] | None:
        group = canvas.subgraph.groups.get(node_id)
        if group is None:  # a drawn member: expand it from the database like any node
            return self.members(canvas, node_id) if self.members is not None else None
        return self.drill(canvas, node_id, group)

    def drill(self, canvas: Any, node_id: str, group: dict[str, Any]) -> dict[str, int] | None:
        result = self.level_of(group)
        top = group.get("top", group["group"])
        try:
            members = self._sub_groups(result, group) or result.drill_subgraph(group["group"], self.max_nodes, offset=group.get("offset", 0))
        except GestaltError as exc:
            canvas.say(str(exc), "error")
            return None
        for info in members.groups.values():  # its "N more" and sub-groups fold back with the top group they are in
            info["top"] = top
            if result is not self.result:
                info.setdefault("level", result.prefix)
        members.edges = {key: edge for key, edge in members.edges.items()
                         if all(end in members.nodes or (end in canvas.subgraph.nodes and end != node_id) for end in (edge.source, edge.target))}
        node = canvas.subgraph.nodes[node_id]
        edges = {key: edge for key, edge in canvas.subgraph.edges.items() if node_id in (edge.source, edge.target)}
        name = _name(node)

        def fold_back() -> None:  # Undo: the super-node and its super-edges come back where they were
            back = type(canvas.subgraph)(nodes={node_id: node}, edges=edges, groups={node_id: group})
            canvas.add(back, anchor=next(iter(members.nodes), None))
            canvas.say(f"{name} is one super-node again.")

        def said(added: dict[str, int]) -> str:  # what is there now, in plain words (the drill's note says how many)
            if result is self.result:
                return f"Opened {name} in its place; Collapse or Undo folds it back."
            where = " › ".join([*result.trail, name])  # a level down: the breadcrumbs to it
            return f"{where}: its members, in its place; Collapse or Undo folds it back."

        notes = list(canvas.subgraph.notes)
        added = add_expansion(canvas, members, node_id, notes, on_undo=fold_back, said=said)
        canvas.subgraph.notes[:] = notes  # a level's notes were said on the status line; the banner's stay the whole's
        canvas.remove([node_id])
        canvas.subgraph.groups.pop(node_id, None)
        if any("level" in info and key in members.nodes for key, info in members.groups.items()) and "offset" not in group:
            where = " › ".join([*result.trail, result.caption(group["group"])])
            canvas.say(f"{where}: {sum(key in members.groups for key in members.nodes):,} groups inside; double-click one to go down, "
                       "Collapse to fold them back.")
        return added

    def _sub_groups(self, result: Any, group: dict[str, Any]) -> Any:
        """A group bigger than the members drawn at a time opens into the groups inside it (``within``), when it has
        two or more; None otherwise (its members are drawn)."""
        if "offset" in group or group.get("size", 0) <= self.max_nodes or result.special(group["group"]):
            return None
        from ..grouped.levels import opened  # deferred: the overview's modules load with the first overview

        try:
            level = result.within(group["group"])
        except GestaltError:
            return None
        if level.group_count < 2:
            return None
        self.levels[level.prefix] = level
        part = opened(result, group["group"], level)
        for info in part.groups.values():
            info["level"] = level.prefix
        return part


def drill(canvas: Any, group: Any) -> dict[str, int] | None:
    """Open super-node ``group`` (its number, or its node id) in place, as a double-click does."""
    expander = canvas.expander
    if not isinstance(expander, GroupExpander):
        raise GestaltError("This canvas draws no overview; drill into groups of gestalt_nb.overview(...) or %goverview.")
    hashable = isinstance(group, (str, int)) and not isinstance(group, bool)
    node_id = group if hashable and group in canvas.subgraph.groups else expander.result.node_id(expander.result.group_number(group))
    if node_id not in canvas.subgraph.groups:
        raise GestaltError(f"Group {group!r} is not drawn as a super-node (already drilled into?); canvas.collapse({group!r}) folds it back.")
    return expander.drill(canvas, node_id, canvas.subgraph.groups[node_id])


def collapse(canvas: Any, group: Any) -> int:
    """Fold a drilled group's drawn members back into its super-node; returns how many nodes went."""
    expander = canvas.expander
    if not isinstance(expander, GroupExpander):
        raise GestaltError("This canvas draws no overview; collapse groups of gestalt_nb.overview(...) or %goverview.")
    result = expander.result
    number = result.group_number(group)
    drawn = [node_id for node_id in canvas.subgraph.nodes if node_id not in canvas.subgraph.groups]
    groups = result.group_of(drawn).to_numpy() if drawn else []
    members = [node_id for node_id, found in zip(drawn, groups) if found == number]
    super_node = result.subgraph.nodes[result.node_id(number)]
    more = [key for key, info in canvas.subgraph.groups.items() if info.get("top", info.get("group")) == number and key != super_node.id]
    if not members and not more:
        return 0
    back = type(canvas.subgraph)(nodes={super_node.id: super_node}, groups={super_node.id: result.subgraph.groups[super_node.id]})
    for key, edge in result.subgraph.edges.items():
        if super_node.id in (edge.source, edge.target):
            back.edges[key] = edge
    canvas.add(back, anchor=(members or more)[0])
    canvas.remove(members + more)
    for key in more:
        canvas.subgraph.groups.pop(key, None)
    canvas.say(f"Collapsed {_name(super_node)}: what was open in it ({len(members) + len(more):,} drawn) is one super-node again.")
    return len(members) + len(more)


def _name(node: Any) -> str:
    """A super-node's caption ("Person ×80,149"), else its group's name."""
    return str(node.properties.get("caption") or node.properties.get("group") or node.id)


def collapse_selected(canvas: Any, node_ids: list[str]) -> int:
    """The toolbar's Collapse: fold back every drilled group one of ``node_ids`` (a member or an "N more") is in."""
    expander = canvas.expander
    if not isinstance(expander, GroupExpander):
        canvas.say("Collapse folds an overview's drilled groups back; this canvas draws no overview.", "warning")
        return 0
    result, groups = expander.result, canvas.subgraph.groups
    members = [node_id for node_id in node_ids if node_id not in groups]
    numbers = {int(groups[node_id].get("top", groups[node_id]["group"])) for node_id in node_ids if node_id in groups}
    if members:
        numbers.update(int(found) for found in result.group_of(members).to_numpy() if found >= 0)
    folded = sum(collapse(canvas, number) for number in sorted(numbers))
    if not folded:
        canvas.say("Nothing to collapse: select a drilled group's members (or its 'N more') first.")
    return folded
