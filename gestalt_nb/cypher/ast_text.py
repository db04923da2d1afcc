"""GestaltDB's parsed Cypher (``gestaltdb.cypher_ast``) back as short text, for plan trees and warnings."""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Any

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


def property_equalities(variable: str | None, where: Any) -> list[tuple[str, Any]]:
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


def walk(value: Any):
    """Every node (dataclass object) inside a parse tree, a plan or an expression, the root included.

    The one walker of the engine's trees: lists, tuples and dicts are looked into, source spans are not.
    Iterative, so a deeply nested query cannot exhaust the recursion limit.
    """
    stack = [value]
    while stack:
        current = stack.pop()
        if is_dataclass(current) and not isinstance(current, type):
            yield current
            stack.extend(getattr(current, item.name) for item in fields(current) if item.name != "span")
        elif isinstance(current, (list, tuple)):
            stack.extend(current)
        elif isinstance(current, dict):
            stack.extend(current.values())


def same_tree(old: Any, new: Any, field: Any = None) -> bool:
    """Two parse trees the same but for where their parts stand in the text (``span``, ``source``).

    ``field(node, name, before, after)``, when given, judges a field first: True or False decides it, None compares
    it as the rest are compared (how a rewrite says which differences it made on purpose).
    """
    if isinstance(old, (tuple, list)):
        return type(old) is type(new) and len(old) == len(new) and all(same_tree(a, b, field) for a, b in zip(old, new))
    if not (is_dataclass(old) and not isinstance(old, type)):
        return old == new
    if type(old) is not type(new):
        return False
    for item in fields(old):
        if item.name in ("span", "source"):
            continue
        before, after = getattr(old, item.name), getattr(new, item.name)
        judged = None if field is None else field(old, item.name, before, after)
        if judged is False or judged is None and not same_tree(before, after, field):
            return False
    return True
