"""Seeing a graph whole: ``overview`` / ``%goverview`` / ``%%gcypher --overview`` on real LMDB databases.

Groups must be right (a planted partition recovered; exact counts by label; stated bins), add up
exactly (sizes to the node count, links to the relationship count), be reused while the database is
unchanged and recomputed after a write, and drill into and fold back on the canvas.
"""

from __future__ import annotations

import time

import numpy as np
import pyarrow as pa
import pytest
from IPython.core.error import UsageError

import gestalt_nb
from tests.conftest import run


def nmi(a: np.ndarray, b: np.ndarray) -> float:
    """Normalised mutual information (arithmetic mean of the entropies) of two labelings."""
    _, a = np.unique(a, return_inverse=True)
    _, b = np.unique(b, return_inverse=True)
    table = np.zeros((a.max() + 1, b.max() + 1))
    np.add.at(table, (a, b), 1)
    p = table / table.sum()
    pa_, pb = p.sum(1), p.sum(0)
    nz = p > 0
    mutual = (p[nz] * np.log(p[nz] / np.outer(pa_, pb)[nz])).sum()
    entropy = lambda q: -(q[q > 0] * np.log(q[q > 0])).sum()
    return float(mutual / ((entropy(pa_) + entropy(pb)) / 2))


def planted(blocks: list[int], *, inside: float = 4.0, across: float = 0.4, seed: int = 3):
    """A stochastic block model: ~``inside`` relationships per node within its block, ~``across`` to anywhere."""
    rng = np.random.default_rng(seed)
    block = np.repeat(np.arange(len(blocks)), blocks)
    starts = np.concatenate([[0], np.cumsum(blocks)[:-1]])
    src, dst = [], []
    for number, size in enumerate(blocks):
        count = int(size * inside)
        src.append(starts[number] + rng.integers(0, size, count))
        dst.append(starts[number] + rng.integers(0, size, count))
    count = int(block.size * across)
    src.append(rng.integers(0, block.size, count))
    dst.append(rng.integers(0, block.size, count))
    src, dst = np.concatenate(src), np.concatenate(dst)
    keep = src != dst
    return block, src[keep], dst[keep]


def ingest(connection, labels: list[list[str]], src: np.ndarray, dst: np.ndarray, types: list[str], properties=None, ids=None) -> None:
    ids = ids or [f"n{i}" for i in range(len(labels))]
    connection.db.ingest_arrow(
        pa.array(ids), pa.array([f"e{i}" for i in range(src.size)]), pa.array([ids[i] for i in src]),
        pa.array([ids[i] for i in dst]), pa.array(types), labels=pa.array(labels), node_properties=properties,
    )


@pytest.fixture
def empty(shell, tmp_path):
    return gestalt_nb.create(str(tmp_path / "g"), alias="g")


def test_communities_recover_a_planted_partition_and_add_up_exactly(empty):
    sizes = [500 + 240 * k for k in range(20)]  # 20 unequal blocks, 55,600 nodes
    block, src, dst = planted(sizes)
    ingest(empty, [["Node"]] * block.size, src, dst, ["LINKS"] * src.size)
    result = gestalt_nb.overview("community")
    found = result.group_of([f"n{i}" for i in range(block.size)]).to_numpy()
    assert nmi(block, found) >= 0.9
    assert result.groups["size"].sum() == block.size == result.compact.node_count
    assert result.links["count"].sum() == src.size
    assert len(result.subgraph.nodes) == result.group_count <= 300
    assert all(node.id in result.subgraph.groups for node in result.subgraph.nodes.values())


def test_by_label_counts_each_label_exactly_and_by_property_states_its_bins(empty):
    rng = np.random.default_rng(1)
    kinds = ["Person"] * 600 + ["Company"] * 250 + ["City"] * 150
    src, dst = rng.integers(0, 1000, 3000), rng.integers(0, 1000, 3000)
    ingest(empty, [[kind] for kind in kinds], src, dst, ["KNOWS"] * 2000 + ["IN"] * 1000,
           properties={"age": pa.array([int(v) for v in rng.integers(18, 90, 1000)])})
    result = gestalt_nb.overview("label")
    assert dict(zip(result.groups["name"], result.groups["size"])) == {"Person": 600, "Company": 250, "City": 150}
    assert result.links["count"].sum() == 3000
    assert set(result.links["type"]) == {"KNOWS", "IN"}
    assert result.subgraph.nodes[result.node_id(0)].properties["caption"] == "Person ×600"
    binned = gestalt_nb.overview("age")
    assert any("equal-count bins" in note and "age 18 –" in note for note in binned.notes)
    assert binned.groups["size"].sum() == 1000
    with pytest.raises(gestalt_nb.GestaltError, match="No node in the overview has a property 'salary'"):
        gestalt_nb.overview("salary")


def test_demo_by_label_matches_the_label_counts(demo):
    result = gestalt_nb.overview("label")
    counted = {row["label"]: row["n"] for row in demo.run("MATCH (n) RETURN labels(n)[0] AS label, count(n) AS n").records}
    assert dict(zip(result.groups["name"], result.groups["size"])) == {k: v for k, v in counted.items() if not k.startswith("__")}
    assert any(f"{counted['__LangChainSource__']} bookkeeping nodes (source) are left out" in n for n in result.notes)


def test_a_second_call_reuses_and_a_write_recomputes(demo):
    first = gestalt_nb.overview("community")
    again = gestalt_nb.overview("community")
    assert again.reused and again.compact is first.compact
    assert any("unchanged" in note for note in again.notes)
    run(demo.__dict__ and __import__("IPython").get_ipython(), "%gcypher --write CREATE (n:Person {name: 'Newcomer'}) RETURN n")
    after = gestalt_nb.overview("community")
    assert not after.reused and after.compact is not first.compact
    assert after.compact.node_count == first.compact.node_count + 1
    assert any("written to since the last overview" in note for note in after.notes)


def test_more_groups_than_max_groups_merge_into_other(empty):
    ingest(empty, [[f"L{i % 9}"] for i in range(90)], np.array([0]), np.array([1]), ["T"])
    result = gestalt_nb.overview("label", max_groups=4)
    assert result.group_count == 4
    assert result.grouping.names[-1].startswith("other (6 groups, 60 nodes)")
    assert any("merged into one group" in note for note in result.notes)
    assert result.groups["size"].sum() == 90


def test_the_magic_draws_super_nodes_and_a_double_click_drills_in_and_undo_folds_back(shell, demo):
    result = run(shell, "%goverview --by label -o whole")
    assert shell.user_ns["whole"] is result
    canvas = result.canvas
    before = set(canvas.subgraph.nodes)
    people = result.node_id(0)
    assert canvas.subgraph.nodes[people].properties["caption"] == "Person ×6"
    canvas.expand(people)  # what a double-click does
    drawn = set(canvas.subgraph.nodes)
    assert people not in drawn and {"alice", "bob", "carla"} <= drawn and len(drawn) > len(before)
    assert canvas.undo()  # the toolbar's Undo folds the group back
    assert set(canvas.subgraph.nodes) == before
    canvas.drill(0)
    assert canvas.collapse(0) == 6
    assert set(canvas.subgraph.nodes) == before
    assert canvas.collapse(0) == 0 and set(canvas.subgraph.nodes) == before, "an undrilled group stays drawn"
    clicked = []
    canvas.on_click(clicked.append)
    canvas._message(canvas, {"kind": "click", "id": people}, None)
    assert clicked == [people]


def test_the_toolbars_collapse_folds_the_selected_members_group_back(shell, demo):
    canvas = run(shell, "%goverview --by label").canvas
    assert canvas.settings["collapsible"] and canvas.settings["expandable"]
    before = set(canvas.subgraph.nodes)
    canvas.drill(0)
    assert "alice" in canvas.subgraph.nodes
    canvas._message(canvas, {"kind": "collapse", "ids": [canvas.vocabulary.key("alice")]}, None)
    assert set(canvas.subgraph.nodes) == before
    canvas._message(canvas, {"kind": "collapse", "ids": [canvas.vocabulary.key(next(iter(before)))]}, None)
    assert set(canvas.subgraph.nodes) == before, "collapsing an undrilled group changes nothing"
    assert "Nothing to collapse" in canvas.status["text"]
    plain = run(shell, "%gcypher MATCH (p:Person) RETURN p LIMIT 3").canvas
    assert plain.settings["collapsible"] is False


def test_drilling_a_big_group_draws_a_slice_and_n_more(empty):
    block, src, dst = planted([400, 300], inside=3.0, across=0.05)
    ingest(empty, [["Node"]] * block.size, src, dst, ["LINKS"] * src.size)
    result = gestalt_nb.overview("community")
    biggest = int(result.groups["size"].iloc[0])
    part = result.drill_subgraph(0, 50)
    members = [node for node in part.nodes if node not in part.groups]
    assert len(members) == 50
    more = next(iter(part.groups.values()))
    assert more["size"] == biggest - 50 and more["offset"] == 50
    degrees = result.members(0, limit=50)["degree"].tolist()
    assert degrees == sorted(degrees, reverse=True)
    assert all(edge.source in part.nodes for edge in part.edges.values())


def test_gcypher_overview_groups_a_result_past_the_display_cap(shell, demo):
    capped = run(shell, "%%gcypher --max-nodes 5\nMATCH (n)-[r]->(m) RETURN n, r, m")
    note = " ".join(capped.view.drawing.subgraph.notes)
    assert "nodes left out" in note and "--overview" in note
    grouped = run(shell, "%%gcypher --overview label\nMATCH (n)-[r]->(m) RETURN n, r, m")
    assert grouped.groups["size"].sum() == len(capped.subgraph.nodes)


def test_group_names_from_the_graph_stay_text(empty):
    evil = '<img src=x onerror="alert(1)">'
    ingest(empty, [[evil]] * 3 + [["Plain"]], np.array([0, 1]), np.array([1, 3]), ["T", "T"])
    result = gestalt_nb.overview("label")
    html = result.view.static_html()
    assert evil not in html and "&lt;img" in html


def test_bad_arguments_say_what_to_do(shell, demo):
    with pytest.raises(UsageError, match="max_groups must be a whole number"):
        run(shell, "%goverview --max-groups 1")
    with pytest.raises(UsageError, match="No node has the label"):
        run(shell, "%goverview --labels Nope")
    run(shell, "%goverview --by label -o w")
    with pytest.raises(gestalt_nb.GestaltError, match=r"No group 99: the groups are 0 to 4"):
        shell.user_ns["w"].drill_subgraph(99)


# -- bounded like every read: a timeout, a memory limit and Ctrl-C stop it, with a clear message ----------
def children() -> set[str]:
    """This process's child processes (Leiden's, while it runs)."""
    import os

    found: set[str] = set()
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children") as handle:
                found |= set(handle.read().split())
        except OSError:
            pass
    return found


@pytest.fixture(scope="module")
def sizable_made(tmp_path_factory):
    """The sizable graph's folder, made once per module (ingesting it took 35-50 s a test on a busy machine)."""
    path = tmp_path_factory.mktemp("sizable") / "g"
    made = gestalt_nb.create(str(path), alias="sizable-made")
    block, src, dst = planted([3000] * 10)
    ingest(made, [["Node"]] * block.size, src, dst, ["LINKS"] * src.size)
    made.close()
    return path


@pytest.fixture
def sizable(shell, sizable_made, tmp_path, monkeypatch):
    """30,000 nodes, ~130,000 relationships (past the progress bar's threshold), Leiden in its own process as a big graph's:
    a fresh copy of the module's folder each test, so nothing one test computed or kept is seen by the next."""
    import shutil

    from gestalt_nb.grouped import compact, detect

    monkeypatch.setattr(detect, "APART_FROM", 0)
    monkeypatch.setattr(compact, "_APART_FROM", 0)  # chunks converted in a thread while the next are read, as at 1M
    monkeypatch.setattr(compact, "_CHUNK", 16_384)
    shutil.copytree(sizable_made, tmp_path / "g")
    return gestalt_nb.connect(str(tmp_path / "g"), alias="g")


def test_a_timeout_stops_the_overview_says_how_to_raise_it_and_draws_nothing(shell, sizable, capsys):
    before = children()
    with pytest.raises(UsageError, match=r"Stopped: the overview ran past its time budget of 0\.05 s .*Nothing was returned; the database is unchanged"
                                         r".*--timeout SECONDS"):
        run(shell, "%goverview --timeout 0.05 -o stopped")
    assert "stopped" not in shell.user_ns
    assert "stopped (time)" in capsys.readouterr().err  # the progress line says so, and stays
    assert children() <= before  # Leiden's process, if it was started, is gone
    again = gestalt_nb.overview("community")  # the database is usable, and nothing half-made was kept
    assert not again.reused and again.groups["size"].sum() == 30_000


def test_a_memory_limit_counts_the_community_detection_and_stops_it(sizable):
    before = children()
    with pytest.raises(gestalt_nb.GestaltError, match=r"over its memory budget of 1 MiB.*--memory-limit SIZE") as caught:
        gestalt_nb.overview("community", memory_limit="1MiB")
    assert caught.value.kind == "memory"
    assert children() <= before


def test_an_interrupt_stops_the_overview_and_its_process(sizable):
    import _thread
    import threading

    from gestalt_nb.cypher.budget import QueryInterrupted

    before = children()
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    with pytest.raises(QueryInterrupted, match="the overview was stopped after .* the database is unchanged and usable"):
        gestalt_nb.overview("community")
        time.sleep(5)  # had it finished first, the interrupt would land here as a plain KeyboardInterrupt: the test fails
    timer.join()
    assert children() <= before
    assert gestalt_nb.overview("label").groups["size"].sum() == 30_000


def test_a_big_overview_shows_its_progress_and_a_reused_one_does_not(sizable, capsys):
    before = children()
    result = gestalt_nb.overview("community")
    shown = capsys.readouterr().err
    assert "overview: reading" in shown and "finding communities (Leiden" in shown and "ready in" in shown
    assert result.groups["size"].sum() == 30_000 and children() <= before  # Leiden's process has ended
    assert gestalt_nb.overview("community").reused
    assert capsys.readouterr().err == ""


def test_leiden_fed_while_reading_finds_what_the_kernel_finds_within_labels_and_types(empty, monkeypatch):
    """A big graph's Leiden runs in a child given the relationships while they are read: it must see exactly
    the overview's nodes and relationships (``labels=``/``types=`` keep a part) and recover the plant."""
    from gestalt_nb.grouped import compact, detect

    block, src, dst = planted([1500, 2500, 4000, 6000])
    labels = [["Node"] if b < 3 else ["Other"] for b in block]  # the last block is left out by labels=["Node"]
    kinds = ["LINKS" if k % 5 else "NOISE" for k in range(src.size)]  # NOISE relationships are left out by types=
    ingest(empty, labels, src, dst, kinds)
    in_kernel = gestalt_nb.overview("community", labels=["Node"], types=["LINKS"])
    monkeypatch.setattr(detect, "APART_FROM", 0)
    started = []
    monkeypatch.setattr(detect.Feeder, "start", lambda self, nodes, original=detect.Feeder.start: (started.append(nodes), original(self, nodes))[1])
    compact._CACHE.clear()
    fed = gestalt_nb.overview("community", labels=["Node"], types=["LINKS"])
    assert started == [block.size]  # the child was fed during the read, every node numbered
    ids = [f"n{i}" for i in np.flatnonzero(block < 3)]
    found = fed.group_of(ids).to_numpy()
    assert nmi(block[block < 3], found) >= 0.9
    assert nmi(in_kernel.group_of(ids).to_numpy(), found) >= 0.9
    assert fed.groups["size"].sum() == int((block < 3).sum())
    assert fed.links["count"].sum() == in_kernel.links["count"].sum() == fed.compact.edge_count
    assert set(fed.links["type"]) == {"LINKS"} and (fed.group_of(["n13999"]) == -1).all()
    # another resolution on the kept copy: its relationships are handed to the child from memory
    other = gestalt_nb.overview("community", labels=["Node"], types=["LINKS"], resolution=0.9)
    assert other.compact is fed.compact and started == [block.size, int((block < 3).sum())]
    assert nmi(block[block < 3], other.group_of(ids).to_numpy()) >= 0.9


def test_feeding_leidens_process_never_waits_for_it_and_closing_ends_both():
    """The kernel hands relationships to Leiden's process without waiting for it to read them (it may still be
    starting), and a closed feeder leaves no process, thread or folder behind."""
    import os
    import signal
    import threading

    from gestalt_nb.grouped import detect

    with detect.Feeder(1.0) as feeder:
        os.kill(feeder.child.pid, signal.SIGSTOP)  # a child that reads nothing: a pipe holds 64 KiB, this is 32 MB
        feeder.start(1_000_000)
        numbers = np.arange(4_000_000, dtype=np.int32) % 1_000_000
        feeding = threading.Thread(target=feeder.feed, args=(numbers, numbers[::-1]))
        feeding.start()
        feeding.join(10)
        assert not feeding.is_alive()
        assert feeder.child.poll() is None and feeder.writer.is_alive()  # still waiting to be read
    assert feeder.child.returncode is not None and not feeder.writer.is_alive()
    assert not os.path.exists(feeder.folder)


def test_leiden_runs_while_the_labels_are_read(empty, monkeypatch):
    """Leiden starts once the last relationship is read (in a thread of the kernel below ``APART_FROM``), before
    the labels that do not decide which nodes are in are read; the groups are what a direct call finds."""
    from gestalt_nb.grouped import compact, detect

    block, src, dst = planted([500, 800, 1200, 900])
    ingest(empty, [["A"] if b else ["B", "__Internal"] for b in block], src, dst, ["LINKS"] * src.size)
    order = []
    monkeypatch.setattr(detect.Beside, "end", lambda self, original=detect.Beside.end: (order.append("leiden"), original(self))[1])
    monkeypatch.setattr(compact, "_members", lambda *args, original=compact._members: (order.append(args[-1]), original(*args))[1])
    result = gestalt_nb.overview("community")
    assert order[:3] == [["__Internal"], "leiden", ["A", "B"]]  # (the wait for the result calls end again: a no-op)
    assert result.groups["size"].sum() == int((block > 0).sum()) and "500 bookkeeping nodes (__Internal)" in " ".join(result.notes)
    copy, inside = result.compact, np.flatnonzero(block > 0)
    direct, _ = detect.leiden(copy.src, copy.dst, len(copy.keys), 1.0)  # the same edges, numbered as the overview feeds them
    assert nmi(direct[copy.kept], result.membership_array[copy.kept]) >= 0.99
    assert nmi(block[inside], result.group_of([f"n{i}" for i in inside]).to_numpy()) >= 0.9


def test_counting_in_one_pass_finds_what_sorting_finds():
    """Group numbers and group-pair keys are counted with a bincount when they are small, sorted when not: the same answer."""
    from gestalt_nb.grouped.grouping import COUNTED_UP_TO, dense

    rng = np.random.default_rng(4)
    for top in (7, 5_000, COUNTED_UP_TO + 10):
        keys = rng.integers(0, top, 200_000)
        for found, expected in zip(dense(keys), np.unique(keys, return_inverse=True, return_counts=True)):
            assert np.array_equal(found, expected)
        values, none, counts = dense(keys, inverse=False)
        assert none is None and all(map(np.array_equal, (values, counts), np.unique(keys, return_counts=True)))
    assert all(part.size == 0 for part in dense(np.zeros(0, np.int64)))


def test_each_groups_highest_degree_members_are_what_sorting_every_node_finds():
    """Only the candidates are sorted (degree at least the group's tenth highest); ties, degrees past the histogram's
    ceiling, groups of fewer than ten, nodes in no group and many groups give what one sort of every node gives."""
    from gestalt_nb.grouped.result import highest_degree

    def sorted_all(membership, degree, count, top):
        order = np.lexsort((-degree, membership))
        order = order[membership[order] >= 0]
        starts = np.searchsorted(membership[order], np.arange(count))
        return {g: [int(n) for n in order[start:start + top] if membership[n] == g] for g, start in enumerate(starts)}

    rng = np.random.default_rng(11)
    for nodes, count, spread in ((5_000, 30, 4), (5_000, 30, 5_000), (20_000, 3, 2), (300, 200, 50), (50_000, 9_000, 30)):
        membership = rng.integers(-1, count, nodes).astype(np.int32)
        degree = rng.integers(0, spread, nodes) * rng.integers(1, 3, nodes)  # many ties; some past the ceiling of 1023
        for top in (1, 10):
            assert highest_degree(membership, degree, count, top) == sorted_all(membership, degree, count, top)
    assert highest_degree(np.full(4, -1, np.int32), np.arange(4), 0) == {}


def test_leidens_graph_from_sorted_rows_is_every_relationship_undirected():
    """networkit's graph made from compressed sparse rows has each relationship once as an undirected edge, a
    repeated pair twice and a self-loop once, whether or not the sources come sorted: what adding them one by one gives."""
    import networkit

    from gestalt_nb.grouped.detect import graph_of

    rng = np.random.default_rng(9)
    src, dst = rng.integers(0, 300, 2000), rng.integers(0, 300, 2000)
    src, dst = np.concatenate([src, [5, 5, 7]]), np.concatenate([dst, [6, 6, 7]])  # a repeated pair and a self-loop
    added = networkit.Graph(310, directed=False)
    added.addEdges((src.astype(np.uint64), dst.astype(np.uint64)), checkMultiEdge=False)
    for order in (np.argsort(src, kind="stable"), np.arange(src.size)):  # sorted as a read gives them, and not
        made = graph_of(src[order].astype(np.int32), dst[order].astype(np.int32), 310)
        assert made.numberOfNodes() == 310 and made.numberOfEdges() == added.numberOfEdges() == src.size
        for node in (0, 5, 6, 7, 150, 305):
            assert sorted(made.iterNeighbors(node)) == sorted(added.iterNeighbors(node))


def test_a_read_converting_chunks_in_a_thread_makes_the_same_copy(empty, monkeypatch):
    """A big graph's chunks are converted in a thread while the next are read: the copy is the one read in line."""
    from gestalt_nb.grouped import compact

    block, src, dst = planted([700, 1100, 1500])
    ingest(empty, [["A"]] * block.size, src, dst, ["LINKS" if k % 3 else "OTHER" for k in range(src.size)])
    monkeypatch.setattr(compact, "_CHUNK", 1000)
    inline = compact.read(empty.db)
    compact._CACHE.clear()
    monkeypatch.setattr(compact, "_APART_FROM", 0)
    threaded = compact.read(empty.db)
    assert threaded is not inline and threaded.edge_count == inline.edge_count == src.size
    for name in ("src", "dst", "etype"):
        assert np.array_equal(getattr(threaded, name), getattr(inline, name))
    assert threaded.type_names == inline.type_names


def test_the_copy_read_from_pages_is_the_copy_a_cursor_reads(empty, monkeypatch):
    """The node keys, label ranges and relationships read from LMDB's pages (engine/pages.py) make the same copy as
    the cursor walk that reads them when the pages cannot be."""
    from gestalt_nb.engine import pages
    from gestalt_nb.grouped import compact

    block, src, dst = planted([900, 1300, 1700])
    labels = [["A"] if k % 3 else ["A", "B"] for k in range(block.size)]
    ingest(empty, labels, src, dst, ["LINKS" if k % 3 else "OTHER" for k in range(src.size)], ids=[f"node-{k:05d}" for k in range(block.size)])
    monkeypatch.setattr(pages, "BATCH", 5)
    read_from = []
    real = pages.Pages.read
    monkeypatch.setattr(pages.Pages, "read", lambda self, *args, **named: read_from.append(real(self, *args, **named)) or read_from[-1])
    from_pages = compact.read(empty.db)
    assert read_from and all(found is not None for found in read_from)  # every table was read from its pages
    compact._CACHE.clear()
    monkeypatch.setattr(compact, "open_pages", lambda env, txn: None)
    walked = compact.read(empty.db)
    assert from_pages.keys == walked.keys and from_pages.labels == walked.labels == ["A", "B"]
    assert from_pages.type_names == walked.type_names and from_pages.edge_count == src.size
    for name in ("src", "dst", "etype", "kept"):
        assert np.array_equal(getattr(from_pages, name), getattr(walked, name))
    assert all(np.array_equal(a, b) for a, b in zip(from_pages.label_members, walked.label_members))


SHAPES = ["n1", "n10", "n100", "12345678", "123456789", "1234567812345678", "", "x" * 100, "ünïcødé-ключ-🙂",
          "3f2c9a1e-7b4d-4c1a-9e2f-0a1b2c3d4e5f", "n1 ", " n1", "N1"]  # 8 and 16 bytes, empty, long, multibyte, prefixes


def test_node_ids_of_every_shape_become_the_right_numbers(empty):
    """Ids become node integers through fingerprints: each relationship of the copy joins exactly the nodes written."""
    from gestalt_nb.grouped import compact

    ids = [shape for shape in SHAPES if shape]  # a node id is not empty
    src = np.array([k for k in range(len(ids)) for _ in range(2)])
    dst = np.array([(k * 5 + step) % len(ids) for k in range(len(ids)) for step in (1, 3)])
    ingest(empty, [["A"]] * len(ids), src, dst, ["T"] * src.size, ids=ids)
    copy = compact.read(empty.db)
    assert sorted(key.decode("utf-8") for key in copy.keys) == sorted(ids)
    read = sorted(zip(copy.ids(copy.src), copy.ids(copy.dst)))
    assert read == sorted((ids[a], ids[b]) for a, b in zip(src, dst))


def test_the_id_table_answers_as_arrows_lookup_for_every_shape_and_when_fingerprints_collide(monkeypatch):
    import pyarrow.compute as pc

    from gestalt_nb.grouped import ids

    keys = pa.array(sorted(shape.encode("utf-8") for shape in SHAPES), pa.binary())
    asked = pa.array([shape.encode("utf-8") for shape in SHAPES] + [b"n2", b"n1\x00", b"x" * 99, b"1234567"] * 3, pa.binary())

    def truth(values):
        return pc.index_in(values, value_set=keys).fill_null(-1).to_numpy()

    table = ids.Table(keys)
    assert table.unique
    for values in (asked, asked.slice(5, 20), asked.cast(pa.large_binary()), pa.array([], pa.binary())):
        assert np.array_equal(table.numbers(values), truth(values))
    # the last possible fingerprint (the table's end marker) still finds its key, and never an absent id
    last = {b"n10": ids._ALL, b"absent": ids._ALL}
    real = ids.fingerprints
    monkeypatch.setattr(ids, "fingerprints", lambda values: np.array(
        [last.get(value, print_) for value, print_ in zip(values.to_pylist(), real(values))], dtype=np.uint64))
    marked = ids.Table(keys)
    probe = pa.array([b"n10", b"absent", b"n1"], pa.binary())
    assert marked.unique and np.array_equal(marked.numbers(probe), truth(probe))
    # two keys with one fingerprint: every lookup goes to Arrow's
    monkeypatch.setattr(ids, "fingerprints", lambda values: np.zeros(len(values), np.uint64))
    clashing = ids.Table(keys)
    assert not clashing.unique and np.array_equal(clashing.numbers(asked), truth(asked))


def test_leidens_process_killed_says_so_and_a_finished_one_answers():
    import os
    import signal

    from gestalt_nb.grouped import detect

    block, src, dst = planted([500, 800, 1200, 900])
    with detect.Feeder(1.0) as feeder:
        feeder.start(block.size)
        feeder.feed(src, dst)
        os.kill(feeder.child.pid, signal.SIGKILL)  # as the system does when memory runs out
        with pytest.raises(gestalt_nb.GestaltError, match=r"its process was killed \(signal 9\), likely out of memory"):
            feeder.result()
    with detect.Feeder(1.0) as feeder:
        feeder.start(block.size)
        feeder.feed(src, dst)
        membership, modularity = feeder.result()
        assert membership.size == block.size and nmi(block, membership) >= 0.9 and modularity > 0.3
    assert feeder.child.returncode is not None and not os.path.exists(feeder.folder)
