"""What every magic shares: an argument parser that reports problems as ``GestaltError``, one-line
errors, and ``-o VAR`` / ``-P EXPR`` / evaluating a name in the person's namespace."""

from __future__ import annotations

import argparse
import functools
import shlex
from collections.abc import Mapping
from typing import Any, NoReturn

from IPython.core.error import UsageError

from ..errors import GestaltError
from ..options import settings
from ..session import REGISTRY


class Parser(argparse.ArgumentParser):
    """argparse that reports problems as GestaltError instead of exiting."""

    def error(self, message: str) -> NoReturn:
        raise GestaltError(f"{message}\n{self.format_usage().strip()}")

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        raise GestaltError(message or self.format_help())


def user_errors(method):
    """Show GestaltError as a one-line UsageError (no traceback) when short_errors is on."""

    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        try:
            return method(*args, **kwargs)
        except GestaltError as exc:
            if settings.short_errors:
                raise UsageError(str(exc)) from None
            raise

    return wrapper


def words(line: str) -> list[str]:
    """A magic line's words, as a shell splits them; a ``#`` that starts a word outside quotes starts a comment,
    as in a Python line (``%gestalt demo  # build the demo graph``)."""
    try:
        return shlex.split(line, comments=True)
    except ValueError as exc:
        raise GestaltError(f"Cannot read the arguments: {exc}.") from exc


class MagicBase:
    """Helpers the capability mixins of ``GestaltMagic`` share.

    What the mixins use of the magic is declared here: ``shell``, IPython's shell (set by ``Magics``).
    """

    shell: Any

    def _evaluate(self, expression: str, where: str) -> Any:
        try:
            return eval(expression, self.shell.user_ns)
        except Exception as exc:
            raise GestaltError(f"{where}: cannot evaluate {expression!r}: {type(exc).__name__}: {exc}") from exc

    def _keep(self, result: Any, out: str | None) -> Any:
        REGISTRY.last_result = result
        if out:
            self._store(out, result)
        return result

    def _store(self, out: str, value: Any) -> None:
        if not out.isidentifier():
            raise GestaltError(f"-o needs a Python variable name, not {out!r}.")
        self.shell.user_ns[out] = value

    def _params(self, expression: str) -> dict[str, Any]:
        value = self._evaluate(expression, "-P")
        if not isinstance(value, Mapping) or not all(isinstance(key, str) for key in value):
            raise GestaltError(
                f"-P must give a dict with string keys; {expression} gave a {type(value).__name__}. "
                f"E.g. -P {{'name': 'Ada'}} or -P NAME_OF_A_DICT."
            )
        return dict(value)
