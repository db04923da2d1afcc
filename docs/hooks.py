"""MkDocs hook: the reference pages are generated from the code, and the demo notebooks are copied in.

Runs before MkDocs collects the pages (``on_pre_build``), so what it writes is built like any page:
- ``reference/magics.md``: every magic's ``%magic?`` page (generated from its argument parser);
- ``reference/settings.md``: every ``%config GestaltMagic.<name>`` trait, its type, default and help;
- ``reference/api.md``: every public name of ``gestalt_nb`` and the methods of ``Connection``,
  ``QueryResult`` and ``GraphCanvas``, with their real signatures and docstrings;
- ``notebooks/*.ipynb``: the demo notebooks (``mkdocs-jupyter`` executes them while building).
Generated files are not committed (``.gitignore``); they cannot drift from the code.
"""

from __future__ import annotations

import inspect
import shutil
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent


def on_pre_build(config: Any, **_: Any) -> None:
    (DOCS / "reference").mkdir(exist_ok=True)
    (DOCS / "reference" / "magics.md").write_text(magics_page(), encoding="utf-8")
    (DOCS / "reference" / "settings.md").write_text(settings_page(), encoding="utf-8")
    (DOCS / "reference" / "api.md").write_text(api_page(), encoding="utf-8")
    copy_notebooks()


def copy_notebooks() -> None:
    target = DOCS / "notebooks"
    if target.exists():
        shutil.rmtree(target)
    target.mkdir()
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        shutil.copy2(notebook, target / notebook.name)
    for data in (ROOT / "notebooks").iterdir():  # files the notebooks read beside them
        if data.is_file() and data.suffix != ".ipynb":
            shutil.copy2(data, target / data.name)


def _shell() -> Any:
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "gestalt_nb")
    return shell


def _ours(function: Any) -> bool:
    owner = getattr(function, "__self__", None)
    return owner is not None and type(owner).__module__.startswith("gestalt_nb")


def magics_page() -> str:
    shell = _shell()
    found: dict[str, tuple[str, str]] = {}
    for kind, prefix in (("cell", "%%"), ("line", "%")):
        for name, function in shell.magics_manager.magics[kind].items():
            if _ours(function) and name not in found:
                found[name] = (prefix, inspect.getdoc(function) or "")
    lines = ["# Magics", "", "Every magic `%load_ext gestalt_nb` registers, as `%magic?` shows it "
             "(generated from each magic's argument parser, so it lists exactly what the magic accepts).", ""]
    for name in sorted(found):
        prefix, doc = found[name]
        lines += [f"## `{prefix}{name}`", "", "```text", doc, "```", ""]
    return "\n".join(lines)


def settings_page() -> str:
    from gestalt_nb.magics import GestaltMagic

    traits = GestaltMagic.class_traits(config=True)
    lines = ["# Settings", "", "Set with `%config GestaltMagic.<name> = value` in a notebook, or "
             "`gestalt_nb.settings.<name> = value` from Python; per-call options override both.", "",
             "| name | type | default | meaning |", "|---|---|---|---|"]
    for name in sorted(traits):
        trait = traits[name]
        help_text = " ".join((trait.help or "").split()).replace("|", "\\|")
        lines.append(f"| `{name}` | {type(trait).__name__} | `{trait.default_value!r}` | {help_text} |")
    return "\n".join(lines) + "\n"


def _signature(value: Any) -> str:
    try:
        return str(inspect.signature(value))
    except (TypeError, ValueError):
        return "(...)"


def _entry(name: str, value: Any, level: str = "##") -> list[str]:
    kind = "class" if inspect.isclass(value) else "def"
    doc = inspect.getdoc(value) or "(no docstring)"
    return [f"{level} `{name}`", "", "```python", f"{kind} {name}{_signature(value)}", "```", "", doc, ""]


def api_page() -> str:
    import gestalt_nb
    from gestalt_nb.canvas.widget import GraphCanvas

    lines = ["# Python API", "", "Every public name of `gestalt_nb` (its `__all__`), then the methods of the objects "
             "most calls return. The magics are thin over these calls.", ""]
    for name in sorted(gestalt_nb.__all__, key=str.lower):
        value = getattr(gestalt_nb, name)
        if callable(value):
            lines += _entry(name, value)
        else:
            lines += [f"## `{name}`", "", f"`{type(value).__name__}`: " + (inspect.getdoc(type(value)) or ""), ""]
    for cls in (gestalt_nb.Connection, gestalt_nb.QueryResult, GraphCanvas):
        lines += [f"## Methods of `{cls.__name__}`", ""]
        own = {name for klass in cls.__mro__[:-1] if klass.__module__.startswith("gestalt_nb") for name in vars(klass)}
        for name in sorted(own):  # its own and its mixins' (Connection's capabilities, GraphCanvas's style / layout / filter)
            member = inspect.getattr_static(cls, name)
            if name.startswith("_"):
                continue
            if isinstance(member, property):
                lines += [f"### `{cls.__name__}.{name}` (property)", "", inspect.getdoc(member) or "", ""]
            elif inspect.isroutine(getattr(cls, name, None)):  # a method or a keyword forwarder
                lines += _entry(f"{cls.__name__}.{name}", getattr(cls, name), "###")
    return "\n".join(lines)
