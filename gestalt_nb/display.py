"""Results display as their view, and views are released when the cell that showed them runs again.

Results know nothing of views: ``view_for`` finds a result's view class in ``VIEWS``, which
``gestalt_nb.views`` fills when it is imported. The package (``gestalt_nb/__init__.py``) sets
``load_views``, so this bottom layer never imports the drawing side and ``import gestalt_nb`` stays
light (the widget stack loads on the first display).
A result keeps one default view (``.view``, also what ``.canvas`` belongs to), made on first use;
``show(**options)`` makes a new one with per-call options. What a read no longer needs once it is
converted (the engine's records) is freed after the cell, not before its output (``free_after_cell``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .checks import checked_methods

#: result type → its view class (or a factory); filled by ``gestalt_nb.views``.
VIEWS: dict[type, Callable[..., Any]] = {}
#: Imports the views (set by the package); called once, on the first display.
load_views: Callable[[], Any] | None = None
#: cell id → the views its last run displayed (closed when that cell runs again).
_by_cell: dict[str, list[Any]] = {}
_current_cell: str | None = None
#: What the running cell's last read no longer needs, freed when the cell has finished (``free_after_cell``).
_unneeded: list[Any] = []
#: True once ``after_cell`` is a ``post_run_cell`` hook of the shell (``%load_ext``).
_after_cell_hooked = False


def kernel_shell() -> Any:
    """The IPython shell when running in a kernel (where progress bars are widgets: loads, extraction, the overview), else None."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    return shell if shell is not None and type(shell).__name__ == "ZMQInteractiveShell" else None


def view_for(value: Any, **options: Any) -> Any:
    if not VIEWS and load_views is not None:
        load_views()
    for kind in type(value).__mro__:
        if kind in VIEWS:
            return VIEWS[kind](value, **options)
    raise TypeError(f"Nothing to show for a {type(value).__name__}.")


@checked_methods
class Displayable:
    """A result that displays as its view (``.view``, ``.show()``, ``.canvas``, ``.to_html()``).

    ("Shown" is the canvas's word for what the page reports it draws: ``canvas.snapshot.Shown``.)
    """

    def show(self, **options: Any) -> Any:
        """The view of this result; options override the settings for this view only."""
        return view_for(self, **{**getattr(self, "view_options", {}), **options})

    @property
    def view(self) -> Any:
        view = self.__dict__.get("_view")
        if view is None or getattr(view, "closed", False):
            view = self.__dict__["_view"] = self.show()
        return view

    @property
    def canvas(self) -> Any:
        """The canvas of this result's view (the widget that is displayed)."""
        return self.view.canvas

    def to_html(self, path: str | None = None) -> str:
        """A standalone offline HTML page of this result's graph (gestaltdb.viz); written to ``path`` if given."""
        return self.view.drawing.to_html(path)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return self.view._repr_mimebundle_(include, exclude)

    def _ipython_display_(self) -> None:
        """IPython shows a result through its view, under a display id (see ``View._ipython_display_``)."""
        self.view._ipython_display_()

    def _display_(self) -> Any:
        """marimo shows a result through its view too (see ``View._display_``)."""
        return self.view._display_()


def displayed(view: Any) -> None:
    """Remember that ``view`` was displayed by the cell now running."""
    if _current_cell is None:
        return
    cells = view.__dict__.setdefault("_shown_in", set())
    cells.add(_current_cell)
    views = _by_cell.setdefault(_current_cell, [])
    if not any(item is view for item in views):
        views.append(view)


def before_cell(info: Any) -> None:
    """IPython ``pre_run_cell``: a cell that runs again releases the widgets it alone showed last time."""
    global _current_cell
    _current_cell = getattr(info, "cell_id", None)
    if _current_cell is None:
        return
    for view in _by_cell.pop(_current_cell, []):
        cells = view.__dict__.get("_shown_in", set())
        cells.discard(_current_cell)
        if cells:
            continue  # still shown by another cell's output
        try:
            view.close()
        except Exception:
            pass


def free_after_cell(value: Any) -> None:
    """Free ``value`` when the running cell has finished rather than now.

    Freeing a read's engine records (tens of thousands of objects) takes ~14 ms at 20,000 rows, time the
    cell's output would otherwise wait for. Only the latest value is kept (a loop of reads in one cell
    holds one), and only in a shell with the ``post_run_cell`` hook; elsewhere it is freed as usual.
    """
    if _after_cell_hooked:
        _unneeded[:] = [value]


def after_cell(result: Any = None) -> None:
    """IPython ``post_run_cell``: free what the cell's last read no longer needs (its output is out)."""
    _unneeded.clear()
