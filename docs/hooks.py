"""MkDocs hook: the reference pages are generated from the code, and the demo notebooks are copied in.

Runs before MkDocs collects the pages (``on_pre_build``), so what it writes is built like any page:
- ``reference/magics.md``: every magic's ``%magic?`` page (generated from its argument parser);
- ``reference/settings.md``: every ``%config GestaltMagic.<name>`` trait, its type, default and help;
- ``reference/api.md``: every public name of ``gestalt_nb`` and the methods of ``Connection``,
  ``QueryResult`` and ``GraphCanvas``, with their real signatures and docstrings;
- ``notebooks/*.ipynb``: the demo notebooks (``mkdocs-jupyter`` executes them while building).
Generated files are not committed (``.gitignore``); they cannot drift from the code.

And after a notebook page is rendered (``on_page_content``), what its page would fetch from off the site
is left out (``offline``), so the site reads offline with every drawing shown as its picture.
"""

from __future__ import annotations

import inspect
import re
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


def on_page_content(html: str, page: Any, **_: Any) -> str:
    return offline(html) if page.file.src_uri.endswith(".ipynb") else html


#: A script element of nbconvert's page (script bodies are escaped by nbconvert, so none holds ``</script>``).
_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script>\s*", re.DOTALL)
#: Scripts of nbconvert's lab template that fetch from a CDN or feed what does: any with a ``src`` (MathJax,
#: ``custom_mathjax_url``: the notebooks have no math; require.js, ``include_requirejs``), the widget manager's
#: loader (unpkg.com), the saved widget state and the views it would draw (~1 MB a page: each canvas's state
#: carries its JavaScript), MathJax's configuration, mermaid's loader (cdnjs, when a Markdown cell holds a diagram).
_TYPES = ("application/vnd.jupyter.widget-state+json", "application/vnd.jupyter.widget-view+json", "text/x-mathjax-config")
_LOADERS = ("function addWidgetsRenderer()", 'document.querySelectorAll(".jp-Mermaid > pre.mermaid")')


def _fetches(script: re.Match[str]) -> bool:
    attributes, body = script.group(1), script.group(2)
    return "src=" in attributes or any(kind in attributes for kind in _TYPES) or any(loader in body for loader in _LOADERS)


def offline(html: str) -> str:
    """A notebook page as mkdocs-jupyter renders it, less what would be fetched from off the site.

    mkdocs-jupyter executes the notebooks storing widget state, and its template then asks unpkg.com for
    ``@jupyter-widgets/html-manager`` (it has no setting to leave that out). Without the manager each view
    shows its static picture (gestalt_nb/outputs.py), as in a notebook saved without widget state.
    The site's own scripts (mkdocs-material's) are outside a page's content and stay.
    """
    return _SCRIPT.sub(lambda script: "" if _fetches(script) else script.group(0), html)


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


#: A signature longer than this is written one parameter per line, so the reference's code blocks need no scrolling.
WIDTH = 88
#: numpy-style docstring sections, rendered as Markdown rather than as setext headings.
SECTIONS = ("Parameters", "Returns", "Yields", "Raises", "Attributes", "Examples", "Notes", "See Also")


class _Written(str):
    """An annotation as the source wrote it (``from __future__ import annotations`` keeps them as text): shown unquoted."""

    def __repr__(self) -> str:
        return str(self)


def _signature(name: str, value: Any, kind: str) -> str:
    """``def name(...) -> R``, wrapped one parameter per line when it is longer than :data:`WIDTH`."""
    try:
        signature = inspect.signature(value)
    except (TypeError, ValueError):
        return f"{kind} {name}(...)"
    written = lambda a: _Written(a) if isinstance(a, str) else a
    signature = signature.replace(
        parameters=[p.replace(annotation=written(p.annotation)) for p in signature.parameters.values()],
        return_annotation=written(signature.return_annotation),
    )
    one_line = f"{kind} {name}{signature}"
    if len(one_line) <= WIDTH:
        return one_line
    parts, starred = [], False
    parameters = list(signature.parameters.values())
    for number, parameter in enumerate(parameters):
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY and not starred:
            parts.append("*")
        starred = starred or parameter.kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.VAR_POSITIONAL)
        parts.append(str(parameter))
        later = parameters[number + 1].kind if number + 1 < len(parameters) else None
        if parameter.kind is inspect.Parameter.POSITIONAL_ONLY and later is not inspect.Parameter.POSITIONAL_ONLY:
            parts.append("/")
    returns = str(signature.replace(parameters=[]))[2:]  # " -> R", or "" when none is written
    return f"{kind} {name}(\n" + "".join(f"    {part},\n" for part in parts) + f"){returns}"


def _titled(lines: list[str], number: int) -> bool:
    return lines[number].strip() in SECTIONS and number + 1 < len(lines) and set(lines[number + 1].strip()) == {"-"}


def _section(title: str, body: list[str]) -> list[str]:
    """One numpy section as Markdown: entries (``name : type`` + an indented description) as a list, examples as code."""
    while body and not body[-1].strip():
        body.pop()
    if title == "Examples":
        code = [line.strip() for line in body if line.strip()]
        return [f"**{title}**", "", "```pycon", *code, "```", ""]
    if title not in ("Parameters", "Returns", "Yields", "Raises", "Attributes"):
        return [f"**{title}**", "", *body, ""]
    items: list[str] = []
    for line in body:
        if line.strip() and not line[0].isspace():
            head, _, kind = line.partition(" : ")
            items.append(f"- `{head.strip()}` (*{kind.strip()}*):" if kind else f"- *{head.strip()}*:")
        elif line.strip() and items:
            items[-1] += " " + line.strip()
    return [f"**{title}**", "", *items, ""]


def _markdown(doc: str) -> str:
    """A docstring as Markdown: its numpy sections rendered (:func:`_section`), the text before them as written."""
    lines, out, number = doc.splitlines(), [], 0
    while number < len(lines):
        if not _titled(lines, number):
            out.append(lines[number])
            number += 1
            continue
        title, end = lines[number].strip(), number + 2
        while end < len(lines) and not _titled(lines, end):
            end += 1
        out += _section(title, lines[number + 2 : end])
        number = end
    return "\n".join(out)


def _entry(name: str, value: Any, level: str = "##") -> list[str]:
    kind = "class" if inspect.isclass(value) else "def"
    doc = inspect.getdoc(value) or "(no docstring)"
    return [f"{level} `{name}`", "", "```python", _signature(name, value, kind), "```", "", _markdown(doc), ""]


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
