"""Numbers with few values are categories (issue 31): one clearly distinct colour per value, a legend entry per
value that filters; ``PROP:ramp`` / ``PROP:categories`` force either. Real bundle in the harness (test_canvas_show)."""

from __future__ import annotations

import itertools
import math

import pytest

from gestalt_nb.canvas import GraphCanvas
from gestalt_nb.canvas.encode import color_spec
from gestalt_nb.errors import GestaltError
from gestalt_nb.graph.subgraph import Edge, Node, Subgraph

from .test_canvas_show import Harness, browser, legend_click  # noqa: F401  (the module-scoped browser fixture)

LEVELS = [110, 150, 154, 220, 330, 380, 750]  # kV: seven voltage levels, 110/150/154 close in value


def grid() -> Subgraph:
    sg = Subgraph()
    for i in range(70):
        sg.add_node(Node(f"b{i}", ("Bus",), {"name": f"bus {i}", "vn_kv": LEVELS[i % 7], "load": i * 1.25}))
    for i in range(1, 70):
        sg.add_edge(Edge(f"l{i}", f"b{(i - 1) // 2}", f"b{i}", "LINE"))
    return sg


def rgb(hex_colour: str) -> tuple[int, ...]:
    return tuple(int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))


def test_an_integer_property_with_seven_values_is_categories_that_filter(browser):  # noqa: F811 - `browser` is the fixture imported above, taken as a parameter
    sg = grid()
    canvas = GraphCanvas(sg)
    page = Harness(browser)
    page.mount(canvas)
    page.settled(30)
    canvas.style(color="vn_kv")
    colour = {k: page.hook("h.nodeStyle(a).color", k) for k in sg.nodes}
    by_level = {}
    for k, node in sg.nodes.items():
        by_level.setdefault(node.properties["vn_kv"], set()).add(colour[k])
    assert all(len(c) == 1 for c in by_level.values()) and len({next(iter(c)) for c in by_level.values()}) == 7
    colours = [rgb(next(iter(c))) for c in by_level.values()]
    assert min(math.dist(a, b) for a, b in itertools.combinations(colours, 2)) >= 40
    entries = page.page.evaluate("(i) => [...views[i].el.querySelectorAll('[data-gestalt-legend]')].map(e => e.getAttribute('data-gestalt-legend'))", page.i)
    assert [e for e in entries if e.isdigit()] == [str(v) for v in LEVELS]  # one entry per value, in value order
    page.shot("few-values-categories")
    legend_click(page, "154")
    assert page.hook("h.nodesDrawn()") == 60
    legend_click(page, "154")
    assert page.hook("h.nodesDrawn()") == 70
    canvas.style(color="vn_kv:ramp")  # forced ramp: lightness grows with the value
    ramp = {k: page.hook("h.nodeStyle(a).color", k) for k in sg.nodes}
    assert len(set(ramp.values())) == 7 and page.page.evaluate("(i) => !!views[i].el.querySelector('.gc-ramp')", page.i)
    canvas.style(color="load")  # 70 values: a ramp, with a range filter (two handles, applied on release)
    assert page.page.evaluate("(i) => !!views[i].el.querySelector('.gc-ramp')", page.i)
    drag = """([i, name, v]) => { const e = views[i].el.querySelector(`[data-gestalt-range="${name}"]`);
      e.value = String(v); e.dispatchEvent(new Event('change')); }"""
    page.page.evaluate(drag, [page.i, "lo", 20])
    page.page.evaluate(drag, [page.i, "hi", 50])
    assert page.hook("h.nodesDrawn()") == sum(20 <= n.properties["load"] <= 50 for n in sg.nodes.values())
    assert "–50" in page.page.evaluate("(i) => views[i].el.querySelector('.gc-range').textContent", page.i)
    page.shot("ramp-range-filter")
    page.page.evaluate(drag, [page.i, "lo", 0])
    page.page.evaluate(drag, [page.i, "hi", 1000])
    assert page.hook("h.nodesDrawn()") == 70
    canvas.style(color="load:categories")  # forced: the 12 most frequent values and "other"
    assert not page.page.evaluate("(i) => !!views[i].el.querySelector('.gc-ramp')", page.i)
    page.clean()
    page.page.close()


def test_color_spec_reads_the_forcing_suffix():
    nodes = list(grid().nodes.values())
    assert color_spec("vn_kv", nodes) == {"by": "property", "name": "vn_kv"}
    assert color_spec("vn_kv:ramp", nodes) == {"by": "property", "name": "vn_kv", "as": "ramp"}
    assert color_spec("vn_kv:categories", nodes) == {"by": "property", "name": "vn_kv", "as": "categories"}
    with pytest.raises(GestaltError, match="No drawn node has a property 'volts'"):
        color_spec("volts:ramp", nodes)
