"""The render layer: ``Subgraph`` → a drawing (the interactive canvas, or an HTML document, + static SVG).

``render`` caps the subgraph (the only place drawing drops elements), picks the renderer named in
the settings and returns a :class:`Drawing`. Views show ``Drawing.widget()``: the canvas (default)
or, for ``gestaltdb``/``pyvis``, a sandboxed iframe. Saved notebooks and non-JavaScript frontends
use ``Drawing.svg()``. Renderers receive display-ready properties (temporal values as ISO text)
and must escape everything they put into markup themselves.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..checks import checked
from ..graph.subgraph import Subgraph
from ..options import Colour, Layout, Settings, Size
from ..options import settings as default_settings
from .picture import picture_svg, static_cut


@dataclass
class Drawing:
    """One rendered subgraph (already capped) and how to show it.

    ``counts`` are the sizes before capping (the canvas says "4 of 17 nodes"); ``connection`` is
    a function returning the connection the nodes come from (or None), which lets a
    double-click expand a node from the database.
    """

    subgraph: Subgraph
    options: Settings
    counts: dict[str, int] | None = None
    connection: Callable[[], Any] | None = None

    @cached_property
    def canvas(self):
        """The interactive canvas of this drawing (made on first use)."""
        from ..canvas import GraphCanvas  # deferred: keeps %load_ext light
        from ..canvas.expand import DatabaseExpander  # deferred: keeps %load_ext light

        return GraphCanvas(
            self.subgraph,
            caption_property=self.options.caption_property,
            height=self.options.graph_height,
            max_nodes=self.options.max_nodes,
            max_edges=self.options.max_edges,
            counts=self.counts,
            expander=DatabaseExpander(self.connection) if self.connection is not None else None,
            color=self.options.color,
            size=self.options.size,
            layout=self.options.layout,
        )

    def widget(self):
        """What a view puts in its Graph tab: the canvas, or an HTML widget holding the iframe."""
        if self.options.renderer == "canvas":
            return self.canvas
        import ipywidgets

        from ..views import html as h  # deferred: keeps %load_ext light

        return ipywidgets.HTML(h.banner(self.subgraph.notes) + self.iframe())

    def to_html(self, path: str | None = None) -> str:
        """A standalone offline HTML page of this drawing (gestaltdb.viz); written to ``path`` if given."""
        page = self.figure.as_html()
        if path is not None:
            from pathlib import Path

            Path(path).write_text(page, encoding="utf-8")
        return page

    @cached_property
    def figure(self):
        """The gestaltdb.viz figure (interactive document and SVG share it)."""
        from . import viz  # deferred: keeps %load_ext light

        return viz.figure(self.subgraph, self.options)

    @cached_property
    def document(self) -> str:
        """A complete, offline HTML document for the iframe renderers (gestaltdb.viz by default)."""
        if self.options.renderer == "pyvis":
            from . import pyvis  # deferred: keeps %load_ext light

            return pyvis.document(self.subgraph, self.options)
        return self.figure.as_html()

    @cached_property
    def static(self) -> Subgraph:
        """What the static picture shows: the drawing, cut further to ``static_max_nodes``."""
        return static_cut(self.subgraph, self.options.static_max_nodes)

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

    @cached_property
    def _svg(self) -> str:
        from .static_svg import svg  # deferred: keeps %load_ext light

        return svg(self.static, caption_property=self.options.caption_property, height=min(self.options.graph_height, 480))

    def svg(self) -> str:
        """A compact static SVG picture, whatever the renderer: what the page last showed of the canvas
        (its positions, sizes and colours) once a page has reported, else ``static`` laid out here (made once)."""
        return picture_svg(self.__dict__.get("canvas"), self.options.caption_property, lambda: self._svg)


@checked  # the keywords checked against their annotations (checks.py), as every public call's are
def render(
        subgraph: Subgraph, options: Settings | None = None, *, connection: Callable[[], Any] | None = None,
        row_limit: int | None = None, display_limit: int | None = None, renderer: str | None = None, caption_property: str | None = None,
        graph_height: int | None = None, max_nodes: int | None = None, max_edges: int | None = None, color: Colour | str | None = None,
        size: Size | str | None = None, layout: Layout | str | None = None, static_max_nodes: int | None = None, json_max_chars: int | None = None,
        short_errors: bool | None = None, map_size: str | None = None, warn_slow: bool | None = None, rewrite_untyped: bool | None = None,
        rewrite_far_end: bool | None = None, timeout: float | None = None, memory_limit: str | None = None, tool_timeout: float | None = None,
        tool_memory_limit: str | None = None, caption: str | None = None,
) -> Drawing:
    """Cap ``subgraph`` to the drawing limits and prepare it for the chosen renderer: the one way to a drawing.

    Every keyword after ``connection`` is a setting of the same name (``gestalt_nb.settings``, ``%config
    GestaltMagic.<name>``; ``tests/test_signatures.py`` checks the list) and overrides it for this drawing; None,
    the default, keeps the setting (or ``options``' value).

    Parameters
    ----------
    subgraph : Subgraph
        The nodes and relationships to draw; it is not changed (the drawing holds a capped copy).
    options : Settings, optional
        The settings to start from; ``gestalt_nb.settings`` by default.
    connection : callable, optional
        A function returning the connection the nodes come from, so a double-click expands a node from the database.
    renderer : str, optional
        ``"canvas"`` (the interactive canvas), ``"gestaltdb"`` (gestaltdb.viz in an iframe) or ``"pyvis"``.
    color, size, layout : str, optional
        Node colour (``"label"``, ``"community"`` or a property), node size (``"degree"``, ``"pagerank"``, … or a
        numeric property) and the canvas layout (``"force"``, ``"grid"``, ``"radial:root=ID"``, …).
    caption_property, caption : str, optional
        The node property each node's caption is read from (``caption`` is a shorter name for the same).
    max_nodes, max_edges, graph_height : int, optional
        Nodes and relationships kept before the drawing is cut (it says so), and its height in pixels.
    static_max_nodes : int, optional
        Nodes in the static SVG picture (``Drawing.svg()``) kept for saved notebooks.
    row_limit, display_limit, json_max_chars : int, optional
        Kept in the drawing's options for the views around it; they do not change the drawing.
    short_errors, warn_slow, rewrite_untyped, rewrite_far_end, map_size, timeout, memory_limit, tool_timeout, tool_memory_limit : optional
        Accepted as every setting is (queries' and agents' settings); they do not change a drawing.

    Returns
    -------
    Drawing
        The capped subgraph and its options: ``.widget()`` (the canvas), ``.svg()``, ``.to_html(path)``.

    Examples
    --------
    >>> subgraph = gestalt_nb.query_subgraph("Alice Chen", max_hops=2).subgraph
    >>> gestalt_nb.render(subgraph, layout="radial:root=alice", max_nodes=50).to_html("alice.html")
    """
    given = {name: value for name, value in locals().items() if name not in ("subgraph", "options", "connection")}  # the overrides
    chosen = (options or default_settings).with_overrides(**given)
    counts = {"nodes": len(subgraph.nodes), "edges": len(subgraph.edges)}
    return Drawing(subgraph.capped(chosen.max_nodes, chosen.max_edges), chosen, counts, connection)
