"""Format Cypher: keywords upper-case, one clause per line, subqueries indented; text otherwise kept.

Strings, backtick-quoted names, comments and ``$parameters`` are copied as they are; runs of
whitespace become one space; a clause keyword (MATCH, WHERE, WITH, ORDER BY, ...) starts a line
unless it sits inside brackets (a pattern comprehension's WHERE stays inline), and the body of a
``CALL { }`` / ``EXISTS { }`` subquery is indented two spaces per level. Formatting twice changes
nothing, and the formatted query plans the same (tests/test_editor.py checks both).
"""

from __future__ import annotations

import re

from .text import MAGIC_LINE

KEYWORDS = frozenset(
    """MATCH OPTIONAL WHERE RETURN WITH UNWIND AS ORDER BY SKIP LIMIT ASC ASCENDING DESC DESCENDING DISTINCT
    CREATE MERGE SET DELETE DETACH REMOVE ON CALL YIELD UNION ALL AND OR XOR NOT IN IS NULL STARTS ENDS
    CONTAINS CASE WHEN THEN ELSE END EXISTS FOREACH SHORTEST CONSTRAINT INDEX FOR REQUIRE UNIQUE DROP""".split()
)
#: Keywords that start a line (when not inside brackets).
CLAUSES = frozenset(
    "MATCH OPTIONAL WHERE RETURN WITH UNWIND ORDER SKIP LIMIT CREATE MERGE SET DELETE DETACH REMOVE CALL UNION FOREACH ON".split()
)
#: After these words a clause keyword continues the same clause (OPTIONAL MATCH, STARTS WITH, ON CREATE SET, ...).
_JOINS = {"OPTIONAL": {"MATCH"}, "DETACH": {"DELETE"}, "STARTS": {"WITH"}, "ENDS": {"WITH"}, "ON": {"CREATE", "MATCH"},
          "UNION": {"ALL"}, "CREATE": {"SET"}, "MATCH": {"SET"}, "IS": {"NOT", "NULL"}, "NOT": {"NULL", "IN"}, "EXISTS": {"MATCH"}}
_SUBQUERY = {"CALL", "EXISTS", "COUNT", "COLLECT"}
_TOKEN = re.compile(
    r"""(?P<space>\s+)|(?P<line>//[^\n]*)|(?P<block>/\*.*?(?:\*/|\Z))|(?P<string>'(?:\\.|[^'\\])*(?:'|\Z)|"(?:\\.|[^"\\])*(?:"|\Z))"""
    r"""|(?P<name>`[^`]*(?:`|\Z))|(?P<param>\$(?:\w+|`[^`]*`?))|(?P<word>[^\W\d]\w*)|(?P<number>\d[\w.]*)|(?P<other>.)""",
    re.DOTALL,
)


def tokens(text: str) -> list[tuple[str, str]]:
    """(kind, text) for every token of ``text``; the texts joined give ``text`` back."""
    return [(found.lastgroup or "other", found.group()) for found in _TOKEN.finditer(text)]


class _Writer:
    def __init__(self) -> None:
        self.lines: list[str] = [""]
        self.stack: list[str] = []  # "(", "[", "{" (a map) or "sub" (a subquery's braces)
        self.pending_space = False

    @property
    def indent(self) -> str:
        return "  " * len(self.stack)

    def newline(self, depth: int | None = None) -> None:
        self.lines[-1] = self.lines[-1].rstrip()
        if self.lines[-1].strip():
            self.lines.append("")
        self.lines[-1] = "  " * (len(self.stack) if depth is None else depth)
        self.pending_space = False

    def put(self, text: str) -> None:
        if self.pending_space and self.lines[-1].strip():
            self.lines[-1] += " "
        elif self.lines[-1] == "":
            self.lines[-1] = self.indent
        self.lines[-1] += text
        self.pending_space = False

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.lines).strip("\n")


def _map_key(items: list[tuple[str, str]], index: int, stack: list[str]) -> bool:
    """Whether the word at ``index`` is a key of a map literal (``{limit: 5}``): never upper-cased."""
    if not stack or stack[-1] != "{":
        return False
    following = next((text for kind, text in items[index + 1 :] if kind != "space"), "")
    return following == ":"


def format_query(query: str) -> str:
    """``query`` formatted; a text that does not look like Cypher comes back with spacing normalised."""
    out = _Writer()
    previous: str | None = None  # the last word (upper-cased) or punctuation written
    after_line_comment = False
    items = tokens(query)
    for index, (kind, text) in enumerate(items):
        if kind == "space":
            if after_line_comment:
                out.newline()
                after_line_comment = False
            else:
                out.pending_space = True
            continue
        if kind == "word":
            upper = text.upper()
            inside = any(item != "sub" for item in out.stack)
            is_keyword = upper in KEYWORDS and previous not in (".", ":", "$") and not _map_key(items, index, out.stack)
            if is_keyword and upper in CLAUSES and not inside and upper not in _JOINS.get(previous or "", ()):
                out.newline(len(out.stack) + (1 if upper == "ON" else 0))
            out.put(upper if is_keyword else text)
            plain = previous not in (".", ":", "$")
            previous = upper if plain and (is_keyword or upper in _SUBQUERY) else text
            continue
        if kind == "other" and text in "([{":
            opened = "sub" if text == "{" and previous in _SUBQUERY else text
            out.put(text)
            out.stack.append(opened)
            if opened == "sub":
                out.newline()
        elif kind == "other" and text in ")]}":
            if out.stack and out.stack[-1] == "sub":
                out.stack.pop()
                out.newline()
            elif out.stack:
                out.stack.pop()
            out.put(text)
        else:
            out.put(text)
        after_line_comment = kind == "line"
        previous = text if kind == "other" else kind
    return out.text()


def format_cell(source: str) -> str | None:
    """A ``%%gcypher`` cell with its query (from the second line) formatted; None for other cells."""
    first, newline, rest = source.partition("\n")
    found = MAGIC_LINE.match(first)
    if found is None or found.group(1) != "%%" or not rest.strip():
        return None
    return f"{first}\n{format_query(rest)}\n" if source.endswith("\n") else f"{first}\n{format_query(rest)}"
