"""Integer ids as a person writes them, over the adapter's stored form ``__lc_int__:N``.

The adapter (and our loader, which follows it) stores an integer id ``0`` as the key
``"__lc_int__:0"``; the engine cannot look a node up by an integer at all. Here: ``resolve`` turns
a typed ``0`` into the stored key when that node exists, ``shown`` turns a stored key back into
the number for tables, and ``rewrite`` turns integer literals in id positions of a Cypher query
(``{id: 0}`` in a node pattern, ``id(n) = 0``, ``id(n) IN [0, 1]``, ``n.id = 0``) into the stored
form. String literals and comments are never touched; other forms are left as written.
"""

from __future__ import annotations

import re
from typing import Any

PREFIX = "__lc_int__:"
_NUMBER = re.compile(r"-?\d+")


def stored(value: Any) -> str:
    """The key the adapter stores for ``value`` (an int, or text as given)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{PREFIX}{value}"
    return str(value)


def resolve(db: Any, value: Any) -> str:
    """The stored key for an id as typed: ``"0"`` or ``0`` → ``"__lc_int__:0"`` when only that exists."""
    text = stored(value)
    if text.startswith(PREFIX) or not _NUMBER.fullmatch(text):
        return text
    if db.get_node(text.encode("utf-8")) is None and db.get_node(f"{PREFIX}{text}".encode("utf-8")) is not None:
        return f"{PREFIX}{text}"
    return text


def as_loaded(value: Any) -> Any:
    """A stored ``__lc_int__:N`` as the integer N; anything else unchanged."""
    if isinstance(value, str) and value.startswith(PREFIX) and _NUMBER.fullmatch(value[len(PREFIX) :]):
        return int(value[len(PREFIX) :])
    return value


# -- query rewriting ------------------------------------------------------------------
_SKIP = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|//[^\n]*|/\*.*?\*/", re.DOTALL)
_MAP = re.compile(r"(?<!\w)\(\s*\w*(?:\s*:\s*\w+)*\s*\{([^{}]*)\}")
_MAP_ID = re.compile(r"(?<![\w.])(id\s*:\s*)(-?\d+)(?![\w.])")
_FUNC_EQ = re.compile(r"(?<![\w.])(id\s*\(\s*\w+\s*\)\s*(?:=|<>)\s*)(-?\d+)(?![\w.])", re.IGNORECASE)
_PROP_EQ = re.compile(r"(?<![\w.])(\w+\.id\s*(?:=|<>)\s*)(-?\d+)(?![\w.])")
_IN = re.compile(r"(?<![\w.])((?:id\s*\(\s*\w+\s*\)|\w+\.id)\s+IN\s+\[)(\s*-?\d+(?:\s*,\s*-?\d+)*\s*)(\])", re.IGNORECASE)


def _masked(query: str) -> str:
    """The query with string literals, quoted names and comments blanked (same length)."""
    return _SKIP.sub(lambda match: " " * len(match.group(0)), query)


def rewrite(query: str) -> tuple[str, list[int]]:
    """``query`` with integer ids in id positions written in the stored form, and the ids rewritten."""
    masked = _masked(query)
    spans: list[tuple[int, int, str]] = []  # (start, end, replacement) in the original text
    for match in _MAP.finditer(masked):
        body_start = match.start(1)
        for inner in _MAP_ID.finditer(match.group(1)):
            start, end = body_start + inner.start(2), body_start + inner.end(2)
            spans.append((start, end, f"'{PREFIX}{inner.group(2)}'"))
    for pattern in (_FUNC_EQ, _PROP_EQ):
        for match in pattern.finditer(masked):
            spans.append((match.start(2), match.end(2), f"'{PREFIX}{match.group(2)}'"))
    for match in _IN.finditer(masked):
        numbers = _NUMBER.findall(match.group(2))
        spans.append((match.start(2), match.end(2), ", ".join(f"'{PREFIX}{number}'" for number in numbers)))
    if not spans:
        return query, []
    text, rewritten = query, []
    for start, end, replacement in sorted(spans, reverse=True):
        rewritten.extend(int(number) for number in _NUMBER.findall(query[start:end]))
        text = text[:start] + replacement + text[end:]
    return text, sorted(set(rewritten))
