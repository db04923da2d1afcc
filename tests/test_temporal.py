"""Time as an axis: a history loaded through GestaltDB's temporal API, read as of a moment, and two moments diffed."""

from __future__ import annotations

import hashlib
import random
import time
from datetime import datetime, timezone

import pandas as pd
import pytest

import gestalt_nb
from gestalt_nb.cypher import query
from gestalt_nb.errors import GestaltError
from gestalt_nb.temporal import asof, visible
from gestalt_nb.temporal.diff import CHANGE_COLOURS

from .conftest import run

MOMENTS = ["2021-03-01", "2022-07-01", "2023-11-01"]


def history(people: int = 240, companies: int = 12, seed: int = 7):
    """People with roles that change, employment relationships with intervals (some still open)."""
    rnd = random.Random(seed)
    person_rows, job_rows = [], []
    for number in range(people):
        pid = f"p{number}"
        change = f"202{rnd.randrange(0, 4)}-0{rnd.randrange(1, 10)}-01"
        person_rows.append({"id": pid, "name": f"Person {number}", "role": "engineer", "from": "2019-01-01", "to": change})
        person_rows.append({"id": pid, "name": f"Person {number}", "role": rnd.choice(["lead", "manager"]), "from": change, "to": None})
        start = datetime(2020, rnd.randrange(1, 13), 1, tzinfo=timezone.utc)
        end = datetime(rnd.choice([2021, 2022, 2023]), rnd.randrange(1, 13), 1, tzinfo=timezone.utc)
        job_rows.append({"job": f"j{number}a", "person": pid, "company": f"c{rnd.randrange(companies)}", "from": start, "to": end})
        job_rows.append({"job": f"j{number}b", "person": pid, "company": f"c{rnd.randrange(companies)}", "from": end,
                         "to": None if rnd.random() < 0.7 else datetime(2024, 6, 1, tzinfo=timezone.utc)})
    company_rows = [{"id": f"c{number}", "name": f"Company {number}", "from": None, "to": None} for number in range(companies)]
    return pd.DataFrame(person_rows), pd.DataFrame(company_rows), pd.DataFrame(job_rows)


def at(frame: pd.DataFrame, moment: str, start: str = "from", end: str = "to") -> pd.DataFrame:
    """The pandas reference: the rows valid at ``moment`` (half-open), the last loaded winning per id."""
    when = pd.Timestamp(moment, tz="UTC")
    starts, ends = pd.to_datetime(frame[start], utc=True), pd.to_datetime(frame[end], utc=True)
    valid = (starts.isna() | (starts <= when)) & (ends.isna() | (when < ends))
    return frame[valid]


@pytest.fixture
def loaded(shell, tmp_path):
    run(shell, f"%gestalt create {tmp_path / 'history'}")
    people, companies, jobs = history()
    gestalt_nb.load_nodes(people, id="id", label="Person", valid_from="from", valid_to="to")
    gestalt_nb.load_nodes(companies, id="id", label="Company", valid_from="from", valid_to="to")
    gestalt_nb.load_edges(jobs, source="person", target="company", type="WORKS_AT", id="job", valid_from="from", valid_to="to")
    return people, companies, jobs, tmp_path / "history"


READ = "MATCH (p:Person)-[r:WORKS_AT]->(c:Company) RETURN p.name AS person, p.role AS role, c.name AS company, id(r) AS job"


def reference(people, companies, jobs, moment):
    valid_people, valid_jobs = at(people, moment), at(jobs, moment)
    rows = valid_jobs.merge(valid_people, left_on="person", right_on="id").merge(companies, left_on="company", right_on="id")
    return sorted(zip(rows["name_x"], rows["role"], rows["name_y"], rows["job"]))


def rows(result):
    return sorted(zip(result.df["person"], result.df["role"], result.df["company"], result.df["job"]))


def test_reads_as_of_three_moments_equal_the_pandas_reference(loaded, monkeypatch):
    people, companies, jobs, _ = loaded
    monkeypatch.setattr(asof, "HISTORY_NOTE_AFTER", 0)  # this small history reads at once: its first read is said anyway
    versions = sum(len(commit.versions) for commit in gestalt_nb.connection().db.iter_temporal_commits())
    for number, moment in enumerate(MOMENTS):
        result = gestalt_nb.run(READ, as_of=moment, limit=10_000)
        assert rows(result) == reference(people, companies, jobs, moment), moment
        assert "as of" in result.notes[0]
        # the first read says it read the history (its versions, its seconds) and that the next skips it; later ones do not
        first = [note for note in result.notes if note.startswith("The database's history was read first")]
        if number == 0:
            assert len(first) == 1 and first[0].startswith(f"The database's history was read first: {versions:,} versions, ")
            assert "the next read of any moment skips it" in first[0]
        else:
            assert first == [], (number, first)
    assert len({tuple(rows(gestalt_nb.run(READ, as_of=moment, limit=10_000))) for moment in MOMENTS}) == 3


def test_a_first_read_of_the_history_quicker_than_the_threshold_goes_unsaid(loaded, monkeypatch):
    monkeypatch.setattr(asof, "HISTORY_NOTE_AFTER", 3600)
    assert visible.history_read(gestalt_nb.connection().db) is False
    result = gestalt_nb.run(READ, as_of=MOMENTS[0], limit=10_000)
    assert visible.history_read(gestalt_nb.connection().db) is True  # it was read, by this call
    assert [note for note in result.notes if "history was read" in note] == []
    assert result.notes[0].startswith(f"Read as of {MOMENTS[0]}")


def test_the_present_graph_holds_what_is_valid_now(loaded):
    people, companies, jobs, _ = loaded
    now = pd.Timestamp.now(tz="UTC").isoformat()
    assert rows(gestalt_nb.run(READ, limit=10_000)) == reference(people, companies, jobs, now)


def test_known_at_before_a_correction_returns_the_old_belief(loaded):
    people, companies, jobs, _ = loaded
    before_fix = datetime.now(timezone.utc)
    time.sleep(0.01)
    first = people.iloc[0]
    fix = pd.DataFrame([{"id": first["id"], "name": first["name"], "role": "director", "from": "2019-01-01", "to": None}])
    gestalt_nb.load_nodes(fix, id="id", label="Person", valid_from="from", valid_to="to")
    read = "MATCH (p:Person {name: $name}) RETURN p.role AS role"
    moment = MOMENTS[0]
    believed = at(people[people["id"] == first["id"]], moment)["role"].tolist()
    assert gestalt_nb.run(read, {"name": first["name"]}, as_of=moment, known_at=before_fix).df["role"].tolist() == believed
    assert gestalt_nb.run(read, {"name": first["name"]}, as_of=moment).df["role"].tolist() == ["director"]
    assert gestalt_nb.run(read, {"name": first["name"]}).df["role"].tolist() == ["director"]  # valid now: the present too


def test_diff_reports_the_references_added_removed_and_changed(loaded):
    people, companies, jobs, _ = loaded
    before, after = MOMENTS[0], MOMENTS[2]
    result = gestalt_nb.diff("MATCH (p:Person)-[r:WORKS_AT]->(c:Company) RETURN p, r, c", before, after, limit=10_000)
    changes = result.changes
    assert list(changes.columns) == ["id", "kind", "change", "property", "before", "after"]
    old_jobs, new_jobs = set(at(jobs, before)["job"]), set(at(jobs, after)["job"])
    relationships = changes[changes["kind"] == "relationship"]
    assert set(relationships[relationships["change"] == "added"]["id"]) == new_jobs - old_jobs
    assert set(relationships[relationships["change"] == "removed"]["id"]) == old_jobs - new_jobs
    old_people = at(people, before).set_index("id")
    new_people = at(people, after).set_index("id")
    drawn_old = set(at(jobs, before)["person"]) & set(old_people.index)
    drawn_new = set(at(jobs, after)["person"]) & set(new_people.index)
    role_changed = {pid for pid in drawn_old & drawn_new if old_people.loc[pid, "role"] != new_people.loc[pid, "role"]}
    nodes = changes[(changes["kind"] == "node") & (changes["change"] == "changed")]
    assert set(nodes["id"]) == role_changed
    assert set(nodes["property"]) == {"role"}
    assert set(changes[(changes["kind"] == "node") & (changes["change"] == "added")]["id"]) == drawn_new - drawn_old
    marks = {node.id: node.properties["change"] for node in result.subgraph.nodes.values()}
    assert {marks[pid] for pid in role_changed} == {"changed"}
    assert set(marks.values()) >= {"changed", "same"}
    assert result.subgraph.highlight_edges == set(relationships["id"])


def test_a_slow_diff_or_timeline_says_its_plans_slow_shape_once(loaded, monkeypatch):
    monkeypatch.setattr(query, "EXPLAIN_AFTER", 0)  # every read counts as slow here
    pairs = "MATCH (c:Company {name: 'Company 1'}), (p:Person) RETURN p, c"  # a cartesian product: a known slow shape
    for reads, notes in ((2, gestalt_nb.diff(pairs, MOMENTS[0], MOMENTS[2], limit=10_000).notes),
                         (3, gestalt_nb.timeline(pairs, MOMENTS, limit=10_000).notes)):
        said = [note for note in notes if "slow shape" in note]
        assert len(said) == 1, said
        assert said[0].startswith(f"The slowest of the {reads} reads took ") and "Its plan has a known slow shape: cartesian product" in said[0]
    typed = gestalt_nb.diff(READ, MOMENTS[0], MOMENTS[2], limit=10_000)
    assert not [note for note in typed.notes if "slow shape" in note]


def digest(path):
    return hashlib.sha256((path / "data.mdb").read_bytes()).hexdigest()


def test_as_of_reads_write_no_byte_and_writes_are_refused(loaded):
    *_, path = loaded
    data = next(path.rglob("data.mdb")).parent
    before = digest(data)
    gestalt_nb.run(READ, as_of=MOMENTS[1], known_at="2030-01-01")
    gestalt_nb.diff(READ.replace("RETURN p.name AS person, p.role AS role, c.name AS company, id(r) AS job", "RETURN p, r, c"), MOMENTS[0], MOMENTS[1])
    assert digest(data) == before
    with pytest.raises(GestaltError, match="Refused: a read as of .* cannot write"):
        gestalt_nb.run("MATCH (p:Person) SET p.x = 1 RETURN p", as_of=MOMENTS[0], write=True)
    assert digest(data) == before


def test_gcypher_as_of_answers_the_cell_over_that_moment(loaded, shell):
    people, companies, jobs, _ = loaded
    result = run(shell, f"%%gcypher --as-of {MOMENTS[1]} --limit 10000\n{READ}")
    assert rows(result) == reference(people, companies, jobs, MOMENTS[1])


@pytest.mark.parametrize(("column", "values", "said"), [
    ("to", ["2020-01-01", "2018-01-01"], "row 1.*'to'.*ends .* before it starts"),
    ("from", ["2019-01-01", "not a date"], "row 1.*'from'.*'not a date' is not a moment"),
])
def test_a_malformed_interval_is_refused_with_its_row_and_column_and_nothing_written(shell, tmp_path, column, values, said):
    run(shell, f"%gestalt create {tmp_path / 'bad'}")
    data = next((tmp_path / "bad").rglob("data.mdb")).parent
    before = digest(data)
    frame = pd.DataFrame({"id": ["a", "b"], "from": ["2019-01-01", "2019-01-01"], "to": [None, None]})
    frame[column] = values
    with pytest.raises(GestaltError, match=said):
        gestalt_nb.load_nodes(frame, id="id", label="Person", valid_from="from", valid_to="to")
    assert digest(data) == before


def test_epoch_seconds_and_open_ends_are_moments(shell, tmp_path):
    run(shell, f"%gestalt create {tmp_path / 'epoch'}")
    frame = pd.DataFrame({"id": ["a", "b"], "since": [1_600_000_000, None], "until": [1_700_000_000, 1_650_000_000]})
    gestalt_nb.load_nodes(frame, id="id", label="Thing", valid_from="since", valid_to="until")
    ids = lambda moment: sorted(gestalt_nb.run("MATCH (t:Thing) RETURN t.id AS id", as_of=moment).df["id"])
    assert ids("2021-06-01") == ["a", "b"]
    assert ids("2023-06-01") == ["a"]
    assert ids(1_000_000_000) == ["b"]
    assert ids("2024-06-01") == []


def test_the_moments_graph_follows_gestaltdbs_own_as_of_reads(loaded):
    """visible.at picks what GestaltDB's get_node_as_of / get_edge_as_of pick, a correction and known_at included."""
    from gestalt_nb.temporal import moments, visible

    people, _, jobs, _ = loaded
    recorded = datetime.now(timezone.utc)
    time.sleep(0.01)
    fix = pd.DataFrame([{"id": "p1", "name": "Person 1", "role": "director", "from": "2021-01-01", "to": "2022-01-01"}])
    gestalt_nb.load_nodes(fix, id="id", label="Person", valid_from="from", valid_to="to")
    db = gestalt_nb.connection().db
    for moment in ["2021-06-01", MOMENTS[1]]:
        for known in (recorded, None):
            when, horizon = moments.instant(moment, "as_of"), None if known is None else moments.instant(known, "known_at")
            nodes, edges = visible.at(db, when, horizon)
            ours = {node.get_id: node.properties for node in nodes}
            for pid in ["p0", "p1", "p2", "p3"]:
                theirs = db.get_node_as_of(pid, valid_time=when, system_time=horizon)
                assert (ours.get(pid), pid) == ((theirs.node.properties if theirs else None), pid)
            ends = {edge.get_id: (edge.source, edge.target) for edge in edges}
            for job in ["j0a", "j0b", "j1a", "j1b", "j2a"]:
                theirs = db.get_edge_as_of(job, valid_time=when, system_time=horizon)
                assert ends.get(job) == ((theirs.edge.source, theirs.edge.target) if theirs else None)


def test_a_diff_displays_as_its_drawing_coloured_by_change_its_changes_and_its_query(shell, tmp_path):
    run(shell, f"%gestalt create {tmp_path / 'shown'}")
    frame = pd.DataFrame({"id": ["a", "b", "c"], "change": ["user's own", "kept", "x"], "role": ["dev", "dev", "ops"],
                          "since": ["2020-01-01", "2020-01-01", "2023-01-01"], "until": [None, "2022-01-01", None]})
    gestalt_nb.load_nodes(frame, id="id", label="Person", valid_from="since", valid_to="until")
    shown = run(shell, "import gestalt_nb\ngestalt_nb.diff('MATCH (p:Person) RETURN p', '2021-01-01', '2024-01-01')")
    assert shown.change_property == "change (diff)"  # the read's nodes have their own "change", kept as it is
    assert {node.properties["change"] for node in shown.subgraph.nodes.values()} == {"user's own", "kept", "x"}
    marks = {node.id: node.properties["change (diff)"] for node in shown.subgraph.nodes.values()}
    assert marks == {"a": "same", "b": "removed", "c": "added"}
    assert shown.canvas.graph["view"]["style"]["color"] == {"by": "property", "name": "change (diff)", "colours": CHANGE_COLOURS}
    assert [title for title, _ in shown.view.tabs()] == ["Graph", "Changes", "Query"]
    assert "2021-01-01T00:00:00Z → 2024-01-01T00:00:00Z: 1 added, 1 removed, 0 changed" in shown.view.text()
