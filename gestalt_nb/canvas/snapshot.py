"""What the page last showed, as the page reported it, and the SVG picture of it.

After each frame that changed something (debounced: a running layout reports once it stops) the
page sends ``{"kind": "shown", ...}``: the drawing's size in CSS px, and for every visible node its
on-screen position, radius and colour (colours once, by index), plus the ids it hides. ``Shown``
checks that message — it comes from the page, so it is treated as untrusted — and keeps it on the
canvas; :func:`svg_of` draws it (see :mod:`gestalt_nb.render.shown_svg`).
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from typing import Any

from ..errors import GestaltError
from ..render.shown_svg import svg

_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")
#: A page that reports more than this is ignored (the canvas never draws so many).
MAX_REPORTED = 200_000
#: Rooms (opened groups) a report may hold.
MAX_ROOMS = 10_000


@dataclass
class Shown:
    """One report: ``nodes`` maps a visible node id to ``(x, y, radius, "#rrggbb")`` in CSS px."""

    width: float
    height: float
    revision: int
    nodes: dict[str, tuple[float, float, float, str]]
    hidden: list[str] = field(default_factory=list)
    dpr: float = 1.0
    #: an overview's opened groups' rooms as drawn, ``(x, y, radius, "#rrggbb")`` in CSS px (``js/src/rooms.js``)
    rooms: list[tuple[float, float, float, str]] = field(default_factory=list)
    at: float = field(default_factory=time.time)


def _number(value: Any, low: float = -1e7, high: float = 1e7) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or not low <= value <= high:
        raise ValueError(f"not a number in range: {value!r}")
    return float(value)


def parse(content: dict[str, Any]) -> Shown:
    """A ``Shown`` from the page's message; ``ValueError`` when it is not one."""
    ids, xy, radii, slots = content.get("ids"), content.get("xy"), content.get("r"), content.get("ci")
    colors, hidden = content.get("colors"), content.get("hidden") or []
    if not all(isinstance(item, list) for item in (ids, xy, radii, slots, colors, hidden)):
        raise ValueError("ids, xy, r, ci, colors and hidden must be lists")
    if len(ids) > MAX_REPORTED or len(xy) != 2 * len(ids) or len(radii) != len(ids) or len(slots) != len(ids):
        raise ValueError("the lists do not match in length")
    palette = [colour if isinstance(colour, str) and _HEX.match(colour) else "#9aa0a6" for colour in colors]

    def colour_of(slot: Any) -> str:
        return palette[slot] if isinstance(slot, int) and 0 <= slot < len(palette) else "#9aa0a6"

    nodes: dict[str, tuple[float, float, float, str]] = {}
    for number, node_id in enumerate(ids):
        nodes[str(node_id)] = (_number(xy[2 * number]), _number(xy[2 * number + 1]), _number(radii[number], 0, 1e4), colour_of(slots[number]))
    rooms = content.get("rooms") or []
    if not isinstance(rooms, list) or len(rooms) % 4 or len(rooms) > 4 * MAX_ROOMS:
        raise ValueError("rooms must be a list of four numbers per room")
    circles = [(_number(rooms[at]), _number(rooms[at + 1]), _number(rooms[at + 2], 0, 1e6), colour_of(rooms[at + 3])) for at in range(0, len(rooms), 4)]
    return Shown(
        width=_number(content.get("width"), 1, 1e5),
        height=_number(content.get("height"), 1, 1e5),
        revision=int(_number(content.get("revision", 0), 0, 1e12)),
        nodes=nodes,
        hidden=[str(item) for item in hidden[:MAX_REPORTED]],
        dpr=_number(content.get("dpr", 1) or 1, 0.1, 16),
        rooms=circles,
    )


def svg_of(canvas: Any) -> str:
    """The SVG of what the page last showed of ``canvas``; a clear error when no page has shown it."""
    shown = getattr(canvas, "shown", None)
    if shown is None:
        raise GestaltError(
            "No page has shown this canvas yet, so there is no picture of it: display it (put it last in a cell) "
            "and wait until it is drawn, then ask again. A cell cannot wait for the page while it runs."
        )
    return svg(canvas.subgraph, shown, caption_property=canvas.caption_property)
