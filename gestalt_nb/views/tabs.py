"""``TabbedView``: a tab widget where widgets run, static HTML and text everywhere else.

A subclass supplies ``tabs()`` (title → HTML, in order), ``static_html()`` and ``text()``. The
MIME bundle carries all three, so JupyterLab draws the live widget, while nbconvert, untrusted
notebooks and plain IPython fall back to the static HTML or the text summary.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any


class TabbedView:
    def tabs(self) -> list[tuple[str, str]]:
        raise NotImplementedError

    def static_html(self) -> str:
        raise NotImplementedError

    def text(self) -> str:
        raise NotImplementedError

    @cached_property
    def widget(self):
        import ipywidgets as widgets

        pages = self.tabs()
        tab = widgets.Tab(children=[widgets.HTML(value=body) for _, body in pages])
        tab.titles = tuple(title for title, _ in pages)
        tab.selected_index = 0
        return tab

    @property
    def tab_titles(self) -> list[str]:
        return [title for title, _ in self.tabs()]

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        # The widget's own bundle would also build its (large, unused) text repr; the view needs only the id.
        return {
            "application/vnd.jupyter.widget-view+json": {
                "version_major": 2,
                "version_minor": 0,
                "model_id": self.widget.model_id,
            },
            "text/html": self.static_html(),
            "text/plain": self.text(),
        }
