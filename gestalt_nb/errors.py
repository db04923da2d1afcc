"""The one error type a person sees: a short message that says what to do next."""

from __future__ import annotations


class GestaltError(Exception):
    """A user-facing failure. ``str(err)`` is the whole message; no traceback is needed.

    Magics show it as a one-line ``UsageError`` unless ``%config GestaltMagic.short_errors = False``.
    The original exception, when there was one, stays reachable as ``__cause__``.
    """


def caret_excerpt(source: str, line: int, column: int) -> str:
    """Return the offending source line with a caret under ``column`` (both one-based)."""
    lines = source.splitlines() or [""]
    text = lines[min(max(line, 1), len(lines)) - 1]
    return f"  {text}\n  {' ' * max(column - 1, 0)}^"


class GestaltWarning(UserWarning):
    """Something was done as asked but may not be what was meant (mixed types, reversed duplicates)."""
