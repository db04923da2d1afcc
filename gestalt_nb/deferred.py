"""Names whose module is imported on first use, so ``import gestalt_nb`` and ``%load_ext`` stay light.

``%load_ext gestalt_nb`` must not import GestaltDB (its Cypher parser takes ~0.9 s to build) nor
LangChain (langsmith ~0.7 s); those load when a database is first opened or a query first runs.
(A connection's capabilities and makers are written out in ``capabilities.py`` and ``makers.py``, each
importing its function or class on first use.) :func:`lazy_module_names`, a PEP 562 ``__getattr__`` /
``__dir__`` pair over a table of names, keeps it true for the package's own names without wrappers that hide
a function's parameters.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from typing import Any

PACKAGE = __name__.rpartition(".")[0]


def load(module: str, name: str) -> Any:
    """``gestalt_nb.<module>.<name>``, importing the module if it is not yet imported."""
    return getattr(importlib.import_module(f"{PACKAGE}.{module}"), name)


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
