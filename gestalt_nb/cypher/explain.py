"""``--explain``: what a query will do, read from GestaltDB's own planner, without running it.

The plan is ``gestaltdb.cypher.plan`` on the exact text gestalt-nb would run (with any LIMIT it
adds), drawn as a tree: each MATCH with how its start is found (id lookup, property-index seek,
label scan, all-nodes scan — mirroring the engine's choice) and how each hop expands. Warnings name
the shapes known to be slow here, with the reason and a rewrite. Sizes come from cheap counts only:
a label is counted up to 10,001 ids on its index (never in full), and the property indexes from
``index_statistics()``. Nothing is executed and nothing is written.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field, fields, is_dataclass
from itertools import islice
from typing import Any, TYPE_CHECKING

from gestaltdb.cypher import plan as plan_query
from gestaltdb.cypher_ast import (
    AndExpression,
    ComparisonExpression,
    FunctionCall,
    NodePattern,
    Parameter,
    PathPatternClause,
    PatternHop,
    PropertyRef,
    ShortestPathExpression,
    Variable,
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

from ..errors import GestaltError
from ..options import settings
from . import untyped
from .query import prepare

if TYPE_CHECKING:  # only for annotations: capabilities never import the session at run time
    from ..session import Connection

#: A label with more nodes than this (by the bounded count) is "large".
LARGE = 10_000
_UNTYPED_COST = "measured here: ~20 s untyped against ~0.05 s typed for 1,000 rows at 10k nodes / 30k relationships"


@dataclass(frozen=True)
class SlowShape:
    """One warning: what shape, why it is slow here, and a rewrite that avoids it."""

    kind: str
    reason: str
    rewrite: str

    def line(self) -> str:
        return f"{self.kind}: {self.reason} Rewrite: {self.rewrite}"


@dataclass(eq=False)
class QueryPlan:
    """The result of ``--explain``: plan tree, added LIMIT, read-only or not, warnings. Nothing ran."""

    query: str
    executed: str
    alias: str
    row_limit: int
    writes: tuple[str, ...]
    limit_note: str
    tree: list[str]
    warnings: list[SlowShape] = field(default_factory=list)
    columns: tuple[str, ...] = ()
    #: Untyped relationship patterns: rewritten to every type (the plan is of that text), or why not.
    rewrite: str | None = None

    @property
    def read_only(self) -> bool:
        return not self.writes

    def summary(self) -> str:
        mode = "read-only" if self.read_only else f"writes ({', '.join(self.writes)}; needs --write)"
        warned = f"{len(self.warnings)} warning(s)" if self.warnings else "no slow shapes found"
        return f"Plan on '{self.alias}' (not run): {mode}; {self.limit_note}; {warned}."

    def text(self) -> str:
        parts = [self.summary(), *([f"Rewritten: {self.rewrite}."] if self.rewrite else []), "", *self.tree]
        if self.warnings:
            parts += ["", "Warnings:"] + [f"  ! {w.line()}" for w in self.warnings]
        return "\n".join(parts)

    def warning_line(self) -> str:
        """All warnings on one line (what ``warn_slow`` prints before a run)."""
        kinds = "; ".join(f"{w.kind} ({w.rewrite})" for w in self.warnings)
        return f"gestalt-nb: slow shape — {kinds}. See %%gcypher --explain for why."

    def __repr__(self) -> str:
        return self.text()

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(self.text())

    def _repr_html_(self) -> str:
        e = html.escape
        mode = "read-only" if self.read_only else f"writes: {e(', '.join(self.writes))} (needs --write)"
        warnings = "".join(
            f"<li><b>{e(w.kind)}</b>: {e(w.reason)}<br><i>Rewrite:</i> <code>{e(w.rewrite)}</code></li>" for w in self.warnings
        )
        warned = (
            f"<div style='color:#8a4b00'><b>Warnings</b><ul>{warnings}</ul></div>"
            if self.warnings
            else "<div style='color:#2d6a2d'>No slow shapes found.</div>"
        )
        return (
            "<div class='gestalt-plan'>"
            f"<div><b>Plan on '{e(self.alias)}'</b> — not run; {e(mode)}; {e(self.limit_note)}.</div>"
            + (f"<div><b>Rewritten</b>: {e(self.rewrite)}.</div>" if self.rewrite else "")
            + f"<pre style='margin:4px 0'>{e(chr(10).join(self.tree))}</pre>{warned}"
            f"<details><summary>Text that would run</summary><pre>{e(self.executed)}</pre></details></div>"
        )


# -- expressions back to text --------------------------------------------------------------------
def expr(value: Any) -> str:
    """A compact Cypher rendering of a planner expression (``…`` for what it does not know)."""
    if isinstance(value, Variable):
        return value.name
    if isinstance(value, PropertyRef):
        return f"{value.variable}.{value.property_name}"
    if isinstance(value, Parameter):
        return f"${value.name}"
    if isinstance(value, str):
        return repr(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(expr(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {expr(v)}" for k, v in value.items()) + "}"
    name = type(value).__name__
    if isinstance(value, ComparisonExpression) or name in ("StringPredicate", "ArithmeticExpression"):
        return f"{expr(value.left)} {value.operator} {expr(value.right)}"
    if isinstance(value, AndExpression) or name in ("OrExpression", "XorExpression"):
        joiner = {"AndExpression": " AND ", "OrExpression": " OR ", "XorExpression": " XOR "}[name]
        return joiner.join(expr(item) for item in value.expressions)
    if name == "NotExpression":
        return f"NOT {expr(value.expression)}"
    if name == "NullPredicate":
        return f"{expr(value.expression)} IS {'NOT ' if value.negated else ''}NULL"
    if name == "InExpression":
        return f"{expr(value.left)} IN {expr(value.values)}"
    if isinstance(value, FunctionCall):
        inner = ", ".join("*" if type(a).__name__ == "Wildcard" else expr(a) for a in value.arguments)
        return f"{value.name}({'DISTINCT ' if value.distinct else ''}{inner})"
    if name == "ListExpression":
        return "[" + ", ".join(expr(item) for item in value.items) + "]"
    if name == "MapExpression":
        return "{" + ", ".join(f"{k}: {expr(v)}" for k, v in value.items) + "}"
    if isinstance(value, ShortestPathExpression):
        return f"{'allShortestPaths' if value.all_paths else 'shortestPath'}({pattern_text(value.pattern)})"
    return "…"


def node_text(node: NodePattern) -> str:
    labels = "".join(f":{label}" for label in node.labels) if node.label_expression is None else ":<label expression>"
    props = ", ".join(f"{k}: {expr(v)}" for k, v in node.properties)
    return f"({node.variable or ''}{labels}{' {' + props + '}' if props else ''})"


def hop_text(hop: PatternHop) -> str:
    types = ":" + "|".join(hop.edge_types) if hop.edge_types else ""
    if (hop.min_length, hop.max_length) != (1, 1):
        types += f"*{hop.min_length}..{'' if hop.max_length is None else hop.max_length}"
    props = ", ".join(f"{k}: {expr(v)}" for k, v in hop.properties)
    inner = f"{hop.rel_var or ''}{types}{' {' + props + '}' if props else ''}"
    body = f"[{inner}]" if inner else ""
    left, right = {"out": ("-", "->"), "in": ("<-", "-"), "any": ("-", "-")}.get(hop.direction, ("-", "-"))
    return f"{left}{body}{right}"


def pattern_text(pattern: PathPatternClause) -> str:
    text = node_text(pattern.source) + "".join(hop_text(hop) + node_text(hop.target) for hop in pattern.hops)
    return f"{pattern.name} = {text}" if pattern.name else text


def _equalities(variable: str | None, where: Any) -> list[tuple[str, Any]]:
    if variable is None or where is None:
        return []
    items = where.expressions if isinstance(where, AndExpression) else (where,)
    return [
        (item.left.property_name, item.right)
        for item in items
        if isinstance(item, ComparisonExpression)
        and item.operator == "="
        and isinstance(item.left, PropertyRef)
        and item.left.variable == variable
    ]


def _walk(value: Any):
    """Every dataclass object inside a plan expression (depth first)."""
    if is_dataclass(value) and not isinstance(value, type):
        yield value
        for item in fields(value):
            if item.name != "span":
                yield from _walk(getattr(value, item.name))
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _walk(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _walk(item)


class _Explainer:
    def __init__(self, connection: Connection, row_limit: int, limit_added: bool) -> None:
        self.db = connection.db
        self.row_limit = row_limit
        self.limit_added = limit_added
        stats = self.db.index_statistics()
        self.indexed = set(stats.get("indexed_node_properties", ()))
        self.counts: dict[str | None, int | None] = {}
        self.items: list[tuple[int, str]] = []
        self.warnings: list[SlowShape] = []
        try:
            self.schema_rels = connection.graph.get_structured_schema.get("relationships", [])
        except Exception:
            self.schema_rels = []

    # -- cheap sizes ---------------------------------------------------------------------------
    def size(self, label: str | None) -> int | None:
        """Nodes with ``label`` (all nodes for None), counted up to LARGE+1; None if unknown."""
        if label not in self.counts:
            try:
                ids = self.db.iter_node_ids_by_label(label) if label is not None else self.db.get_node_keys_generator()
                self.counts[label] = sum(1 for _ in islice(ids, LARGE + 1))
            except Exception:
                self.counts[label] = None
        return self.counts[label]

    def size_text(self, label: str | None) -> str:
        count = self.size(label)
        what = f":{label} nodes" if label else "nodes"
        if count is None:
            return f"unknown number of {what}"
        return f"more than {LARGE:,} {what}" if count > LARGE else f"{count:,} {what}"

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
        equalities = inline + _equalities(node.variable, where)
        seek = next((name for name, _ in equalities if name in self.indexed), None)
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
        unindexed = [name for name, _ in equalities]
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
        for item in _walk([getattr(op, name, ()) for name in ("expressions", "expression", "keys")]):
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
    """The plan of ``query`` as ``run`` would execute it, and its slow-shape warnings. Runs nothing.

    ``params`` are not needed to plan (they are accepted so a cell's ``-P`` does not have to be
    removed); ``write`` changes nothing here: a write is shown as one, and would still need it.
    """
    row_limit = settings.row_limit if limit is None else limit
    if not isinstance(row_limit, int) or isinstance(row_limit, bool) or row_limit < 1:
        raise GestaltError(f"The row limit must be a positive whole number, not {row_limit!r}.")
    connection.db  # fails clearly when closed
    prepared = prepare(query, row_limit)
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
        rewrite=rewrite.sentence() if rewrite else None,
    )


def slow_warning(connection: Connection, query: str, *, limit: int | None = None) -> str | None:
    """One line naming the slow shapes of ``query``, or None (also None when it does not parse)."""
    try:
        found = explain(connection, query, limit=limit)
    except Exception:  # the run itself reports syntax errors; a warning must never stop it
        return None
    return found.warning_line() if found.warnings else None
