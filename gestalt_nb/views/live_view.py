"""The view of a ``Live`` result: a status line (when it last refreshed), a Stop button, the canvas."""

from __future__ import annotations

from typing import Any

from .. import display
from ..feed.live import Live
from ..graph.subgraph import Subgraph
from ..render import render
from . import html as h
from .tabs import Page, TabbedView


class LiveView(TabbedView):
    def __init__(self, live: Live, **overrides: Any) -> None:
        self.live = live
        super().__init__(**overrides)
        self.status = None
        self.stop_button = None

    def graph(self) -> Subgraph:
        return self.live.subgraph

    def connection(self):
        connection = self.live.connection
        return lambda: connection if not connection.closed else None

    def page(self) -> Any:
        import ipywidgets as widgets

        self.status = widgets.Label(value=self.live.status())
        self.stop_button = widgets.Button(description="Stop", tooltip="Stop following changes", disabled=self.live.stopped)
        self.stop_button.on_click(lambda _button: self.live.stop())
        self.live.on_refresh(self._refreshed)
        header = widgets.HBox([self.stop_button, self.status])
        return widgets.VBox([header, self.drawing.widget()])

    def _refreshed(self, live: Live) -> None:
        if self.status is not None:
            self.status.value = live.status()
        if self.stop_button is not None and live.stopped:
            self.stop_button.disabled = True
            self.stop_button.description = "Stopped"
        self._repicture()

    def _repicture(self) -> None:
        """Redraw the picture shown in a kernel from the result just re-run (the status line and graph it reads).

        A page that draws the canvas reports its own picture after each change too; where none does (nbclient,
        the docs site, ``nbconvert --execute``), this one is what the saved notebook keeps.
        """
        if "_display_id" not in self.__dict__ or display.kernel_shell() is None or self.closed:
            return  # not shown in a kernel yet: its first picture is drawn when it is
        from IPython.display import update_display

        update_display(self.picture(), raw=True, display_id=self._display_id)

    def tabs(self) -> list[tuple[str, Page]]:
        return [("Live", self.page)]

    def static_html(self) -> str:
        parts = [f"<div><b>{h.esc(self.live.status())}</b></div>", f"<pre>{h.esc(self.live.query)}</pre>"]
        if self.live.subgraph:
            parts.append(h.svg_image(self._svg(), alt=f"graph: {self.live.subgraph.summary()}"))
        return "".join(parts)

    def _svg(self) -> str:
        """What the page last showed, once it has reported; else the live result as it is now, laid out here
        (the drawing's own static picture is of the result the view began with)."""
        canvas = self.drawing.__dict__.get("canvas")
        if canvas is not None and getattr(canvas, "shown", None) is not None:
            return self.drawing.svg()
        return render(self.live.subgraph, self.options).svg()

    def text(self) -> str:
        return repr(self.live)

    def close(self) -> None:
        self.live.stop()
        super().close()
