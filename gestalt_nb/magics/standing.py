"""A view magic shows its view where it stands in a cell, as ``display()`` would.

IPython shows only the value of a cell's last expression; a ``%gschema`` line in the middle of a cell
ran and its view was lost. ``ShowWhereItStands`` is an AST transformer (``shell.ast_transformers``)
that sees the cell after IPython turned each magic line into ``get_ipython().run_line_magic(...)``:
a magic line that is a bare expression statement IPython will not show — any but the cell's last
statement, and any inside a loop, ``if`` or ``with`` — is wrapped in ``shown(...)``, which displays
a gestalt-nb result or view and gives ``None`` back (so nothing shows it twice). ``x = %goverview``
(an assignment), ``%gschema -o small`` (the magic's own assignment) and a cell ending in ``%gschema``
(IPython's own display) are left as they are; a
magic that returns nothing to show (``%gestalt use``) shows nothing.
"""

from __future__ import annotations

import ast
from typing import Any

from .. import display

_SHOWN = "gestalt_nb.magics.standing"


def shown(value: Any) -> None:
    """Display ``value`` when it is a gestalt-nb result or view (what its magic line would show last in a cell)."""
    if isinstance(value, display.Displayable) or (hasattr(value, "_ipython_display_") and type(value).__module__.startswith("gestalt_nb.")):
        from IPython.display import display as show_output  # deferred: IPython is the caller here

        show_output(value)


def _magic_call(node: ast.AST, names: frozenset[str]) -> bool:
    """``get_ipython().run_line_magic('NAME', ...)`` for one of gestalt-nb's line magics."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "run_line_magic"
            and bool(node.args) and isinstance(node.args[0], ast.Constant) and node.args[0].value in names)


def _stored(call: Any) -> bool:
    """``%gschema -o small``: the magic's own spelling of ``small = %gschema`` (stored, not shown, like an assignment)."""
    line = call.args[1].value if len(call.args) > 1 and isinstance(call.args[1], ast.Constant) else ""
    return any(word in ("-o", "--out") or word.startswith("--out=") for word in str(line).split())


class ShowWhereItStands(ast.NodeTransformer):
    """Wraps each of gestalt-nb's magic lines IPython would not show in ``shown(...)`` (see the module)."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names

    def visit_Module(self, node: ast.Module) -> ast.Module:
        body = node.body
        for number, statement in enumerate(body):
            if number == len(body) - 1 and isinstance(statement, ast.Expr):
                continue  # the cell's last expression: IPython shows it
            body[number] = self.visit(statement)
        return node

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        if not _magic_call(node.value, self.names) or _stored(node.value):
            return node
        helper = ast.Call(
            func=ast.Attribute(value=ast.Call(func=ast.Name(id="__import__", ctx=ast.Load()),
                                              args=[ast.Constant(_SHOWN)], keywords=[ast.keyword(arg="fromlist", value=ast.List(elts=[ast.Constant("shown")], ctx=ast.Load()))]),
                               attr="shown", ctx=ast.Load()),
            args=[node.value], keywords=[],
        )
        return ast.copy_location(ast.Expr(value=ast.copy_location(helper, node.value)), node)

    # Functions and classes are left alone: their bodies run later, not where the cell stands.
    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return node


def register(shell: Any, names: frozenset[str]) -> None:
    """Put the transformer in ``shell.ast_transformers`` once (a reload replaces it with the current magics' names)."""
    kept = [item for item in shell.ast_transformers if type(item).__name__ != ShowWhereItStands.__name__]
    shell.ast_transformers[:] = [*kept, ShowWhereItStands(names)]
