"""``--explain``: what a query will do, read from GestaltDB's own planner, without running it.

The plan is ``gestaltdb.cypher.plan`` on the exact text gestalt-nb would run (with any LIMIT it
adds), drawn as a tree: each MATCH with how its start is found (id lookup, property-index seek,
label scan, all-nodes scan — mirroring the engine's choice) and how each hop expands. Warnings name
the shapes known to be slow here, with the reason and a rewrite. Sizes come from cheap counts only:
a label is counted up to 10,001 ids on its index (never in full), and the property indexes from
``index_statistics()``. Nothing is executed and nothing is written.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from gestaltdb.cypher import parse_ast
from gestaltdb.cypher import plan as plan_query
from gestaltdb.cypher_ast import (
    NodePattern,
    PathPatternClause,
    PatternHop,
    ShortestPathExpression,
)
from gestaltdb.cypher_plan import (
    Aggregate,
    CallSubquery,
    CreateStep,
    DeleteStep,
    Distinct,
    FilterExpression,
    ForeachStep,
    Limit,
    MatchStep,
    MergeStep,
    OptionalMatchStep,
    ProcedureCall,
    Project,
    ProjectItems,
    RemoveStep,
    SetStep,
    Skip,
    Sort,
    Union,
    Unwind,
)

from . import anchor, untyped
from .explain_result import QueryPlan, SlowShape
from .prepare import begun_where_found, prepare, rows_allowed
from .sizes import LARGE, Sizes

__all__ = ["LARGE", "QueryPlan", "SlowShape", "explain", "slow_warning"]
from .ast_text import expr, hop_text, node_text, pattern_text, property_equalities, walk

if TYPE_CHECKING:  # only for annotations: capabilities never import the session at run time
    from ..session import Connection

_UNTYPED_COST = "measured here: ~20 s untyped against ~0.05 s typed for 1,000 rows at 10k nodes / 30k relationships"


class _Explainer(Sizes):
    def __init__(self, connection: Connection, row_limit: int, limit_added: bool) -> None:
        super().__init__(connection.db)
        self.row_limit = row_limit
        self.limit_added = limit_added
        self.items: list[tuple[int, str]] = []
        self.warnings: list[SlowShape] = []
        self.connection = connection

    @functools.cached_property
    def schema_rels(self) -> list[dict[str, Any]]:
        """The adapter's schema's relationships (read only when a warning names types: a read's rewrite needs none)."""
        try:
            return self.connection.graph.get_structured_schema.get("relationships", [])
        except Exception:
            return []

    def types_between(self, start: NodePattern, end: NodePattern) -> list[str]:
        found = sorted(
            {
                rel["type"]
                for rel in self.schema_rels
                if (not start.labels or rel["start"] in start.labels) and (not end.labels or rel["end"] in end.labels)
                and rel["type"] != "__untyped__"
            }
        )
        return found[:5] or ["TYPE"]

    # -- the tree ------------------------------------------------------------------------------
    def add(self, depth: int, text: str) -> None:
        self.items.append((depth, text))

    def tree(self) -> list[str]:
        """The items as a tree: ├─ for a child with siblings after it, └─ for the last, │ to continue."""
        lines = []
        for index, (depth, text) in enumerate(self.items):
            prefix = ""
            for level in range(1, depth + 1):
                later = (d for d, _ in self.items[index + 1 :])
                more = False
                for d in later:
                    if d < level:
                        break
                    if d == level:
                        more = True
                        break
                if level == depth:
                    prefix += "├─ " if more else "└─ "
                else:
                    prefix += "│  " if more else "   "
            lines.append(prefix + text)
        return lines

    def plan(self, plan: Any, depth: int, bound: set[str], final: bool) -> None:
        state = {"bound": bound, "scan": None, "limited": False, "sources": []}
        operators = list(plan.operators)
        last_limit = max((i for i, op in enumerate(operators) if isinstance(op, Limit)), default=None)
        for index, op in enumerate(operators):
            self.operator(op, depth, state, final and index == last_limit)

    def operator(self, op: Any, depth: int, state: dict, final_limit: bool) -> None:
        if isinstance(op, (MatchStep, OptionalMatchStep)):
            self.match(op, depth, state)
        elif isinstance(op, Unwind):
            self.add(depth, f"UNWIND {expr(op.expression)} AS {op.variable}")
            state["bound"].add(op.variable)
        elif isinstance(op, CallSubquery):
            self.add(depth, f"CALL {{ … }} → {', '.join(op.returns) or 'no columns'} (runs once per input row)")
            self.plan(op.plan, depth + 1, set(state["bound"]), False)
            state["bound"].update(op.returns)
            state["scan"] = state["scan"] or ("a CALL subquery", 0)
        elif isinstance(op, Union):
            for number, branch in enumerate(op.branches):
                joiner = "" if number == 0 else ("UNION ALL " if op.union_all[number - 1] else "UNION ")
                self.add(depth, f"{joiner}branch {number + 1} → {', '.join(branch.columns)}")
                self.plan(branch, depth + 1, set(), False)
        elif isinstance(op, FilterExpression):
            self.add(depth, f"filter WHERE {expr(op.expression)}")
        elif isinstance(op, (ProjectItems, Project)):
            self.add(depth, f"project {', '.join(op.returns)}")
        elif isinstance(op, Aggregate):
            keys = ", ".join(name for name, _ in op.keys) or "one group"
            calls = ", ".join(f"{call.function}({expr(call.argument) if call.argument is not None else '*'}) AS {name}" for name, call in op.calls)
            self.add(depth, f"aggregate {calls} by {keys} (reads every input row)")
            state["bound"] = set(op.returns)
            state["scan"] = None  # what follows sorts groups; the aggregate itself already read every row
            state["sources"] = [] if not op.keys else state["sources"]
        elif isinstance(op, Distinct):
            self.add(depth, "distinct")
        elif isinstance(op, Sort):
            items = ", ".join(f"{item.expression}{' DESC' if item.descending else ''}" for item in op.items)
            self.add(depth, f"sort by {items} (reads every input row first)")
            self.sort_warning(state, items)
        elif isinstance(op, Skip):
            self.add(depth, f"skip {expr(op.count)}")
        elif isinstance(op, Limit):
            added = f" (added by gestalt-nb: row limit {self.row_limit:,} + 1, to know if more exist)" if final_limit and self.limit_added else ""
            self.add(depth, f"limit {expr(op.limit)}{added}")
            state["limited"] = True
        elif isinstance(op, (CreateStep, MergeStep)):
            word = "CREATE" if isinstance(op, CreateStep) else "MERGE"
            self.add(depth, f"{word} {', '.join(pattern_text(p) for p in op.patterns)} (write)")
            for pattern in op.patterns:
                state["bound"].update(_pattern_variables(pattern))
        elif isinstance(op, (SetStep, RemoveStep, DeleteStep)):
            word = {SetStep: "SET", RemoveStep: "REMOVE", DeleteStep: "DELETE"}[type(op)]
            if isinstance(op, DeleteStep) and op.detach:
                word = "DETACH DELETE"
            self.add(depth, f"{word} (write)")
        elif isinstance(op, ForeachStep):
            self.add(depth, f"FOREACH {op.variable} IN {expr(op.iterable)} (write)")
            self.plan(op.plan, depth + 1, set(state["bound"]) | {op.variable}, False)
        elif isinstance(op, ProcedureCall):
            self.add(depth, f"CALL {op.name}(…) (procedure)")
        else:
            self.add(depth, type(op).__name__)
        self.shortest_in_expressions(op)

    def match(self, op: Any, depth: int, state: dict) -> None:
        word = "OPTIONAL MATCH" if isinstance(op, OptionalMatchStep) else "MATCH"
        if op.selector is not None:
            word += " ALL SHORTEST" if op.selector.mode == "all" else f" SHORTEST {op.selector.limit}"
        self.add(depth, word + (f" (WHERE {expr(op.where)})" if op.where is not None else ""))
        bound = state["bound"]
        for pattern in op.patterns:
            variables = _pattern_variables(pattern)
            connected = bool(variables & bound)
            self.add(depth + 1, pattern_text(pattern))
            start, scan = self.start(pattern.source, op.where, bound)
            self.add(depth + 2, f"start: {start}")
            if scan is not None and not connected:
                if state["sources"]:
                    self.cartesian(pattern, state["sources"][-1])
                state["sources"].append(pattern.source)
            for hop in pattern.hops:
                self.hop(hop, depth + 2, pattern)
            if scan is not None and not connected and pattern.name is None:
                self.far_anchor(pattern, op.where, bound, scan)
            if scan is not None and scan[1] is not None and (state["scan"] is None or scan[1] > state["scan"][1]):
                state["scan"] = scan  # the largest scan so far: what a later sort has to sort
            bound |= variables
        state["limited"] = False

    def start(self, node: NodePattern, where: Any, bound: set[str]) -> tuple[str, tuple[str | None, int | None] | None]:
        """How the engine finds the pattern's first node, and (label, size) when it reads many nodes.

        None for a bound variable or an id lookup (one row); a seek has an unknown size (None).
        """
        if node.variable is not None and node.variable in bound:
            return f"continues from {node.variable} (already bound)", None
        if any(name == "id" for name, _ in node.properties):
            return "id lookup (one key read)", None
        inline = [(name, value) for name, value in node.properties if name != "id"]
        found = inline + property_equalities(node.variable, where)
        seek = next((name for name, _ in found if name in self.indexed), None)
        label = node.labels[0] if node.labels and node.label_expression is None else None
        if seek is not None:
            if label is None:
                text = f"property-index seek on {seek}, intersected with every node id ({self.size_text(None)})"
                if (self.size(None) or 0) > LARGE:
                    self.warnings.append(
                        SlowShape(
                            "index seek without a label",
                            f"{node_text(node)} seeks the {seek} index, but without a label the engine intersects it "
                            f"with every node id in the database ({self.size_text(None)}).",
                            f"add the label: ({node.variable or 'n'}:Label {{{seek}: …}})",
                        )
                    )
                return text, (None, None)
            return f"property-index seek on {seek}, then label :{label}", (label, None)
        if node.label_expression is not None:
            return "label-expression scan (reads each named label's index)", (None, None)
        count = self.size(label)
        where_text = f"label scan :{label} ({self.size_text(label)})" if label else f"all-nodes scan ({self.size_text(None)})"
        unindexed = [name for name, _ in found]
        if unindexed:
            where_text += f"; equality on {', '.join(dict.fromkeys(unindexed))} checked per node (no property index)"
            if count is not None and count > LARGE:
                name = unindexed[0]
                self.warnings.append(
                    SlowShape(
                        "large label scan without an index",
                        f"{node_text(node)} reads {self.size_text(label)} to test {name} = … one by one: "
                        f"there is no property index on {name} (indexed: {', '.join(sorted(self.indexed)) or 'none'}).",
                        f"index it once — connection.db.create_node_property_index({name!r}) — and the engine seeks "
                        f"instead of scanning; or start from a known node: ({node.variable or 'n'} {{id: $id}})",
                    )
                )
        return where_text, (label, count)

    def far_anchor(self, pattern: PathPatternClause, where: Any, bound: set[str], scan: tuple[str | None, int | None]) -> None:
        """A pattern that starts with a large scan while a node further along is found directly (the engine walks a
        pattern from its first node: measured at 20k nodes, 0.66 s from 19,900 people against 0.018 s from the company)."""
        label, count = scan
        found = anchor.far_node(self, pattern, where, bound) if count is not None and count > LARGE else None
        if found is None:
            return
        k, how = found
        text = ", ".join(pattern_text(part) for part in anchor.reversed_at(pattern, k))
        if not _parses(f"MATCH {text} RETURN 1"):
            return  # a label expression, a quoted name or an expression the short text cannot say: no rewrite to offer
        node = pattern.hops[k - 1].target
        self.warnings.append(
            SlowShape(
                "starts at the far end",
                f"{pattern_text(pattern)} starts from {self.size_text(label)}, one by one, though {node_text(node)} "
                f"further along is found by {how}: GestaltDB walks a pattern from its first node.",
                f"start from that node (the same rows; the rest of the query as it is): MATCH {text}",
            )
        )

    def hop(self, hop: PatternHop, depth: int, pattern: PathPatternClause) -> None:
        variable = (hop.min_length, hop.max_length) != (1, 1)
        length = f", {hop.min_length}..{'unbounded' if hop.max_length is None else hop.max_length} hops" if variable else ""
        if hop.edge_types:
            self.add(depth, f"expand {hop_text(hop)}{node_text(hop.target)} by typed adjacency ({'|'.join(hop.edge_types)}){length}")
            return
        self.add(depth, f"expand {hop_text(hop)}{node_text(hop.target)} UNTYPED: reads every relationship per node{length}")
        self._untyped(hop, pattern)

    def _untyped(self, hop: PatternHop, pattern: PathPatternClause) -> None:
        variable = (hop.min_length, hop.max_length) != (1, 1)
        types = tuple(self.types_between(pattern.source, hop.target))
        rewrite = hop_text(PatternHop(hop.rel_var, types, hop.target, hop.direction, hop.properties, hop.min_length, hop.max_length))
        self.warnings.append(
            SlowShape(
                "untyped variable-length relationship" if variable else "untyped relationship",
                f"{pattern_text(pattern)} names no relationship type, so GestaltDB scans every relationship in the "
                f"database for each node it expands{' — at every step of every path' if variable else ''} ({_UNTYPED_COST}).",
                f"name the type(s): {node_text(pattern.source)}{rewrite}{node_text(hop.target)}",
            )
        )

    def shortest_in_expressions(self, op: Any) -> None:
        if isinstance(op, (MatchStep, OptionalMatchStep)):
            return
        for item in walk([getattr(op, name, ()) for name in ("expressions", "expression", "keys")]):
            if isinstance(item, ShortestPathExpression):
                for hop in item.pattern.hops:
                    if not hop.edge_types:
                        self._untyped(hop, item.pattern)

    def cartesian(self, pattern: PathPatternClause, earlier: NodePattern) -> None:
        this = pattern.source
        types = "|".join(self.types_between(earlier, this))
        self.warnings.append(
            SlowShape(
                "cartesian product",
                f"{pattern_text(pattern)} shares no variable with {node_text(earlier)} matched before it, so every "
                "earlier row is paired with every match of it: the rows multiply, and it is matched again for each earlier row.",
                f"connect the patterns with a relationship — MATCH {node_text(earlier)}-[:{types}]-{node_text(this)} — "
                "or run them as two queries",
            )
        )

    def sort_warning(self, state: dict, items: str) -> None:
        scan = state["scan"]
        if scan is None or state["limited"]:
            return
        label, count = scan
        if count is None or count <= min(self.row_limit, LARGE):
            return
        self.warnings.append(
            SlowShape(
                "ORDER BY over an unbounded match",
                f"ORDER BY {items} sorts every row the match produces (it starts from {self.size_text(label)}, more than the "
                f"{self.row_limit:,}-row limit) before anything is cut: the LIMIT gestalt-nb adds applies after the sort, "
                "so it bounds the rows shown, not the work.",
                "narrow the match first (a property-index seek, {id: $id}), or sort a bounded set: "
                "MATCH ... WITH n LIMIT 10000 RETURN n ORDER BY ...",
            )
        )


def _parses(text: str) -> bool:
    if "…" in text:  # an expression ast_text cannot say
        return False
    try:
        parse_ast(text)
    except Exception:
        return False
    return True


def _pattern_variables(pattern: PathPatternClause) -> set[str]:
    names = {pattern.source.variable, pattern.name}
    for hop in pattern.hops:
        names |= {hop.rel_var, hop.target.variable}
    return {name for name in names if name}


def explain(
    connection: Connection,
    query: str,
    params: dict[str, Any] | None = None,
    *,
    limit: int | None = None,
    write: bool = False,
) -> QueryPlan:
    """The work of :meth:`Connection.explain <gestalt_nb.capabilities.Capabilities.explain>`, ``connection`` first (documented there, once)."""
    row_limit = rows_allowed(limit)
    connection.db  # noqa: B018 - reading it fails clearly when closed
    prepared = prepare(query, row_limit)
    prepared, far = begun_where_found(connection.db, prepared, query, row_limit)  # as run does: the text that would run
    rewrite = untyped.explained(connection.db, prepared)
    text = rewrite.text if rewrite else prepared.text
    explainer = _Explainer(connection, row_limit, prepared.limit_added)
    try:
        logical = plan_query(text)
    except TypeError:  # constraint commands run directly; the engine has no plan for them
        explainer.add(0, "schema command: runs directly (no plan)")
        logical = None
    if logical is not None:
        explainer.plan(logical, 0, set(), True)
    if prepared.limit_added:
        note = f"gestalt-nb adds LIMIT {row_limit + 1} (row limit {row_limit:,})"
    elif prepared.writes:
        note = "no LIMIT added (writes are never limited; only returned rows are cut)"
    elif prepared.own_limit is not None:
        note = f"no LIMIT added (the query's own LIMIT {prepared.own_limit} is kept; rows beyond {row_limit:,} are cut)"
    elif prepared.is_union:
        note = f"no LIMIT added (a UNION runs in full, then is cut to {row_limit:,} rows)"
    else:
        note = f"no LIMIT added (no final RETURN to add it to; rows beyond {row_limit:,} are cut)"
    unique = list({(w.kind, w.reason): w for w in explainer.warnings}.values())
    return QueryPlan(
        query=query,
        executed=text,
        alias=connection.alias,
        row_limit=row_limit,
        writes=prepared.writes,
        limit_note=note,
        tree=explainer.tree(),
        warnings=unique,
        columns=tuple(logical.columns) if logical is not None else (),
        rewrite="; ".join(done.sentence() for done in (far, rewrite) if done) or None,
    )


def slow_warning(connection: Connection, query: str, *, limit: int | None = None) -> str | None:
    """One line naming the slow shapes of ``query``, or None (also None when it does not parse)."""
    try:
        found = explain(connection, query, limit=limit)
    except Exception:  # the run itself reports syntax errors; a warning must never stop it
        return None
    return found.warning_line() if found.warnings else None
