"""Arguments checked against their annotations where a person calls us: one ``GestaltError`` line naming the argument.

``@checked`` on a public function (or ``checked_methods`` on a class) compares each argument with its
annotation as written — ``int``, ``float``, ``bool``, ``str``, ``list[str]``, ``dict``, and their unions with
``None`` — before the body runs, so ``limit="x"``, ``drill(1.5)``, ``alias=[]`` or ``write="yes"`` get
"``limit`` must be a whole number, not 'x'" instead of a raw ``TypeError`` deep inside, or a silent coercion
(``True`` is not a number here, ``1.5`` not a whole one, ``NaN`` not a number at all). Annotations it does not
know (``Any``, a class, a callable) are the body's to check. Ranges (at least 1, a known group) stay with the
body: :func:`whole` is the one way to say them.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import os
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from .errors import GestaltError

F = TypeVar("F", bound=Callable[..., Any])

#: What each annotation accepts, in words for the error line.
WORDS = {"int": "a whole number", "float": "a number", "bool": "True or False", "str": "text", "list[str]": "a list of text",
         "dict": "a dict", "None": "None", "path": "a path"}


def _bool(value: Any) -> bool:
    kind = type(value)
    return isinstance(value, bool) or kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_")  # numpy's, unimported


def _integer(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not _bool(value)  # numpy's integers are Integral too


def _number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not _bool(value) and not math.isnan(value)


ACCEPTS: dict[str, Callable[[Any], bool]] = {
    "int": _integer,
    "float": _number,
    "bool": _bool,
    "str": lambda value: isinstance(value, str),
    "list[str]": lambda value: isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value),
    "dict": lambda value: isinstance(value, Mapping),
    "None": lambda value: value is None,
    "path": lambda value: isinstance(value, os.PathLike),
}


def kinds(annotation: Any) -> tuple[str, ...] | None:
    """The kinds an annotation names (``"int | None"`` → ``("int", "None")``); None when one of them is not checked here."""
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", None) or str(annotation)
    annotated = re.fullmatch(r"(?:typing\.)?Annotated\[(\w+),.*\]", text)  # pydantic's ``Annotated[int, Ge(ge=1)]``: an int
    text = annotated.group(1) if annotated else text
    found = []
    for part in (piece.strip() for piece in text.split("|")):
        part = "dict" if part.startswith("dict[") else "list[str]" if part in ("list[str]", "Sequence[str]", "tuple[str, ...]") else part
        if part not in ACCEPTS:
            return None
        found.append(part)
    return tuple(found)


def check(value: Any, name: str, accepted: tuple[str, ...], where: str = "") -> None:
    """Raise one ``GestaltError`` line when ``value`` is none of the ``accepted`` kinds."""
    if any(ACCEPTS[kind](value) for kind in accepted):
        return
    words = " or ".join(WORDS[kind] for kind in accepted)
    raise GestaltError(f"{where}{name} must be {words}, not {value!r}.")


def whole(value: Any, name: str, low: int = 0) -> int:
    """A whole-number argument of at least ``low`` (a float, a bool or text is refused, never coerced)."""
    if not _integer(value) or value < low:
        raise GestaltError(f"{name} must be a whole number of at least {low}, not {value!r}.")
    return int(value)


def positive(value: Any, name: str) -> int:
    """A whole number of at least 1 (numpy's too; a bool, a float or text is refused, never coerced)."""
    if not _integer(value) or value < 1:
        raise GestaltError(f"{name} must be a positive whole number, not {value!r}.")
    return int(value)


def checked(function: F) -> F:
    """``function`` with its arguments checked against their annotations first (see the module's docstring)."""
    signature = inspect.signature(function)
    rules = {name: found + ("path",) * (name == "path" and "str" in found)  # a path: text or a pathlib.Path
             for name, parameter in signature.parameters.items() if (found := kinds(parameter.annotation))}
    if not rules:
        return function
    where = f"{function.__name__}: "

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:  # a missing or unknown argument: the same words as Python's, as one line
            raise GestaltError(f"{where}{exc}.") from None
        for name, value in bound.arguments.items():
            if name in rules:
                check(value, name, rules[name], where)
        try:
            return function(*args, **kwargs)
        except ValueError as exc:
            if type(exc).__name__ != "ValidationError":  # pydantic's: a keyword a made model refused (a toolkit's max_rows=0)
                raise
            raise one_line(exc, function.__name__) from None

    call.__gestalt_checked__ = True  # type: ignore[attr-defined]  # the walker test (tests/test_bad_inputs.py) looks for it
    return call  # type: ignore[return-value]  # the same signature, by functools.wraps


def checked_methods(cls: type) -> type:
    """Check the arguments of every public method ``cls`` defines itself."""
    for name, member in list(vars(cls).items()):
        if not name.startswith("_") and inspect.isfunction(member):
            setattr(cls, name, checked(member))
    return cls


def one_line(exc: Exception, where: str) -> GestaltError:
    """pydantic's ``ValidationError`` (the adapter's toolkits check their keywords with it) as one line naming the
    argument: ``toolkit: max_rows must be greater than or equal to 1, not 0.``"""
    errors = getattr(exc, "errors", None)
    first = errors()[0] if callable(errors) and errors() else {}
    name = ".".join(str(part) for part in first.get("loc", ()))
    said = str(first.get("msg", exc)).replace("Input should be", "must be").replace("Value error, ", "").rstrip(".")
    if not name:  # the model's own rule over several keywords: its words, not the whole input
        return GestaltError(f"{where}: {said[:1].lower()}{said[1:]}.")
    value = f", not {first['input']!r}" if "input" in first else ""
    return GestaltError(f"{where}: {name} {said[:1].lower()}{said[1:]}{value}.")
