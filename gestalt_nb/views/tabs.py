"""``TabbedView``: a tab widget where widgets run, static HTML and text everywhere else.

A subclass supplies ``tabs()`` (title → HTML, in order), ``static_html()`` and ``text()``. The
MIME bundle carries all three, so JupyterLab draws the live widget, while nbconvert, untrusted
notebooks and plain IPython fall back to the static HTML or the text summary.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from ..options import settings
from ..render import Drawing, render
from ..subgraph import Subgraph


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


class TabbedView:
    def __init__(self, **overrides: Any) -> None:
        self.options = settings.with_overrides(**overrides)

    def graph(self) -> Subgraph:
        """The subgraph this view draws."""
        raise NotImplementedError

    @cached_property
    def drawing(self) -> Drawing:
        return render(self.graph(), self.options)

    def tabs(self) -> list[tuple[str, str]]:
        raise NotImplementedError

    def static_html(self) -> str:
        raise NotImplementedError

    def text(self) -> str:
        raise NotImplementedError

    @cached_property
    def widget(self):
        """Tabs whose content is sent when first shown: a graph iframe laid out in a hidden tab
        gets zero size (and no useful layout), so only the visible tab is filled up front."""
        import ipywidgets as widgets

        pages = self.tabs()
        children = [widgets.HTML(value=body if number == 0 else "") for number, (_, body) in enumerate(pages)]
        tab = widgets.Tab(children=children)
        tab.titles = tuple(title for title, _ in pages)
        tab.selected_index = 0

        def fill(change: dict[str, Any]) -> None:
            number = change["new"]
            if number is not None and not children[number].value:
                children[number].value = pages[number][1]

        tab.observe(fill, names="selected_index")
        return tab

    @property
    def tab_titles(self) -> list[str]:
        return [title for title, _ in self.tabs()]

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return widget_bundle(self.widget, self.static_html(), self.text())
