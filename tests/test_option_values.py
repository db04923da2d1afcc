"""A cell's drawing options are read once, where they are written, into values (``options.Layout``, ``Colour``,
``Size``) handed down as they are; the page's lists of layouts and encodings agree with the Python declaration."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gestalt_nb import options
from gestalt_nb.canvas import GraphCanvas
from gestalt_nb.errors import GestaltError
from gestalt_nb.graph.subgraph import Node, Subgraph
from gestalt_nb.magics.cypher_args import gcypher_parser
from gestalt_nb.options import COLOR_AS, COLOR_BY, LAYOUTS, SIZE_METRICS, Colour, Layout, Settings, Size, settings

from .conftest import run

ROOT = Path(__file__).resolve().parent.parent
JS = ROOT / "js" / "src"


def _js(path: str) -> str:
    return (JS / path).read_text(encoding="utf-8")


def test_the_pages_layouts_are_the_declared_ones():
    table = re.search(r"export const LAYOUTS = \[([^\]]*)\]", _js("layouts/index.js"))
    assert table, "js/src/layouts/index.js no longer declares LAYOUTS"
    assert re.findall(r'"([^"]+)"', table.group(1)) == list(LAYOUTS)
    drawn = set(re.findall(r'name === "([a-z_]+)"', _js("layouts/index.js")))
    assert drawn == set(LAYOUTS), "each declared layout has its branch in targets() (js/src/layouts/index.js)"


def test_the_pages_encodings_are_the_declared_ones():
    encode = _js("encode.js")
    for name in SIZE_METRICS[1:]:  # degree is the page's default branch
        assert f'"{name}"' in encode, f"js/src/encode.js does not size by {name}"
    for name in (*COLOR_BY, *COLOR_AS):
        assert f'"{name}"' in encode, f"js/src/encode.js does not colour by {name}"


def test_every_layout_is_in_the_help_and_the_guide():
    helps = {action.dest: action.help for action in gcypher_parser()._actions}
    setting = next(item for item in Settings.__dataclass_fields__.values() if item.name == "layout").metadata["help"]
    guide = next(line for line in (ROOT / "docs" / "guide" / "queries.md").read_text().splitlines() if "[--layout " in line)
    for name, kind in LAYOUTS.items():
        written = name + (f"[:{','.join(f'{key}={what}' for key, what in kind.takes.items())}]" if kind.takes else "")
        assert written in helps["layout"] and written in setting, name
        assert written in guide, f"docs/guide/queries.md's --layout line does not list {written}"


def test_a_layout_is_read_once_and_kept_as_written():
    layout = Layout("radial:root=alice")
    assert (layout.name, layout.options, layout.spec()) == ("radial", {"root": "alice"}, {"name": "radial", "options": {"root": "alice"}})
    assert Layout(layout) is layout and layout == "radial:root=alice"
    assert Layout("radial", root=7) == "radial:root=7" and Layout({"name": "grid"}) == "grid"
    assert Layout("positions").spec() == {"name": "positions", "options": {"x": "x", "y": "y"}}
    for written, words in [("spring", "Unknown layout 'spring'"), ("grid:x=1", "takes no options"), ("radial:root", "key=value")]:
        with pytest.raises(GestaltError, match=words):
            Layout(written)
    with pytest.raises(GestaltError, match="Unknown layout"):
        settings.layout = "spring"  # fails where it is written, not when a drawing is made
    assert settings.layout == "force"
    settings.layout = "grid"
    try:
        assert isinstance(settings.layout, Layout) and settings.with_overrides(max_nodes=5).layout is settings.layout
    finally:
        settings.layout = "force"


def test_colour_and_size_are_values():
    assert (Colour("community").by, Colour("born:ramp").name, Colour("born:ramp").as_) == ("community", "born", "ramp")
    assert (Colour("born:pink").name, Colour("born:pink").as_) == ("born:pink", "")
    assert (Size("pagerank").by, Size("score").by, Size("score").name) == ("pagerank", "property", "score")
    nodes = {str(i): Node(str(i), ("T",), {"members": i + 1, "name": f"n{i}"}) for i in range(3)}
    sized = GraphCanvas(Subgraph(nodes=nodes), size=Size("members", area=True))
    assert sized.graph["view"]["style"]["size"] == {"by": "property", "name": "members", "title": "area = members", "area": True}
    plain = GraphCanvas(Subgraph(nodes=nodes), size="members")
    assert plain.graph["view"]["style"]["size"] == {"by": "property", "name": "members"}


def test_a_cells_layout_is_read_once(shell, demo, monkeypatch):
    reads = []
    checked = options._checked_layout
    monkeypatch.setattr(options, "_checked_layout", lambda *args: reads.append(args) or checked(*args))
    result = run(shell, "%%gcypher --layout radial:root=x --color community\nMATCH (p:Person) RETURN p")
    canvas = result.canvas
    assert canvas.graph["view"]["layout"] == {"name": "radial", "options": {"root": "x"}}
    assert len(reads) == 1, reads  # the magic's; the settings, the view, render and the canvas take the value


def test_an_overview_sizes_its_groups_by_area_and_colours_them_by_group_as_values(shell, demo):
    canvas = run(shell, "%goverview --by label --color group").canvas
    assert canvas.graph["view"]["style"]["size"] == {"by": "property", "name": "nodes", "title": "area = nodes", "area": True}
    assert canvas.graph["view"]["style"]["color"] == {"by": "group"}  # each group its palette slot (grouped/colours.py)
    assert "color" not in run(shell, "%goverview --by label --color label").canvas.graph["view"]["style"]
