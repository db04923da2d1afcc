"""Each group's colour on the canvas when labels do not tell the groups apart (a graph of one label).

A group gets a slot of the category palette (``render/palette.py``, twelve colours): biggest group first, each takes
the slot least used so far among those no group it is linked to holds, so two linked groups differ wherever the
palette allows. The slots follow from the groups and their links alone, so the same database gives the same colours
every time; a group of our own making ("no relationships", "small communities", "other") is grey (slot -1).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

#: The category palette's size (``render/palette.py`` PALETTE, ``js/src/encode.js`` CATEGORY_PALETTE; drawing sits
#: above grouping, so the number is written here and a test keeps them equal).
SLOTS = 12


def colour_slots(sizes: Sequence[int], links: Iterable[tuple[int, int]], special: Sequence[bool]) -> list[int]:
    """A palette slot per group (-1 for ``special`` groups), linked groups apart as far as the palette allows."""
    count = len(sizes)
    near: list[set[int]] = [set() for _ in range(count)]
    for a, b in links:
        if a != b:
            near[a].add(b)
            near[b].add(a)
    used = [0] * SLOTS
    slots = [-1] * count
    for group in sorted(range(count), key=lambda g: (-int(sizes[g]), g)):
        if special[group]:
            continue
        taken = {slots[other] for other in near[group]}
        free = [slot for slot in range(SLOTS) if slot not in taken] or list(range(SLOTS))
        slots[group] = min(free, key=lambda slot: (used[slot], slot))
        used[slots[group]] += 1
    return slots
