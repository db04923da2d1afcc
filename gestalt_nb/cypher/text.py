"""Reading Cypher text without parsing it: strings and comments blanked, brackets matched.

Completion (on half-written text) and syntax-error diagnosis (on text the parser rejected) both
need this; neither can rely on the engine's parser, which stops at the first thing it dislikes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: A cell's first line that makes it Cypher: ``%%gcypher`` (or ``%gcypher``) and its options.
MAGIC_LINE = re.compile(r"^(%%?)gcypher(?=\s|$)")

_CLOSERS = {")": "(", "]": "[", "}": "{"}
_OPENERS = {value: key for key, value in _CLOSERS.items()}


@dataclass(frozen=True)
class Masked:
    """``text`` with string, backtick-name and comment contents blanked (same length and lines).

    ``open_kind`` is ``"'"``, ``'"'``, ``"`"``, ``"//"`` or ``"/*"`` when the text ends inside one,
    and ``open_at`` is where that began.
    """

    text: str
    open_kind: str | None
    open_at: int | None


def mask(text: str) -> Masked:
    out, i, n, state, start = [], 0, len(text), None, None
    while i < n:
        ch = text[i]
        if state is None:
            if ch in "'\"`":
                state, start = ch, i
                out.append(ch)
            elif text.startswith("//", i) or text.startswith("/*", i):
                state, start = text[i : i + 2], i
                out.append("  ")
                i += 1
            else:
                out.append(ch)
        elif state == "//":
            state = None if ch == "\n" else state
            out.append("\n" if ch == "\n" else " ")
        elif state == "/*":
            if text.startswith("*/", i):
                state = None
                out.append("  ")
                i += 1
            else:
                out.append("\n" if ch == "\n" else " ")
        elif ch == "\\" and state != "`" and i + 1 < n:
            out.append("  " if text[i + 1] != "\n" else " \n")
            i += 1
        elif ch == state:
            state = None
            out.append(ch)
        else:
            out.append("\n" if ch == "\n" else " ")
        i += 1
    if state == "//":
        state = None  # a line comment may end the text
    return Masked("".join(out), state, start if state else None)


def open_brackets(masked: str) -> list[tuple[str, int]]:
    """Brackets still open at the end of masked text, innermost last, with their offsets."""
    stack: list[tuple[str, int]] = []
    for i, ch in enumerate(masked):
        if ch in _OPENERS:
            stack.append((ch, i))
        elif ch in _CLOSERS and stack and stack[-1][0] == _CLOSERS[ch]:
            stack.pop()
    return stack


def bracket_problem(masked: str) -> tuple[str, int] | None:
    """The first bracket that closes nothing or the wrong thing, else the first never closed."""
    stack: list[tuple[str, int]] = []
    for i, ch in enumerate(masked):
        if ch in _OPENERS:
            stack.append((ch, i))
        elif ch in _CLOSERS:
            if not stack:
                return f"`{ch}` closes nothing: there is no `{_CLOSERS[ch]}` open before it. Remove it or add the missing `{_CLOSERS[ch]}`.", i
            opener, at = stack.pop()
            if opener != _CLOSERS[ch]:
                line, column = position(masked, at)
                return (
                    f"`{ch}` cannot close the `{opener}` opened at line {line}, column {column}; "
                    f"close it with `{_OPENERS[opener]}` first.",
                    i,
                )
    if stack:
        opener, at = stack[-1]  # the innermost: where the text most likely went wrong
        return f"the `{opener}` opened here is never closed; add `{_OPENERS[opener]}`.", at
    return None


def position(text: str, offset: int) -> tuple[int, int]:
    """One-based (line, column) of ``offset`` in ``text``."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1
