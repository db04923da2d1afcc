"""The IPython magics, one module per capability they wrap; registration in one place (``register``).

May import everything below it. Everything a magic does is also a plain Python call.
"""

from __future__ import annotations

from typing import Any

from .. import display
from ..cypher.budget import guard_interrupts
from . import completion, editor, standing
from .magic import GestaltMagic

__all__ = ["GestaltMagic", "register"]


class _Loaded(set):
    """IPython's set of loaded extensions, in which gestalt_nb never counts as loaded.

    Loading gestalt_nb is idempotent (the magics and their settings are kept), so a notebook run
    again in the same kernel loads it again silently instead of printing "already loaded".
    """

    def __contains__(self, item: object) -> bool:
        return item != "gestalt_nb" and super().__contains__(item)


def register(shell: Any) -> None:
    """Register everything ``%load_ext gestalt_nb`` brings, once per shell; loading again keeps what %config set."""
    manager = getattr(shell, "extension_manager", None)
    if manager is not None and type(manager.loaded) is set:
        manager.loaded = _Loaded(manager.loaded)
    for callback in (guard_interrupts, display.before_cell):
        if callback not in shell.events.callbacks["pre_run_cell"]:
            shell.events.register("pre_run_cell", callback)
    if display.after_cell not in shell.events.callbacks["post_run_cell"]:
        shell.events.register("post_run_cell", display.after_cell)
    display._after_cell_hooked = True
    completion.register(shell)  # the Cypher completer, once (a reload replaces it and undoes what it silenced)
    editor.register(shell)  # the Cypher editor's comm target (replaced on a reload)
    standing.register(shell, frozenset(GestaltMagic.magics["line"]))  # a view magic mid-cell shows its view there
    if any(isinstance(item, GestaltMagic) for item in shell.configurables):
        return  # already registered: keep the magics and whatever %config set
    magics = GestaltMagic(shell=shell)
    shell.register_magics(magics)
    shell.configurables.append(magics)
