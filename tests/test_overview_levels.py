"""An overview that explains the graph: groups of communities, a level inside every group, captions that name
what sets a group apart, the same groups in every process, and notes that add up."""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pyarrow as pa
import pytest

import gestalt_nb

from .conftest import run
from .test_overview import ingest, nmi

REGIONS, COMMUNITIES, PEOPLE, ALONE = 10, 30, 40, 150


def two_levels(seed: int = 5, inside: float = 6, region_links: float = 1.5):
    """10 regions × 30 communities × 40 people (a department per region, on 90% of its people; named people),
    ~``inside`` relationships per person inside their community, ~``region_links`` to the rest of their region,
    ~0.1 anywhere; and 150 people with no relationship."""
    rng = np.random.default_rng(seed)
    n = REGIONS * COMMUNITIES * PEOPLE
    community = np.arange(n) // PEOPLE
    region = community // COMMUNITIES
    src, dst = [], []
    for count, pick in ((inside, lambda s: community[s] * PEOPLE + rng.integers(0, PEOPLE, s.size)),
                        (region_links, lambda s: region[s] * COMMUNITIES * PEOPLE + rng.integers(0, COMMUNITIES * PEOPLE, s.size)),
                        (0.1, lambda s: rng.integers(0, n, s.size))):
        s = rng.integers(0, n, int(n * count))
        src.append(s)
        dst.append(pick(s))
    src, dst = np.concatenate(src), np.concatenate(dst)
    keep = src != dst
    total = n + ALONE
    department = [f"dept-{region[i]}" if i < n and rng.random() < 0.9 else f"dept-{rng.integers(0, REGIONS)}" for i in range(total)]
    names = [f"Person {i:05d}" for i in range(total)]
    return community, region, src[keep], dst[keep], department, names


@pytest.fixture
def planted_levels(shell, tmp_path):
    connection = gestalt_nb.create(str(tmp_path / "g"), alias="g")
    community, region, src, dst, department, names = two_levels(inside=10, region_links=0.5)
    total = len(names)
    properties = {"name": pa.array(names), "department": pa.array(department)}
    ingest(connection, [["Person"]] * total, src, dst, ["KNOWS"] * src.size, properties=properties)
    return connection, community, region, tmp_path / "g"


def test_a_graph_of_many_communities_is_grouped_into_its_regions_and_each_opens_into_its_communities(planted_levels):
    connection, community, region, _ = planted_levels
    n = community.size
    result = gestalt_nb.overview("community", max_groups=30)
    ids = [f"n{i}" for i in range(n)]
    top = result.group_of(ids).to_numpy()
    assert nmi(region, top) >= 0.85
    assert result.sizes.max() <= 0.2 * (n + ALONE) and result.group_count <= 30
    assert not any(name.startswith("other") for name in result.grouping.names)  # grouped, not folded into "other"
    assert any("groups of communities" in note for note in result.notes)
    alone = result.groups[result.groups["name"] == "no relationships"]
    assert alone["size"].tolist() == [ALONE] and any(f"{ALONE:,} nodes have no relationship" in note for note in result.notes)
    # a level down: the communities inside the biggest region
    biggest = int(result.groups.sort_values("size", ascending=False)["group"].iloc[0])
    members = np.flatnonzero(top == biggest)
    started = time.perf_counter()
    inside = result.within(biggest)
    took = time.perf_counter() - started
    assert took <= max(1.0, result.elapsed / 2)
    found = inside.group_of([ids[i] for i in members]).to_numpy()
    assert nmi(community[members], found) >= 0.85
    assert inside.trail == (result.caption(biggest),) and inside.prefix == f"{result.prefix}{biggest}/"
    assert inside.subgraph.title.startswith(result.caption(biggest)) and inside.groups["size"].sum() == members.size
    assert result.within(biggest) is inside  # kept: opening it again computes nothing
    with pytest.raises(gestalt_nb.GestaltError, match="no relationships among its members"):
        result.within(int(alone["group"].iloc[0]))


def test_captions_name_what_sets_each_group_apart_and_differ(planted_levels):
    result = gestalt_nb.overview("community", max_groups=30)
    groups = result.groups[~result.groups["name"].isin(["no relationships", "small communities"])]
    naming = [caption for caption in groups["caption"] if caption.split(" ×")[0].startswith("dept-") or "Person " in caption]
    assert len(naming) >= 0.8 * len(groups)
    assert groups["caption"].nunique() >= 0.95 * len(groups)
    assert all(caption.endswith(f"×{size:,}") for caption, size in zip(groups["caption"], groups["size"]))
    named = groups[groups["caption"].str.startswith("dept-")]
    assert named["distinguishing"].str.contains("department = dept-").all()
    assert groups["top_members"].str.contains("Person ").all()
    # a level down is named the same way, by its hubs when nothing else sets a community apart
    inside = result.within(int(groups["group"].iloc[0]))
    assert inside.groups["caption"].nunique() >= 0.95 * inside.group_count
    assert inside.groups["top_members"].str.contains("Person ").all()


def test_double_clicking_a_big_group_opens_its_groups_in_place_and_collapse_folds_them_back(planted_levels):
    result = gestalt_nb.overview("community", max_groups=30)
    canvas = result.canvas
    biggest = int(result.groups.sort_values("size", ascending=False)["group"].iloc[0])
    before, notes = set(canvas.subgraph.nodes), list(canvas.subgraph.notes)
    canvas.drill(biggest)
    assert "groups inside" in canvas.status["text"] and canvas.subgraph.notes == notes, "a level's notes go to the status line"
    opened = [key for key in canvas.subgraph.nodes if key.startswith(f"{result.prefix}{biggest}/")]
    assert len(opened) >= 2 and result.node_id(biggest) not in canvas.subgraph.nodes
    assert all(canvas.subgraph.groups[key]["top"] == biggest for key in opened)
    assert any(edge.target in before for edge in canvas.subgraph.edges.values() if edge.source in opened)  # lines to its neighbours
    # down again: a sub-group opens into its members (smaller than the drawing cap)
    canvas.expander(canvas, opened[0])  # what a double-click on it does
    assert any(not key.startswith(result.prefix) for key in canvas.subgraph.nodes)
    assert canvas.collapse(biggest) > 0
    assert set(canvas.subgraph.nodes) == before
    assert canvas.subgraph.notes == notes == canvas.graph["notes"], "the banner says what the whole says, not what a level said"


def test_the_same_database_gives_the_same_groups_in_every_process(planted_levels):
    _, _, _, path = planted_levels
    gestalt_nb.connection("g").close()
    script = (
        "import sys, hashlib, gestalt_nb\n"
        "from gestalt_nb.grouped import detect\n"
        "detect.APART_FROM = int(sys.argv[2])\n"
        "gestalt_nb.connect(sys.argv[1], alias='g')\n"
        "r = gestalt_nb.overview('community', max_groups=30)\n"
        "print(hashlib.md5(r.membership.to_numpy().tobytes()).hexdigest(), '|'.join(r.groups['caption']),\n"
        "      [info['colour'] for info in r.subgraph.groups.values()])\n"  # and the same colours
    )
    answers = set()
    for apart in (10**9, 10**9, 0):  # in a thread of the kernel twice, and in Leiden's own process
        done = subprocess.run([sys.executable, "-c", script, str(path), str(apart)], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        answers.add(done.stdout.strip())
    assert len(answers) == 1


def test_a_graph_of_one_label_is_coloured_by_group_linked_groups_apart(planted_levels):
    """Every group is Person: colour by label would draw them all alike, so the canvas colours by group (each its palette
    slot, linked groups apart, the groups of our own making grey), and a drilled group's "N more" keeps its colour."""
    result = gestalt_nb.overview("community", max_groups=30)
    assert result.labels_alike
    canvas = result.canvas
    assert canvas.view_state["style"]["color"] == {"by": "group"}
    slots = {key: info["colour"] for key, info in canvas.subgraph.groups.items()}
    special = {result.node_id(g) for g in range(result.group_count) if result.special(g)}
    from gestalt_nb.grouped.colours import SLOTS
    from gestalt_nb.render.palette import PALETTE

    assert SLOTS == len(PALETTE)
    assert all(slots[key] == -1 for key in special) and all(0 <= slots[key] < 12 for key in slots if key not in special)
    assert len({slots[key] for key in slots if key not in special}) >= min(12, len(slots) - len(special)) - 1
    joined = [(e.source, e.target) for e in canvas.subgraph.edges.values() if not {e.source, e.target} & special]
    assert joined and all(slots[a] != slots[b] for a, b in joined)
    page = canvas.vocabulary.node(canvas.subgraph.nodes[result.node_id(0)], "caption", False, canvas.subgraph.groups[result.node_id(0)])
    assert page["g"] == 1 and page["k"] == slots[result.node_id(0)]  # the page gets the slot
    smallest = min((g for g in range(result.group_count) if not result.special(g)), key=lambda g: result.sizes[g])
    rest = result.drill_subgraph(smallest, 10)
    assert [info["colour"] for info in rest.groups.values()] == [slots[result.node_id(smallest)]]
    assert canvas.style(color="label") is None and canvas.view_state["style"].get("color") in (None, {"by": "label"})


def test_groups_told_apart_by_label_keep_colour_by_label(shell, tmp_path):
    connection = gestalt_nb.create(str(tmp_path / "two"), alias="two")
    rng = np.random.default_rng(3)
    src = np.concatenate([rng.integers(0, 60, 400), rng.integers(60, 120, 400)])
    dst = np.concatenate([rng.integers(0, 60, 400), rng.integers(60, 120, 400)])
    keep = src != dst
    ingest(connection, [["Team"]] * 60 + [["Person"]] * 60, src[keep], dst[keep], ["KNOWS"] * int(keep.sum()))
    result = gestalt_nb.overview("community", alias="two")
    assert not result.labels_alike
    assert "color" not in result.canvas.view_state["style"]


def test_an_overview_of_a_query_groups_every_row_not_the_drawn_ones(shell, planted_levels):
    grouped = run(shell, "%%gcypher --overview\nMATCH (p:Person)-[r:KNOWS]->(q:Person) RETURN p, r, q LIMIT 5000")
    assert grouped.compact.edge_count == 5000
    assert any("of 5,000 rows (every row)" in note for note in grouped.notes)
    cut = run(shell, "%%gcypher --overview --limit 300\nMATCH (p:Person)-[r:KNOWS]->(q:Person) RETURN p, r, q LIMIT 5000")
    assert cut.compact.edge_count == 300 and any("only these were grouped" in note for note in cut.notes)


def test_a_memory_hint_never_suggests_less_than_the_budget_set():
    from gestalt_nb.cypher.budget import raised

    assert raised(1024**2) == "4GiB" and raised(6 * 1024**3) == "12GiB" and raised(3 * 1024**3) == "6GiB"


def test_captions_differ_when_one_value_dominates_two_groups():
    from gestalt_nb.grouped.naming import name_groups

    membership = np.repeat(np.arange(3), 100)
    sizes = np.array([100, 100, 100])
    labels = np.array([[100], [100], [100]])
    tops = {0: [0, 1], 1: [100, 101], 2: [200, 201]}
    names = {0: "Ada", 1: "Bo", 100: "Cy", 101: "Di", 200: "Ed", 201: "Fa"}
    values = ["dept-A"] * 100 + ["dept-A"] * 100 + ["dept-Z"] * 100
    read = lambda numbers: [{"properties": {"department": values[n]}} for n in numbers]
    named = name_groups(membership, sizes, labels, ["Person"], [False] * 3, tops, names, read)
    assert len(set(named.heads)) == 3  # dept-A is over-represented in two groups: each gets its hub added
    assert named.heads[2] == "dept-Z 100%" and "Ada" in named.heads[0] and "Cy" in named.heads[1]


def test_heads_that_differ_only_in_share_are_told_apart_and_a_value_one_member_has_names_no_group():
    from gestalt_nb.grouped.naming import name_groups

    membership = np.repeat(np.arange(4), [100, 100, 300, 2])
    sizes = np.array([100, 100, 300, 2])
    labels = np.array([[100], [100], [300], [2]])
    tops = {0: [0, 1], 1: [100, 101], 2: [200, 201], 3: [500, 501]}
    names = {0: "Ada", 1: "Bo", 100: "Cy", 101: "Di", 200: "Ed", 201: "Fa", 500: "Gus", 501: "Hal"}
    # "test" is over-represented in groups 0 and 1 at different shares (72% and 73% would both show as "test" in a disc)
    values = ["test"] * 72 + ["x"] * 28 + ["test"] * 73 + ["y"] * 27 + ["lib"] * 300 + ["one", "two"]
    read = lambda numbers: [{"properties": {"package": values[n]}} for n in numbers]
    named = name_groups(membership, sizes, labels, ["Module"], [False] * 4, tops, names, read)
    assert named.heads[0].startswith("test 72% · ") and named.heads[1].startswith("test 73% · "), named.heads
    assert named.heads[2] == "lib 100%"
    assert named.heads[3] == "Gus, Hal", named.heads[3]  # "one 50%" would name one member, not the group
