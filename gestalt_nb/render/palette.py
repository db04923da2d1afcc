"""One colour per node label, shared by the canvas, its legend and the static SVG picture.

A label keeps its colour for the life of the kernel: the first time a label is seen it takes its
preferred slot (a stable hash of its name) or, when another label already holds that slot, the next
free one. Beyond the palette's size colours repeat.
"""

from __future__ import annotations

import hashlib

#: Tableau's first nine plus three chosen so that no two of the twelve are alike (CIELAB distance ≥ 30
#: between any two, ≥ 21 from the grey of unlabelled nodes; the old 10th, #86bcb6, was 4 from the teal).
#: The canvas's category palette (js/src/encode.js) is the same list.
PALETTE = (
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
    "#b07aa1", "#ff9da7", "#9c755f", "#f032e6", "#cf1c90", "#cedb9c",
)
#: Nodes without a label.
UNLABELLED = "#9aa0a6"
_assigned: dict[str, str] = {}


def label_color(label: str | None) -> str:
    if not label:
        return UNLABELLED
    colour = _assigned.get(label)
    if colour is None:
        taken = set(_assigned.values())
        start = int(hashlib.sha1(label.encode("utf-8")).hexdigest()[:8], 16) % len(PALETTE)
        slots = [PALETTE[(start + step) % len(PALETTE)] for step in range(len(PALETTE))]
        colour = next((slot for slot in slots if slot not in taken), slots[0])
        _assigned[label] = colour
    return colour
