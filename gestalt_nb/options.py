"""Kernel-wide defaults shared by the magics and the plain Python API.

``%config GestaltMagic.<name>`` writes into :data:`settings`; Python code may set attributes
directly (``gestalt_nb.settings.row_limit = 5000``). Per-call arguments override both.
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass, field, fields, replace
from typing import Any, NamedTuple

from .checks import positive
from .errors import GestaltError, missing

RENDERERS = ("canvas", "gestaltdb", "pyvis")

class LayoutKind(NamedTuple):
    """One layout's declaration: the options it takes (each with what it names, for the help), what it draws,
    and the options' defaults sent to the page."""

    takes: dict[str, str]
    draws: str
    defaults: dict[str, str] = {}


#: Every canvas layout. The one declaration: the settings' help, ``--layout``'s help, the checks of ``Layout``
#: and the page's list (``js/src/layouts/index.js``, checked equal by ``tests/test_option_values.py``) come from it.
LAYOUTS: dict[str, LayoutKind] = {
    "force": LayoutKind({}, "force-directed (the default)"),
    "layered": LayoutKind({}, "layers, for a root-less DAG or a tree"),
    "radial": LayoutKind({"root": "ID"}, "rings around a root node"),
    "circular": LayoutKind({}, "one circle"),
    "grid": LayoutKind({}, "rows and columns"),
    "positions": LayoutKind({"x": "PROP", "y": "PROP"}, "x / y from node properties (y grows upward)", {"x": "x", "y": "y"}),
}
#: What node size can mean besides a numeric property (the page computes each: ``js/src/encode.js``).
SIZE_METRICS = ("degree", "in_degree", "out_degree", "pagerank")
#: What node colour can mean besides a property, and how a property's values can be forced to read.
COLOR_BY = ("label", "community")
COLOR_AS = ("ramp", "categories")


def layout_usage() -> str:
    """``force (default), layered, radial[:root=ID], …``: the layouts as the magics' help writes them."""
    def one(name: str) -> str:
        takes = LAYOUTS[name].takes
        return name + (f"[:{','.join(f'{key}={what}' for key, what in takes.items())}]" if takes else "")

    return ", ".join(one(name) + (" (default)" if name == "force" else "") for name in LAYOUTS)


def parse_layout(text: str) -> tuple[str, dict[str, str]]:
    """``"positions:x=lon,y=lat"`` → ``("positions", {"x": "lon", "y": "lat"})`` (the magic's form)."""
    name, _, rest = str(text).partition(":")
    options: dict[str, str] = {}
    for part in filter(None, (item.strip() for item in rest.split(","))):
        key, equals, value = part.partition("=")
        if not equals or not key.strip():
            raise GestaltError(f"Layout option '{part}' is not key=value; write e.g. --layout positions:x=lon,y=lat.")
        options[key.strip()] = value.strip()
    return name.strip(), options


class Layout(str):
    """A canvas layout, checked once where it is written and handed down as this value.

    ``Layout("radial:root=alice")``, ``Layout("radial", root="alice")`` or ``Layout({"name": "radial", ...})``:
    its ``name`` and ``options`` (strings). It is also the text of the magic's form (``settings.layout == "grid"``),
    so the settings and ``%config`` keep showing what was written; ``Layout(a_layout)`` is that layout, not re-read.
    """

    name: str
    options: dict[str, str]

    def __new__(cls, value: Any = "force", **options: Any) -> Layout:
        if isinstance(value, Layout) and not options:
            return value
        written = isinstance(value, str) and not isinstance(value, Layout) and not options  # kept as the person wrote it
        name, options = _checked_layout(value, options)
        text = name + (":" + ",".join(f"{key}={item}" for key, item in options.items()) if options else "")
        made = super().__new__(cls, value if written else text)
        made.name, made.options = name, options
        return made

    def spec(self) -> dict[str, Any]:
        """The canvas's form: ``{"name": ..., "options": {...}}``, the declared defaults filled in."""
        return {"name": self.name, "options": {**LAYOUTS[self.name].defaults, **self.options}}


def _checked_layout(name: Any, options: dict[str, Any]) -> tuple[str, dict[str, str]]:
    if isinstance(name, dict):
        options = {**{key: value for key, value in name.items() if key != "name"}, **name.get("options", {}), **options}
        options.pop("options", None)
        name = name.get("name", "force")
    if isinstance(name, Layout):
        name, options = name.name, {**name.options, **options}
    elif isinstance(name, str) and ":" in name:
        name, parsed = parse_layout(name)
        options = {**parsed, **options}
    if name not in LAYOUTS:
        raise GestaltError(f"Unknown layout {name!r}; choose one of: {', '.join(LAYOUTS)}.")
    unknown = set(options) - set(LAYOUTS[name].takes)
    if unknown:
        takes = ", ".join(LAYOUTS[name].takes) or "no options"
        raise GestaltError(f"The {name} layout takes {takes}, not {', '.join(sorted(unknown))}.")
    return str(name), {key: str(value) for key, value in options.items() if value is not None}


_HEX = re.compile(r"#[0-9a-fA-F]{6}")


class Colour(str):
    """What node colour means, read once: ``by`` is ``"label"``, ``"community"`` or ``"property"`` (then ``name``,
    and ``as_``: ``"ramp"``, ``"categories"`` or ``""`` for "numbers with at most 12 values are categories").

    ``"PROP:ramp"`` forces a ramp; a property whose own name ends so (``"x:ramp"``) is still found by its whole
    name when the drawing is coloured (``canvas/encode.py`` ``color_spec``). Also the text written.
    """

    by: str
    name: str
    as_: str
    #: Categories given their own colour (``#rrggbb``), e.g. a diff's ``{"added": "#59a14f", ...}``: the same meaning
    #: in the same colour in every drawing; the other categories take the palette's colours left.
    colours: dict[str, str]

    def __new__(cls, value: Any = "label", *, colours: dict[str, str] | None = None) -> Colour:
        if isinstance(value, Colour) and colours is None:
            return value
        made = super().__new__(cls, str(value))
        name, _, mode = made.rpartition(":")
        if made in COLOR_BY:
            made.by, made.name, made.as_ = str(made), "", ""
        else:
            made.by = "property"
            made.name, made.as_ = (name, mode) if mode in COLOR_AS else (str(made), "")
        made.colours = _checked_colours(colours or {})
        return made


def _checked_colours(colours: Any) -> dict[str, str]:
    if not isinstance(colours, dict) or not all(isinstance(value, str) and _HEX.fullmatch(value) for value in colours.values()):
        raise GestaltError(f"colours= takes {{category: '#rrggbb'}}, e.g. {{'added': '#59a14f'}}; got {colours!r:.80}.")
    return {str(key): value.lower() for key, value in colours.items()}


class Size(str):
    """What node size means, read once: ``by`` is a metric of :data:`SIZE_METRICS` or ``"property"`` (then ``name``).

    ``area=True`` (an overview's super-nodes, sized by their member count) makes a node's area, not its radius,
    follow the value. Also the text written (``settings.size == "degree"``).
    """

    by: str
    name: str
    area: bool

    def __new__(cls, value: Any = "degree", *, area: bool = False) -> Size:
        if isinstance(value, Size) and not area:
            return value
        made = super().__new__(cls, str(value))
        made.by, made.name = (str(made), "") if made in SIZE_METRICS else ("property", str(made))
        made.area = area
        return made


#: The settings read into values when set (so a value is checked once, where it is written).
VALUES: dict[str, Any] = {"layout": Layout, "color": Colour, "size": Size}


def setting(default: Any, help: str) -> Any:
    """A field of :class:`Settings` with its help: the one place a setting is declared (the magic's
    ``%config`` traits, their help and the docs' reference page are made from it)."""
    return field(default=default, metadata={"help": help})


@dataclass
class Settings:
    """Kernel-wide defaults; each is also ``%config GestaltMagic.<name>`` (``magics/magic.py`` makes the traits)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in VALUES and value is not None:
            value = VALUES[name](value)  # read once here: a bad layout fails where it is written
        super().__setattr__(name, value)
        if name == "short_errors" and globals().get("settings") is self:  # errors sit below the settings: told, not asking
            GestaltError.short = bool(value)

    row_limit: int = setting(1000, "Rows a query may return before it is cut (the work bound; LIMIT row_limit+1 is pushed down).")
    display_limit: int = setting(100, "Rows shown in the Table tab and the static HTML table (the display bound).")
    renderer: str = setting("canvas", "``canvas`` (the interactive WebGL canvas, default), ``gestaltdb`` (gestaltdb.viz in an iframe) or ``pyvis`` (optional extra; simpler, slower).")
    caption_property: str = setting("name", "Node property used for captions, falling back to ``name``, then the node id.")
    graph_height: int = setting(560, "Height of the drawn graph in pixels.")
    max_nodes: int = setting(1000, "Nodes drawn before the graph is cut (it says when it left any out).")
    max_edges: int = setting(3000, "Relationships drawn before the graph is cut (it says when it left any out).")
    color: Colour = setting("label", "What node colour means on the canvas: \"label\", \"community\" or a property name.")
    size: Size = setting("degree", "What node size means: \"degree\" (default), \"in_degree\", \"out_degree\", \"pagerank\" or a numeric property.")
    layout: Layout = setting("force", f"Canvas layout: {layout_usage()}.")
    static_max_nodes: int = setting(300, "Nodes in the static SVG picture kept for saved notebooks (a circle layout; more is unreadable).")
    json_max_chars: int = setting(100_000, "Characters of JSON shown in the JSON tab before it is cut.")
    short_errors: bool = setting(True, "Short one-line errors (True) or full tracebacks (False).")
    map_size: str = setting("4GiB", "LMDB map size passed on every create and open (GestaltDB does not persist it).")
    warn_slow: bool = setting(False, "Print a one-line warning before a %%gcypher run whose plan has a known slow shape.")
    rewrite_untyped: bool = setting(True, "Rewrite untyped relationship patterns to name every type before a read runs (same rows, faster).")
    rewrite_far_end: bool = setting(True, "Begin a read's first pattern at a node found directly when it begins with a large label scan (same rows, faster).")
    timeout: float = setting(60.0, "Seconds a read in a cell (or ``run()``) may take before it is stopped (``--timeout``).")
    memory_limit: str = setting("2GiB", "Memory the process may gain while a cell's read runs before it is stopped (``--memory-limit``).")
    tool_timeout: float = setting(10.0, "Seconds an agent's query tool call may take before it is stopped (a stop becomes a counted refusal).")
    tool_memory_limit: str = setting("512MiB", "Memory an agent's query tool call may add to the process before it is stopped.")

    def with_overrides(self, **overrides: Any) -> Settings:
        """A copy with every non-None override applied (unknown names are an error)."""
        names = {item.name for item in fields(self)}
        if overrides.get("caption") is not None:  # show(..., caption=...) is the caption property
            overrides = {**overrides, "caption_property": overrides["caption"]}
        overrides.pop("caption", None)
        unknown = set(overrides) - names
        if unknown:
            raise TypeError(f"Unknown option(s): {', '.join(sorted(unknown))}")
        chosen = replace(self, **{key: value for key, value in overrides.items() if value is not None})
        chosen.validate()
        return chosen

    def validate(self) -> None:
        if self.renderer not in RENDERERS:
            raise GestaltError(f"Unknown renderer '{self.renderer}'; choose one of: {', '.join(RENDERERS)}.")
        if self.renderer == "pyvis" and importlib.util.find_spec("pyvis") is None:
            raise missing("pyvis", "pyvis", "The pyvis renderer", "or keep the default renderer (--renderer canvas)")
        for name in ("row_limit", "display_limit", "graph_height", "max_nodes", "max_edges", "static_max_nodes", "json_max_chars"):
            positive(getattr(self, name), name)
        for name in ("timeout", "tool_timeout"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise GestaltError(f"{name} must be a positive number of seconds, not {value!r}.")
        for name in ("memory_limit", "tool_memory_limit"):
            parse_bytes(getattr(self, name), name)


settings = Settings()


#: Every setting, each also a ``GestaltMagic`` trait of the same name.
SETTING_NAMES = tuple(item.name for item in fields(Settings))


def parse_bytes(value: int | str, what: str, example: str = "2GiB, 512MiB or 536870912", hint: str = "") -> int:
    """``536870912``, ``"512MiB"``, ``"2GB"`` or ``"4g"`` in bytes (binary units); at least 1 MiB."""
    if isinstance(value, int) and not isinstance(value, bool):
        amount = value
    else:
        match = _SIZE.match(str(value))
        if not match:
            raise GestaltError(f"Cannot read {what} {value!r}; write it like {example}.")
        amount = int(float(match.group(1)) * 1024 ** " kmgt".index(match.group(2).lower() or " "))
    if amount < 1024**2:
        raise GestaltError(f"{what[:1].upper()}{what[1:]} {value!r} is too small; use at least 1MiB{hint}.")
    return amount


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b?)\s*$", re.IGNORECASE)
