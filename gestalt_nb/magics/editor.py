"""The Cypher editor's comm (js/labextension): registered with the magics, answered by ``cypher.lint``.

Here because it needs what only this layer may use: the current connection (the session's
registry) and the ``%gcypher`` line splitter of the magic's command line.
"""

from __future__ import annotations

from typing import Any

from ..cypher.lint import register_comm
from ..errors import GestaltError
from ..session import REGISTRY
from .cypher_args import split_line


def connection_for(alias: str | None) -> Any:
    """The connection a cell would use, or None when there is none (the editor then only parses)."""
    try:
        return REGISTRY.get(alias)
    except GestaltError:
        return None


def register(shell: Any) -> bool:
    """The comm target ``gestalt_nb.editor`` in the shell's kernel (False without a kernel)."""
    return register_comm(shell, connection_for, split_line)
