"""A widget shown in a kernel is two outputs: its picture, then its live widget; the page shows one of them.

A single output carrying the widget and its static fallback side by side shows nothing wherever the
widget cannot be drawn but its model is known: nbconvert's HTML of a notebook saved with widget state
picks the widget and drops the fallback (the widget manager it asks unpkg.com for never loads offline),
and JupyterLab and Notebook 7 reopening a trusted notebook whose kernel no longer holds the model say
"Error displaying widget: model not found". So the picture is an output of its own (static HTML and
text, kept current by ``update_display``), followed by the widget's output (the widget and one line of
text), and a style rule carried in the picture shows exactly one of them: the live output once it holds
a drawn canvas (or, for a view without a canvas, its rendered widget, marked ``gestalt-live``), the
picture otherwise — while the canvas loads, in nbconvert's HTML with or without state, after "model
not found". Every widget gestalt_nb shows goes out this way — views (``views/tabs.py``) and progress bars
(``Line``) alike: a bare widget output in a saved notebook says "model not found" once the kernel that made it
is gone or restarted (or the widget was closed), and nothing can hide it. The rule needs CSS ``:has()`` (Chromium 105, Firefox 121, Safari 15.4); where styles are
stripped (GitHub's preview) no script runs either, and the picture shows with the live output's line.
"""

from __future__ import annotations

import html as _html
import uuid
from typing import Any

#: The class of the picture's outer element (the rule finds the picture's output by it).
PICTURE = "gestalt-picture"
#: The class a view without a canvas gives its root widget: its output counts as drawn once rendered.
LIVE = "gestalt-live"
#: Output areas: JupyterLab, Notebook 7 and nbconvert's lab template; nbconvert's classic template.
_AREAS = (".jp-OutputArea-child", ".output_area")
_DRAWN = f"[data-gestalt-canvas], .{LIVE}"


def _rule() -> str:
    hidden = []
    for area in _AREAS:
        picture = f"{area}:has(.{PICTURE})"
        hidden.append(f"{picture}:has(+ {area} :is({_DRAWN}))")  # the live output drew: hide the picture
        hidden.append(f"{picture} + {area}:not(:has({_DRAWN}))")  # not (yet) drawn: hide the live output
    return ",".join(hidden) + "{display:none}"


STYLE = f"<style>{_rule()}</style>"


def picture_bundle(html: str, text: str) -> dict[str, Any]:
    """The picture's output: the view's static HTML (with the rule that picks the output to show) and its text."""
    return {"text/html": f'{STYLE}<div class="{PICTURE}">{html}</div>', "text/plain": text}


def live_bundle(widget: Any) -> dict[str, Any]:
    """The live output: the widget, and no text (where widgets do not run, the picture above says it all)."""
    return {
        "application/vnd.jupyter.widget-view+json": {"version_major": 2, "version_minor": 0, "model_id": widget.model_id},
        "text/plain": "",
    }


def show(widget: Any, picture: dict[str, Any], display_id: str) -> None:
    """Display ``picture`` (a ``picture_bundle``) under ``display_id``, then ``widget``'s live output after it."""
    from IPython.display import display

    display(picture, raw=True, display_id=display_id)
    display(live_bundle(widget), raw=True)


class Line:
    """A widget without a canvas (a progress bar) shown beside a one-line picture of what it says.

    The live widget shows while its model is in the page; the line shows wherever it is not (a saved notebook
    reopened after its kernel was restarted or gone, nbconvert, or after ``say(None)`` and closing the widget).
    The line is only re-sent by ``say``: call it when the widget says something worth keeping (the end).

    Parameters
    ----------
    widget : ipywidgets.DOMWidget
        The widget to show; it is marked ``gestalt-live`` (its rendered output replaces the line).
    line : str
        What the picture says until the next ``say``.

    Examples
    --------
    >>> shown = Line(ipywidgets.HBox([bar, label]), "nodes: 0 / 10,000 rows")  # doctest: +SKIP
    >>> shown.say("nodes: 10,000 rows in 1.2 s")  # doctest: +SKIP
    """

    def __init__(self, widget: Any, line: str) -> None:
        widget.add_class(LIVE)
        self.display_id = uuid.uuid4().hex
        show(widget, self._picture(line), self.display_id)

    def say(self, line: str | None) -> None:
        """Make the picture say ``line`` (None: nothing, for a widget about to be closed)."""
        from IPython.display import update_display

        update_display(self._picture(line), raw=True, display_id=self.display_id)

    @staticmethod
    def _picture(line: str | None) -> dict[str, Any]:
        if line is None:
            return picture_bundle("", "")
        return picture_bundle(f"<div>{_html.escape(line)}</div>", line)
