"""The static picture of a drawing, for saved notebooks: what the page last showed, else a layout made here.

A view's picture (``Drawing.svg``) and a canvas shown on its own (``canvas/alone.py``) both come through here, so
both cut the same way (``static_cut``, the reason said) and both follow the page once it has reported."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..graph.subgraph import Subgraph


def static_cut(subgraph: Subgraph, limit: int) -> Subgraph:
    """What a static picture shows of ``subgraph``: at most ``limit`` nodes (and twice as many relationships), cut
    with the reason said, for every static picture (a view's, a canvas shown on its own)."""
    return subgraph.capped(limit, 2 * limit, reason="static picture for saved notebooks; the interactive graph shows more")


def picture_svg(canvas: Any, caption_property: str | None, laid_out: Callable[[], str]) -> str:
    """The static picture of a drawing: what the page last showed of ``canvas`` (its positions, sizes and colours)
    once a page has reported, else ``laid_out()`` (the drawing laid out in the kernel)."""
    if canvas is not None and getattr(canvas, "shown", None) is not None:
        from .shown_svg import svg  # deferred: keeps %load_ext light

        return svg(canvas.subgraph, canvas.shown, caption_property=caption_property)
    return laid_out()
