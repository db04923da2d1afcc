"""One way to cut text or a list to a length: the kept start and "…", so a reader sees that something was cut."""

from __future__ import annotations


def shorten(text: str, limit: int) -> str:
    """``text`` if it has at most ``limit`` characters, else its first ``limit - 1`` and "…"."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def listing(items: list, limit: int, separator: str = ", ") -> str:
    """The first ``limit`` items joined, and "…" as one more item when there were more."""
    kept = [str(item) for item in items[:limit]]
    return separator.join(kept + ["…"] if len(items) > limit else kept)
