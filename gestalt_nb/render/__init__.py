"""The render layer: ``Subgraph`` → a drawing (interactive HTML document + static SVG).

``render`` caps the subgraph (the only place drawing drops elements), picks the renderer named in
the settings and returns a :class:`Drawing`. Views embed ``Drawing.iframe()``; saved notebooks
and non-JavaScript frontends use ``Drawing.svg()``. Renderers receive display-ready properties
(temporal values as ISO text) and must escape everything they put into markup themselves.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .. import values
from ..options import Settings
from ..options import settings as default_settings
from ..subgraph import Subgraph


@dataclass
class Drawing:
    """One rendered subgraph (already capped) and how to show it."""

    subgraph: Subgraph
    options: Settings

    @cached_property
    def figure(self):
        """The gestaltdb.viz figure (interactive document and SVG share it)."""
        from . import viz

        return viz.figure(self.subgraph, self.options)

    @cached_property
    def document(self) -> str:
        """A complete, offline HTML document for the chosen renderer."""
        if self.options.renderer == "pyvis":
            from . import pyvis

            return pyvis.document(self.subgraph, self.options)
        return self.figure.as_html()

    @cached_property
    def static(self) -> Subgraph:
        """What the static picture shows: the drawing, cut further to ``static_max_nodes``."""
        return self.subgraph.capped(
            self.options.static_max_nodes,
            2 * self.options.static_max_nodes,
            reason="static picture for saved notebooks; the interactive graph shows more",
        )

    def iframe(self) -> str:
        """The document in a sandboxed ``srcdoc`` iframe, escaped as an attribute value.

        ``sandbox`` without ``allow-same-origin`` gives the viewer an opaque origin: its scripts
        run, but nothing in it can reach the notebook page (or the kernel) around it.
        """
        return (
            f'<iframe sandbox="allow-scripts allow-downloads allow-popups" srcdoc="{html.escape(self.document, quote=True)}" width="100%" '
            f'height="{int(self.options.graph_height) + 10}" frameborder="0" '
            'style="border:1px solid #ddd;border-radius:4px;" title="GestaltDB graph"></iframe>'
        )

    def svg(self, *, width: int = 900, height: int | None = None) -> str:
        """A static SVG picture of ``static`` (gestaltdb.viz's SVG export), whatever the renderer."""
        from . import viz

        figure = self.figure if self.static is self.subgraph else viz.figure(self.static, self.options)
        return figure.as_svg(width=width, height=height or self.options.graph_height, layout="circle")


def render(subgraph: Subgraph, options: Settings | None = None, **overrides: Any) -> Drawing:
    """Cap ``subgraph`` to the drawing limits and prepare it for the chosen renderer."""
    chosen = (options or default_settings).with_overrides(**overrides)
    return Drawing(subgraph.capped(chosen.max_nodes, chosen.max_edges), chosen)


def display_properties(properties: dict[str, Any]) -> dict[str, Any]:
    """Properties as a person should read them: temporal maps become ISO-8601 text."""
    return {key: _display_value(value) for key, value in properties.items()}


def _display_value(value: Any) -> Any:
    if values.is_temporal(value):
        return values.readable_temporal(value)
    if isinstance(value, list):
        return [_display_value(item) for item in value]
    if isinstance(value, dict):
        return {key: _display_value(item) for key, item in value.items()}
    return value


def caption(node_id: str, properties: dict[str, Any], caption_property: str) -> str:
    value = properties.get(caption_property)
    return node_id if value is None else str(value)
