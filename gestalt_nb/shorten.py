"""One way to cut text or a list to a length: the kept start and "…", so a reader sees that something was cut."""

from __future__ import annotations


def shorten(text: str, limit: int) -> str:
    """``text`` if it has at most ``limit`` characters, else its first ``limit - 1`` and "…"."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def listing(items: list, limit: int, separator: str = ", ") -> str:
    """The first ``limit`` items joined, and "…" as one more item when there were more."""
    kept = [str(item) for item in items[:limit]]
    return separator.join(kept + ["…"] if len(items) > limit else kept)


def shorten_caption(text: str, limit: int) -> str:
    """A caption cut to ``limit`` characters as :func:`shorten` does, except an overview group's: its count
    (" ×3,185") is kept whole and whole trailing names of a list go first ("Ada Berg, Cy Fox ×3,185" ->
    "Ada Berg… ×3,185"), so what names the group and how many it holds are never the part cut."""
    head, sep, count = text.rpartition(" ×")
    if len(text) <= limit or not sep or not head or not count.replace(",", "").isdigit():
        return shorten(text, limit)
    room = max(limit - len(count) - 2, 4)
    parts = head.split(", ")
    kept = parts[:]
    while len(kept) > 1 and len(", ".join(kept)) + 1 > room:
        kept.pop()
    name = ", ".join(kept) + ("…" if len(kept) < len(parts) else "")
    return f"{shorten(name, room)} ×{count}"
