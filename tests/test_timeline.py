"""A read at several moments drawn once with a time slider (``gestalt_nb.timeline``), and a diff's ghosts and marks.

Real shell, real LMDB: the history of ``test_temporal`` (people changing roles and employers over three years).
"""

from __future__ import annotations

import pandas as pd
import pytest

import gestalt_nb
from gestalt_nb.errors import GestaltError
from gestalt_nb.temporal.diff import CHANGE_COLOURS

from .conftest import run
from .test_temporal import MOMENTS, digest, loaded  # noqa: F401  (loaded: the fixture)

PATHS = "MATCH (p:Person)-[r:WORKS_AT]->(c:Company) RETURN p, r, c"
FIVE = ["2020-06-01", "2021-03-01", "2022-07-01", "2023-11-01", "2024-09-01"]


def test_a_timeline_holds_each_moments_read_and_draws_them_all_once(loaded):  # noqa: F811
    result = gestalt_nb.timeline(PATHS, MOMENTS, limit=10_000)
    assert result.valid == [f"{moment}T00:00:00Z" for moment in MOMENTS] and result.known == []
    for number, moment in enumerate(MOMENTS):
        alone = gestalt_nb.run(PATHS, as_of=moment, limit=10_000).subgraph
        assert set(result.frame(number).nodes) == set(alone.nodes), moment
        assert set(result.frame(number).edges) == set(alone.edges), moment
    assert set(result.subgraph.nodes) == set().union(*(frame.nodes for frame in result.frames))
    assert set(result.subgraph.edges) == set().union(*(frame.edges for frame in result.frames))
    assert list(result.table["nodes"]) == [len(frame.nodes) for frame in result.frames]
    assert len({frozenset(frame.edges) for frame in result.frames}) == 3  # the moments differ


def test_the_sliders_payload_says_what_is_present_at_each_moment_and_what_changed(loaded):  # noqa: F811
    people, *_ = loaded
    result = gestalt_nb.timeline(PATHS, MOMENTS, limit=10_000)
    graph = result.canvas.graph
    slider = graph["tl"]
    assert slider["valid"] == result.valid and slider["known"] == []
    keys = [node["id"] for node in graph["nodes"]]
    drawn = {edge["id"] for edge in graph["edges"]}
    for frame, packed in zip(result.frames, slider["f"]):
        assert {keys[number] for number in packed["n"]} == {str(node_id) for node_id in frame.nodes}
        assert set(packed["e"]) == set(frame.edges) and set(packed["e"]) <= drawn
    # a person whose role differs between the first moment and the drawing's own (its last) has the first's role
    first = result.frames[0]
    changed = [node_id for node_id in first.nodes if first.nodes[node_id].properties.get("role") != result.subgraph.nodes[node_id].properties.get("role")]
    assert changed, "the history has role changes between the moments"
    props = slider["f"][0]["p"]
    assert {keys[int(number)] for number in props} == {str(node_id) for node_id in changed}
    assert all(props[number]["role"] == first.nodes[keys[int(number)]].properties["role"] for number in props)
    assert not any(node.get("h") for node in graph["nodes"])  # no highlight of its own: the slider rings what changed


def test_recorded_time_is_a_second_axis_when_known_at_is_a_list(loaded):  # noqa: F811
    result = gestalt_nb.timeline(PATHS, MOMENTS[:2], known_at=["2000-01-01", "2030-01-01"], limit=10_000)
    assert len(result.frames) == 4 and len(result.known) == 2
    assert result.frame(0, 0).nodes == {} and result.frame(1, 0).nodes == {}  # nothing was recorded by 2000
    assert set(result.frame(1, 1).nodes) == set(gestalt_nb.run(PATHS, as_of=MOMENTS[1], limit=10_000).subgraph.nodes)
    assert result.canvas.graph["tl"]["known"] == ["2000-01-01T00:00:00Z", "2030-01-01T00:00:00Z"]
    assert "2 valid × 2 recorded" in repr(result)


def test_a_timeline_writes_no_byte_and_refuses_what_it_cannot_do(loaded):  # noqa: F811
    *_, path = loaded
    data = next(path.rglob("data.mdb")).parent
    before = digest(data)
    result = gestalt_nb.timeline(PATHS, FIVE, limit=10_000)
    assert result.canvas.graph["tl"]["f"]  # the payload built, as a display builds it
    assert digest(data) == before
    with pytest.raises(GestaltError, match="cannot write"):
        gestalt_nb.timeline("MATCH (p:Person) SET p.x = 1 RETURN p", FIVE[:2])
    with pytest.raises(GestaltError, match="at most 60"):
        gestalt_nb.timeline(PATHS, [f"20{10 + year}-01-01" for year in range(11)], known_at=[f"202{n}-01-01" for n in range(6)])
    with pytest.raises(GestaltError, match="moments is empty"):
        gestalt_nb.timeline(PATHS, [])
    with pytest.raises(GestaltError, match="is not a moment"):
        gestalt_nb.timeline(PATHS, ["soon"])
    assert digest(data) == before


def test_a_timeline_displays_as_its_slider_canvas_moments_and_query(shell, tmp_path):
    run(shell, f"%gestalt create {tmp_path / 'shown'}")
    frame = pd.DataFrame({"id": ["a", "b", "c"], "role": ["dev", "dev", "ops"],
                          "since": ["2020-01-01", "2020-01-01", "2023-01-01"], "until": [None, "2022-01-01", None]})
    gestalt_nb.load_nodes(frame, id="id", label="Person", valid_from="since", valid_to="until")
    shown = run(shell, "import gestalt_nb\ngestalt_nb.timeline('MATCH (p:Person) RETURN p', ['2021-01-01', '2024-01-01'])")
    assert [title for title, _ in shown.view.tabs()] == ["Graph", "Moments", "Query"]
    assert shown.view.tabs()[0][1]() is shown.canvas and shown.canvas.graph["tl"]["f"][1]["n"]
    assert list(shown.table["nodes"]) == [2, 2]
    assert "2 moments, 2021-01-01T00:00:00Z … 2024-01-01T00:00:00Z: 3 nodes" in shown.view.text()
    assert '<img alt="every moment: 2 moments' in shown.view.static_html()


def test_a_diffs_removed_are_ghosts_relationships_carry_their_change_and_changes_go_old_to_new(shell, tmp_path):
    run(shell, f"%gestalt create {tmp_path / 'diffed'}")
    people = pd.DataFrame({"id": ["a", "a", "b", "c"], "role": ["dev", "lead", "dev", "ops"],
                           "since": ["2020-01-01", "2022-01-01", "2020-01-01", "2023-01-01"], "until": ["2022-01-01", None, "2022-06-01", None]})
    gestalt_nb.load_nodes(people, id="id", label="Person", valid_from="since", valid_to="until")
    knows = pd.DataFrame({"id": ["ab", "ac"], "s": ["a", "a"], "t": ["b", "c"], "since": ["2020-01-01", "2023-02-01"], "until": ["2022-06-01", None]})
    gestalt_nb.load_edges(knows, source="s", target="t", type="KNOWS", id="id", valid_from="since", valid_to="until")
    result = gestalt_nb.diff("MATCH (p:Person) OPTIONAL MATCH (p)-[k:KNOWS]->(q:Person) RETURN p, k, q", "2021-01-01", "2024-01-01")
    drawing = result.subgraph
    assert drawing.faded == {"b", "ab"}  # removed: the node and the relationship
    assert {edge.id: edge.properties["change"] for edge in drawing.edges.values()} == {"ab": "removed", "ac": "added"}
    assert drawing.changed == {"a": {"role": ("dev", "lead")}}
    graph = result.canvas.graph
    nodes = {node["id"]: node for node in graph["nodes"]}
    edges = {edge["id"]: edge for edge in graph["edges"]}
    assert nodes["b"].get("o") == 1 and "o" not in nodes["a"] and "o" not in nodes["c"]
    assert nodes["a"]["d"] == {"role": ["dev", "lead"]}
    assert edges["ab"].get("o") == 1 and edges["ab"]["p"]["change"] == "removed" and edges["ac"]["p"]["change"] == "added"
    # each change in its own colour in every diff (the palette's order by frequency gave "added" another colour each time)
    assert graph["view"]["style"]["color"] == {"by": "property", "name": "change", "colours": CHANGE_COLOURS}
    svg = result.view.drawing.svg()
    assert svg.count('fill-opacity="0.25"') == 1 and 'stroke-dasharray="3 3"' in svg  # the ghost node and line, faded


@pytest.mark.parametrize("colours", [{"added": "green"}, {"added": "#59a14f;x"}, ["#59a14f"], {"added": None}])
def test_category_colours_are_hex_or_one_clear_line(colours):
    from gestalt_nb.errors import GestaltError
    from gestalt_nb.options import Colour

    with pytest.raises(GestaltError, match=r"^colours= takes \{category: '#rrggbb'\}"):
        Colour("change", colours=colours)
    assert Colour("change", colours={"added": "#59A14F"}).colours == {"added": "#59a14f"}


def test_gcypher_as_of_several_moments_is_the_timeline_on_the_line(loaded, shell):  # noqa: F811
    from IPython.core.error import UsageError

    from gestalt_nb.temporal.timeline import TimelineResult

    result = run(shell, f"%%gcypher --as-of {','.join(MOMENTS)} --limit 10000 --color label  # a comment\n{PATHS}")
    assert isinstance(result, TimelineResult) and result.view_options == {"color": "label"}
    alone = gestalt_nb.timeline(PATHS, MOMENTS, limit=10_000)
    assert result.valid == alone.valid and [set(frame.nodes) for frame in result.frames] == [set(frame.nodes) for frame in alone.frames]
    both = run(shell, f"%%gcypher --as-of {MOMENTS[1]} --known-at 2000-01-01,2030-01-01 --limit 10000\n{PATHS}")
    assert len(both.frames) == 2 and both.frame(0, 0).nodes == {} and both.known == ["2000-01-01T00:00:00Z", "2030-01-01T00:00:00Z"]
    with pytest.raises(UsageError, match=r"^--as-of with several moments draws a time slider; --overview cannot go with it"):
        run(shell, f"%%gcypher --as-of {MOMENTS[0]},{MOMENTS[1]} --overview\n{PATHS}")
    with pytest.raises(UsageError, match=r"^--known-at with several moments .* give --as-of WHEN too\.$"):
        run(shell, f"%%gcypher --known-at 2000-01-01,2030-01-01\n{PATHS}")
