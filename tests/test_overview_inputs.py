"""Bad input to the overview's calls and its canvas: one GestaltError line naming the argument, never a raw
exception and never a silent coercion (``drill(1.5)`` is not group 1, ``members(limit=-1)`` is not an empty table)."""

from __future__ import annotations

import math

import pyarrow as pa
import pytest

import gestalt_nb

from .conftest import run
from .test_overview import ingest, planted


@pytest.fixture
def whole(shell, tmp_path):
    connection = gestalt_nb.create(str(tmp_path / "g"), alias="g")
    block, src, dst = planted([60, 80, 100])
    ingest(connection, [["Node"]] * block.size, src, dst, ["LINKS"] * src.size, properties={"name": pa.array([f"Node {i}" for i in range(block.size)])})
    return gestalt_nb.overview("community")


CASES = [
    ("overview(labels=5)", lambda r: gestalt_nb.overview(labels=5), "labels must be a list of text or None, not 5"),
    ("overview(types=5)", lambda r: gestalt_nb.overview(types=5), "types must be a list of text or None, not 5"),
    ("overview(labels=[''])", lambda r: gestalt_nb.overview(labels=[""]), "labels is a list of label names"),
    ("canvas.drill([0])", lambda r: r.canvas.drill([0]), "A group is its number"),
    ("canvas.drill(1.5)", lambda r: r.canvas.drill(1.5), "A group is its number"),
    ("canvas.drill(True)", lambda r: r.canvas.drill(True), "A group is its number"),
    ("canvas.collapse(None)", lambda r: r.canvas.collapse(None), "A group is its number"),
    ("members(0, limit='x')", lambda r: r.members(0, limit="x"), "limit must be a whole number"),
    ("members(0, limit=None)", lambda r: r.members(0, limit=None), "limit must be a whole number"),
    ("members(0, limit=inf)", lambda r: r.members(0, limit=math.inf), "limit must be a whole number"),
    ("members(0, limit=-1)", lambda r: r.members(0, limit=-1), "limit must be a whole number of at least 0"),
    ("drill_subgraph(0, offset='x')", lambda r: r.drill_subgraph(0, offset="x"), "offset must be a whole number"),
    ("drill_subgraph(0, offset=1.5)", lambda r: r.drill_subgraph(0, offset=1.5), "offset must be a whole number"),
    ("drill_subgraph(0, offset=-1)", lambda r: r.drill_subgraph(0, offset=-1), "offset must be a whole number of at least 0"),
    ("group_of(None)", lambda r: r.group_of(None), "group_of takes a node id"),
    ("within(99)", lambda r: r.within(99), "No group 99"),
    ("within(0, max_groups=1)", lambda r: r.within(0, max_groups=1), "max_groups must be a whole number"),
]


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_a_bad_argument_gets_one_clear_line(whole, case):
    _, call, says = case
    with pytest.raises(gestalt_nb.GestaltError, match=says) as caught:
        call(whole)
    assert "\n" not in str(caught.value)


def test_path_on_an_overview_canvas_runs_between_drawn_members_and_says_so_on_a_group(whole):
    canvas = whole.canvas
    with pytest.raises(gestalt_nb.GestaltError, match="is a group of the overview, not a node"):
        canvas.path(whole.node_id(0), whole.node_id(1))
    canvas.drill(0)
    members = [key for key in canvas.subgraph.nodes if key not in canvas.subgraph.groups]
    found = canvas.path(members[0], members[1])
    assert found.subgraph.nodes and members[0] in found.subgraph.nodes  # looked up in the overview's open database


def test_nan_infinities_and_huge_integers_group_draw_and_export(shell, tmp_path):
    gestalt_nb.create(str(tmp_path / "odd"), alias="odd")
    values = [float("nan"), float("inf"), float("-inf"), *map(float, range(30))]
    for number, value in enumerate(values):
        gestalt_nb.run("CREATE (n:P {k: $k, x: $x, big: $big}) RETURN count(n) AS c",
                       {"k": number, "x": value, "big": 10**20 + number * 10**18}, write=True)
    gestalt_nb.run("MATCH (a:P {k: 0}), (b:P {k: 1}) CREATE (a)-[r:R]->(b) RETURN count(r) AS c", write=True)
    by_x = gestalt_nb.overview("x")
    names = dict(zip(by_x.groups["name"], by_x.groups["size"]))
    assert names["x = NaN"] == names["x = inf"] == names["x = -inf"] == 1 and sum(names.values()) == len(values)
    assert any("x = -inf, x = NaN, x = inf are groups of their own" in note for note in by_x.notes)
    by_big = gestalt_nb.overview("big")
    assert by_big.groups["name"].str.contains("100,000,000,000,000,000,000 – ").any()  # the full integer, not 1e+20
    by_community = gestalt_nb.overview("community")
    assert by_community.groups["size"].sum() == len(values)
    page = by_community.canvas.to_html()
    assert "group:" in page and by_x.canvas.to_html().count("x = NaN") >= 1


def test_an_empty_result_grouped_says_nothing_about_sizes(shell, whole, capsys):
    grouped = run(shell, "%%gcypher --overview\nMATCH (p:Nobody) RETURN p")
    assert grouped.group_count == 0
    grouped.canvas  # noqa: B018 - drawn
    shown = capsys.readouterr()
    assert "has a property" not in shown.out + shown.err


def test_leidens_folders_of_a_killed_kernel_are_removed_at_the_next_start(whole, monkeypatch):
    import os
    import subprocess
    import sys
    import tempfile

    from gestalt_nb.grouped import compact, detect

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout.strip()
    stale = tempfile.mkdtemp(prefix=f"{detect.FOLDER}{gone}-")  # as a kernel killed with -9 mid-overview leaves it
    alive = tempfile.mkdtemp(prefix=f"{detect.FOLDER}{os.getpid()}-")  # this kernel's own: in use, kept
    monkeypatch.setattr(detect, "APART_FROM", 0)
    compact._CACHE.clear()
    gestalt_nb.overview("community")
    assert not os.path.exists(stale) and os.path.exists(alive)
    os.rmdir(alive)
