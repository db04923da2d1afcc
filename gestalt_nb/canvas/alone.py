"""A canvas shown on its own (``result.canvas`` as a cell's last value) goes out as every view does: its picture, then
the live canvas (``outputs.py``). A bare widget output in a saved notebook says "Error displaying widget: model not
found" once its kernel was restarted or is gone, and nothing can hide it; the picture shows there instead, and it
follows what the page shows (each page report redraws it from the page's own positions, sizes and colours)."""

from __future__ import annotations

import uuid
from typing import Any

from .. import display, outputs
from ..options import settings
from ..render.picture import picture_svg, static_cut
from ..render.static_svg import svg as static_svg
from ..views.html import svg_image


def show_alone(canvas: Any) -> None:
    """Display ``canvas`` as its picture (under a display id, kept current) and its live output."""
    from IPython.display import display as show_output
    from IPython.display import update_display

    if display.kernel_shell() is None:  # plain IPython shows text: the widget's own bundle, one output
        bundle = canvas._repr_mimebundle_()
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        show_output(data, metadata=metadata, raw=True)
        return
    display_id = uuid.uuid4().hex
    outputs.show(canvas, picture(canvas), display_id)
    canvas.on_shown(lambda shown: update_display(picture(shown), raw=True, display_id=display_id))


def picture(canvas: Any) -> dict[str, Any]:
    """The picture's output: what the page last showed of ``canvas``, else its drawing laid out here (capped)."""
    drawn = canvas.subgraph
    svg = picture_svg(canvas, canvas.caption_property,
                      lambda: static_svg(static_cut(drawn, settings.static_max_nodes), caption_property=canvas.caption_property))
    return outputs.picture_bundle(svg_image(svg, alt=f"graph: {drawn.summary()}"), drawn.summary())
