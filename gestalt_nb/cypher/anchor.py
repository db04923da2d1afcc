"""A pattern begun at its far end, rewritten to begin at the node it finds directly.

GestaltDB walks a pattern from its first node: ``MATCH (p:Person)-[:WORKS_AT]->(c:Company {name: 'Company 7'})``
reads every person to find one company's (0.66 s at 20k nodes), where ``MATCH (c:Company {name: 'Company 7'})
<-[:WORKS_AT]-(p:Person)`` reads that company's (0.018 s). ``--explain`` names the shape ("starts at the far end");
a read is rewritten to begin at that node when the rewrite is exact:

- only the first pattern of a query whose first clause is a MATCH (nothing is bound before it; not OPTIONAL, no
  SHORTEST, no FOR VALID_TIME), with no path name and no variable-length hop (reversing one would reverse the path
  or the list it binds);
- the first node is a label scan of more than ``sizes.LARGE`` nodes (the bounded count), and a node further along is
  found directly: an id, an indexed equality, or an equality on a label of at most ``LARGE`` nodes;
- the chain up to that node is reversed (each arrow turned), the rest joined on its variable, in the same MATCH: the
  same relationship uniqueness, the same WHERE, the same columns.

The text is edited at the parser's token offsets (strings and comments are never touched), parsed again and
compared with the original's parse tree reversed the same way: anything else and the read runs as written. Rows
can come back in another order where the query sets none (a LIMIT without ORDER BY may keep other, equally valid
rows), as Cypher allows either way. Writes are never rewritten.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any

from gestaltdb.cypher import parse_ast
from gestaltdb.cypher_ast import MatchClause, NodePattern, PathPatternClause, Query, WhereClause

from ..engine.store import cypher_tree
from .ast_text import property_equalities, same_tree
from .sizes import Sizes

_FLIP = {"out": "in", "in": "out"}
_ARROWS = {"out": ("-", "->"), "in": ("<-", "-"), "any": ("-", "-")}
_HOPS = {"out_hop": "out", "in_hop": "in", "any_hop": "any"}


@dataclass(frozen=True)
class Anchored:
    """What happened to one read's first pattern: the text to run, and what it begins at (or why it ran as written)."""

    text: str
    start: str | None = None
    reason: str | None = None

    @property
    def applied(self) -> bool:
        return self.start is not None

    def sentence(self) -> str:
        if self.applied:
            return (f"yes: the pattern begins at {self.start}, found directly, instead of scanning the large label it "
                    "began with (GestaltDB walks a pattern from its first node; the same rows, in another order where the "
                    "query sets none)")
        return f"no: the pattern ran as written ({self.reason})"


def far_node(sizes: Sizes, pattern: PathPatternClause, where: Any, bound: set[str]) -> tuple[int, str] | None:
    """The first node after the pattern's first that is found directly (its index, how), when the pattern could start
    there: it has a variable (the rest is joined on it) or ends the pattern."""
    nodes = [pattern.source, *(hop.target for hop in pattern.hops)]
    for k, node in enumerate(nodes[1:], 1):
        found = sizes.found_by(node, where, bound)
        if found is not None and (k == len(pattern.hops) or node.variable is not None):
            return k, found
    return None


def reversed_at(pattern: PathPatternClause, k: int) -> tuple[PathPatternClause, ...]:
    """``pattern`` begun at its ``k``-th node: the chain up to it reversed, then the rest from its variable."""
    nodes = [pattern.source, *(hop.target for hop in pattern.hops)]
    back = tuple(dataclasses.replace(hop, direction=_FLIP.get(hop.direction, hop.direction), target=nodes[i])
                 for i, hop in reversed(list(enumerate(pattern.hops[:k]))))
    first = dataclasses.replace(pattern, source=nodes[k], hops=back)
    if k == len(pattern.hops):
        return (first,)
    joined = NodePattern(variable=nodes[k].variable, labels=(), properties=(), label_expression=None)
    return first, dataclasses.replace(pattern, source=joined, hops=pattern.hops[k:])


@dataclass(frozen=True)
class _Site:
    """Where the first pattern is in the text: its span, its nodes' texts, its hops' (direction, relationship, whole)."""

    span: tuple[int, int]
    nodes: tuple[str, ...]
    hops: tuple[tuple[str, str, str], ...]


def _site(text: str) -> _Site | None:
    """The first MATCH's first pattern in the engine's parse tree (token offsets), or None."""
    tree = cypher_tree(text)
    clause = next((part for part in tree.iter_subtrees_topdown() if part.data == "match_clause"), None)  # the first
    pattern = next((child for child in clause.children if getattr(child, "data", None) == "pattern"), None) if clause else None
    if pattern is None or getattr(pattern.children[0], "data", None) != "node_pattern":
        return None
    nodes, hops = [pattern.children[0]], []
    for hop in pattern.children[1:]:
        if getattr(hop, "data", None) not in _HOPS or getattr(hop.children[-1], "data", None) != "node_pattern":
            return None
        relationship = hop.children[0] if getattr(hop.children[0], "data", None) == "relationship" else None
        inner = "" if relationship is None else text[relationship.meta.start_pos : relationship.meta.end_pos]
        hops.append((_HOPS[hop.data], inner, text[hop.meta.start_pos : hop.meta.end_pos]))
        nodes.append(hop.children[-1])
    span = (pattern.meta.start_pos, pattern.meta.end_pos)
    return _Site(span, tuple(text[node.meta.start_pos : node.meta.end_pos] for node in nodes), tuple(hops))


def _text(text: str, site: _Site, k: int, variable: str | None) -> str:
    """``text`` with its first pattern begun at node ``k`` (the reversed chain, then the rest joined on ``variable``)."""
    pieces = [site.nodes[k]]
    for i in range(k, 0, -1):
        direction, inner, _ = site.hops[i - 1]
        left, right = _ARROWS[_FLIP.get(direction, direction)]
        pieces.append(f"{left}{inner}{right}{site.nodes[i - 1]}")
    if k < len(site.hops):
        pieces.append(f", ({variable})" + "".join(whole for _, _, whole in site.hops[k:]))
    start, end = site.span
    return text[:start] + "".join(pieces) + text[end:]


@functools.lru_cache(maxsize=256)
def _shape(text: str) -> tuple[Any, PathPatternClause, Any] | str:
    """(the parse tree, the first pattern, the WHERE after it) when the first pattern could be rewritten, else why not."""
    parsed = parse_ast(text)
    clauses = parsed.clauses if isinstance(parsed, Query) else ()
    if not clauses or type(clauses[0]) is not MatchClause:
        return "the query does not begin with a MATCH"
    match = clauses[0]
    if match.selector is not None or match.qualifiers:
        return "a SHORTEST or FOR VALID_TIME match is kept as written"
    pattern = match.patterns[0]
    if pattern.name is not None or any((hop.min_length, hop.max_length) != (1, 1) for hop in pattern.hops):
        return "a named path or a variable-length hop would be reversed"
    where = clauses[1].expression if len(clauses) > 1 and isinstance(clauses[1], WhereClause) else None
    if not any(hop.target.properties or property_equalities(hop.target.variable, where) for hop in pattern.hops):
        return "no node further along is found by an equality"
    return parsed, pattern, where


def decide(db: Any, text: str) -> Anchored | None:
    """``text`` with its first pattern begun at a node found directly, when that is exact and its first node is a large
    label scan; None when the pattern does not start at its far end."""
    try:
        shape = _shape(text)
    except Exception:
        return None  # the run reports what is wrong with the text
    if isinstance(shape, str):
        return None
    parsed, pattern, where = shape
    sizes = Sizes(db)
    if not sizes.large_scan(pattern.source, where, set()):
        return None
    found = far_node(sizes, pattern, where, set())
    if found is None:
        return None
    k, how = found
    try:
        site = _site(text)
    except Exception:
        site = None
    if site is None or len(site.hops) != len(pattern.hops):
        return Anchored(text, reason="the pattern could not be placed in the text")
    again = _text(text, site, k, [pattern.source, *(hop.target for hop in pattern.hops)][k].variable)
    match = parsed.clauses[0]
    expected = dataclasses.replace(parsed, clauses=(dataclasses.replace(match, patterns=reversed_at(pattern, k) + match.patterns[1:]),
                                                    *parsed.clauses[1:]))
    try:
        same = same_tree(expected, parse_ast(again))
    except Exception:
        same = False
    if not same:
        return Anchored(text, reason="the rewritten query would not parse to the same query")
    return Anchored(again, start=f"{site.nodes[k]} ({how})")
