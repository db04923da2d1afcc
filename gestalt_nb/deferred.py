"""Names whose module is imported on first use, so ``import gestalt_nb`` and ``%load_ext`` stay light.

``%load_ext gestalt_nb`` must not import GestaltDB (its Cypher parser takes ~0.9 s to build) nor
LangChain (langsmith ~0.7 s); those load when a database is first opened or a query first runs.
(A connection's own capabilities are written out in ``capabilities.py``, each importing its function
on first use.) Two tools keep that true without wrappers that hide a function's parameters:

- :func:`hands_keywords_to`, for a method ``body(self, **options)`` that hands its keywords to a class it
  does not own (the adapter's toolkits, ``GestaltStore``): it shows that class's keyword parameters;
- :func:`lazy_module_names`, a PEP 562 ``__getattr__`` / ``__dir__`` pair over a table of names.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable, Sequence
from types import MethodType
from typing import Any

from .checks import check, kinds, one_line

PACKAGE = __name__.rpartition(".")[0]


def load(module: str, name: str) -> Any:
    """``gestalt_nb.<module>.<name>``, importing the module if it is not yet imported."""
    return getattr(importlib.import_module(f"{PACKAGE}.{module}"), name)


class HandsKeywordsOn:
    """A method whose keywords go to ``gestalt_nb.<module>.<name>``; its signature shows that callable's.

    The signature is made when first asked for (``help()``, ``inspect.signature``, Shift+Tab), so
    declaring the method imports nothing; the parameters in ``drop`` are the ones the body fills in.
    """

    def __init__(self, body: Callable[..., Any], module: str, name: str, drop: Sequence[str]) -> None:
        functools.update_wrapper(self, body)
        self.module, self.name, self.drop = module, name, tuple(drop)

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        return self if instance is None else MethodType(self, instance)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        for name, parameter in self.__signature__.parameters.items():  # the keywords it hands on, checked as ours are
            if name in kwargs and (accepted := kinds(parameter.annotation)):
                check(kwargs[name], name, accepted, f"{self.__name__}: ")
        try:
            return self.__wrapped__(*args, **kwargs)
        except ValueError as exc:
            if type(exc).__name__ != "ValidationError":  # pydantic's: the keywords a toolkit's model refused
                raise
            raise one_line(exc, self.__name__) from None

    @functools.cached_property
    def __signature__(self) -> inspect.Signature:
        own = inspect.signature(self.__wrapped__)
        named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        kept = [p for p in own.parameters.values() if p.kind in named]
        taken = inspect.signature(load(self.module, self.name)).parameters.values()
        keywords = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in taken if p.kind in named and p.name not in {*self.drop, *own.parameters}]
        return own.replace(parameters=[*kept, *keywords])


def hands_keywords_to(module: str, name: str, *, drop: Sequence[str] = ()) -> Callable[[Callable[..., Any]], HandsKeywordsOn]:
    """Decorate ``body(self, **options)`` that calls ``module.name(..., **options)`` (see :class:`HandsKeywordsOn`)."""
    return lambda body: HandsKeywordsOn(body, module, name, drop)


def lazy_module_names(namespace: dict[str, Any], table: dict[str, str], wrap: Callable[[Any], Any] = lambda value: value):
    """A module's ``__getattr__`` and ``__dir__`` over ``table`` (public name → module it lives in); each function
    found is handed out as ``wrap(function)`` (the package's: arguments checked, ``checks.checked``)."""

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        value = load(module, name)
        value = namespace[name] = wrap(value) if inspect.isfunction(value) else value  # cached: the next lookup is a plain global
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(table))

    return __getattr__, __dir__
