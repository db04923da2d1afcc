"""One way to cut text to a length: the kept start and "…", so a reader sees that something was cut."""

from __future__ import annotations


def shorten(text: str, limit: int) -> str:
    """``text`` if it has at most ``limit`` characters, else its first ``limit - 1`` and "…"."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"
