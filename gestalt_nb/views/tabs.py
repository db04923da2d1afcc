"""``TabbedView``: a tab widget where widgets run, static HTML and text everywhere else.

A subclass supplies ``tabs()`` (title → a function making that page: HTML text or a widget, in
order), ``static_html()`` and ``text()``. Pages are made when first shown, so a view costs only
what the person looks at, and a graph is never laid out in a hidden tab. The MIME bundle carries
the widget, the static HTML and the text, so JupyterLab draws the live widget, while nbconvert,
untrusted notebooks and plain IPython fall back to the static HTML or the text summary.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from functools import cached_property
from typing import Any

from .. import display, outputs
from ..graph.subgraph import Subgraph
from ..options import settings
from ..render import Drawing, render

Page = Callable[[], Any]


def widget_bundle(widget: Any, html: str, text: str) -> dict[str, Any]:
    """The MIME bundle of every view: the live widget first, then static HTML, then text.

    Only the widget's model id is needed; the widget's own bundle would also build its (large,
    unused) text repr.
    """
    return {
        "application/vnd.jupyter.widget-view+json": {"version_major": 2, "version_minor": 0, "model_id": widget.model_id},
        "text/html": html,
        "text/plain": text,
    }


def as_widget(content: Any) -> Any:
    import ipywidgets as widgets

    return widgets.HTML(value=content) if isinstance(content, str) else content


class View:
    """What every widget view shares: options, closing, and being released when its cell re-runs."""

    def __init__(self, **overrides: Any) -> None:
        self.options = settings.with_overrides(**overrides)

    def close(self) -> None:
        """Close this view's widgets (their models leave the page and the kernel)."""
        widget = self.__dict__.pop("widget", None)
        if widget is not None:
            _close_tree(widget)
        self._closed = True

    @property
    def closed(self) -> bool:
        return getattr(self, "_closed", False)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        display.displayed(self)
        return self.bundle()

    def bundle(self) -> dict[str, Any]:
        return widget_bundle(self.widget, self.static_html(), self.text())

    def canvases(self) -> list[Any]:
        """The graph canvases this view has made so far (their page reports redraw the static picture)."""
        return []

    def _ipython_display_(self) -> None:
        """Shown in a kernel as two outputs, the picture (under a display id) and the live widget (``outputs.py``).

        The page shows the live output once it has drawn and the picture everywhere else (nbconvert, a
        reopened notebook whose kernel lost the model). Each time the page reports a new picture (after
        it settles and after each change), the picture's output is updated with a static picture drawn
        from the page's own positions, sizes and colours, so the saved notebook shows what the person saw;
        the live output is left as it is. Outside a kernel, one output (text in a terminal).
        """
        from IPython.display import display as show_output

        display.displayed(self)
        if display.kernel_shell() is None:  # plain IPython shows text: one output
            show_output(self.bundle(), raw=True, display_id=self._display_id)
        else:
            widget = self.widget
            if not any(_holds(widget, canvas) for canvas in self.canvases()):
                widget.add_class(outputs.LIVE)  # no canvas shown: the rendered widget is what replaces the picture
            outputs.show(widget, self.picture(), self._display_id)
        following = self.__dict__.setdefault("_following", set())
        for canvas in self.canvases():
            if id(canvas) not in following:
                following.add(id(canvas))
                canvas.on_shown(self._page_showed)

    def _display_(self) -> Any:
        """marimo's display hook (marimo runs anywidgets, not ipywidgets' tabs): the live graph canvas above
        the static tables, or the static view when there is no graph to draw (docs/guide/frontends.md)."""
        import marimo as mo  # only marimo calls this, so it is imported already

        display.displayed(self)
        canvas = self.canvases()[0] if self.canvases() else self._marimo_canvas()
        if canvas is None:
            return mo.Html(self.static_html())
        return mo.vstack([mo.ui.anywidget(canvas), mo.Html(self.text_html())])

    def _marimo_canvas(self) -> Any:
        """The canvas to show in marimo, made now (None for a view without a graph or with another renderer)."""
        return None

    def text_html(self) -> str:
        """The view's text summary as a <pre> block (shown under the canvas in marimo)."""
        import html

        return f"<pre>{html.escape(self.text())}</pre>"

    @cached_property
    def _display_id(self) -> str:
        return uuid.uuid4().hex

    def _page_showed(self, _canvas: Any) -> None:
        if self.closed:
            return
        from IPython.display import update_display

        shown = self.picture() if display.kernel_shell() is not None else self.bundle()
        update_display(shown, raw=True, display_id=self._display_id)

    def picture(self) -> dict[str, Any]:
        """The picture's output (``outputs.py``): static HTML and text, followed by the live widget's own output."""
        return outputs.picture_bundle(self.static_html(), self.text())


def _holds(widget: Any, inner: Any) -> bool:
    """Whether ``inner`` is ``widget`` or among its children, at any depth (the pages made so far)."""
    return widget is inner or any(_holds(child, inner) for child in getattr(widget, "children", ()))


def _close_tree(widget: Any) -> None:
    for child in getattr(widget, "children", ()):
        _close_tree(child)
    widget.close()


class TabbedView(View):
    def graph(self) -> Subgraph:
        """The subgraph this view draws."""
        raise NotImplementedError

    def connection(self) -> Callable[[], Any] | None:
        """A function giving the connection this view's nodes come from (double-click expands)."""
        return None

    @cached_property
    def drawing(self) -> Drawing:
        return render(self.graph(), self.options, connection=self.connection())

    @property
    def canvas(self):
        """The graph canvas this view displays (the same widget object)."""
        return self.drawing.canvas

    def canvases(self) -> list[Any]:
        drawing = self.__dict__.get("drawing")
        return [drawing.canvas] if drawing is not None and "canvas" in drawing.__dict__ else []

    def _marimo_canvas(self) -> Any:
        graph = self.graph()
        return self.canvas if graph and self.options.renderer == "canvas" else None

    def tabs(self) -> list[tuple[str, Page]]:
        raise NotImplementedError

    def static_html(self) -> str:
        raise NotImplementedError

    def text(self) -> str:
        raise NotImplementedError

    @cached_property
    def widget(self):
        """Tabs whose pages are made when first shown (only the first one up front)."""
        import ipywidgets as widgets

        pages = self.tabs()
        if len(pages) == 1:
            return as_widget(pages[0][1]())
        children = [as_widget(pages[0][1]())] + [widgets.Box() for _ in pages[1:]]
        tab = widgets.Tab(children=children)
        tab.titles = tuple(title for title, _ in pages)
        tab.selected_index = 0

        def fill(change: dict[str, Any]) -> None:
            number = change["new"]
            if number and not children[number].children:
                children[number].children = (as_widget(pages[number][1]()),)

        tab.observe(fill, names="selected_index")
        return tab

    @property
    def tab_titles(self) -> list[str]:
        return [title for title, _ in self.tabs()]

    def close(self) -> None:
        super().close()
        if "drawing" in self.__dict__ and "canvas" in self.drawing.__dict__:
            self.drawing.canvas.close()
