"""``%gdiff`` and the overview at a moment (``overview(as_of=, known_at=, since=)``, ``%goverview --as-of``), in a real
shell on a real LMDB history, against a pandas reference; neither writes a byte of the data file."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd
import pytest
from IPython.core.error import UsageError

import gestalt_nb
from gestalt_nb.temporal import asof
from gestalt_nb.temporal.diff import DiffResult

from . import test_temporal
from .conftest import run
from .test_temporal import MOMENTS, at, digest

ROOT = Path(__file__).resolve().parents[1]
loaded = test_temporal.loaded  # the fixture: test_temporal's history of people, companies and jobs, loaded
JOBS = "MATCH (p:Person)-[r:WORKS_AT]->(c:Company) RETURN p, r, c"


def staff(people: int = 300, companies: int = 6, seed: int = 11):
    """People who join (their node valid from their hire) and some who leave (valid until then), each employed at
    one company over their time: nodes come and go, so groups grow and shrink."""
    rnd = random.Random(seed)
    person_rows, job_rows = [], []
    for number in range(people):
        hired = datetime(2020 + rnd.randrange(0, 4), rnd.randrange(1, 13), 1, tzinfo=timezone.utc)
        left = datetime(hired.year + 1 + rnd.randrange(0, 2), rnd.randrange(1, 13), 1, tzinfo=timezone.utc) if rnd.random() < 0.3 else None
        hired_text, left_text = hired.date().isoformat(), None if left is None else left.date().isoformat()
        person_rows.append({"id": f"s{number}", "name": f"Staff {number}", "from": hired_text, "to": left_text})
        job_rows.append({"job": f"e{number}", "person": f"s{number}", "company": f"k{number % companies}", "from": hired_text, "to": left_text})
    company_rows = [{"id": f"k{n}", "name": f"Firm {n}", "from": None, "to": None} for n in range(companies)]
    return pd.DataFrame(person_rows), pd.DataFrame(company_rows), pd.DataFrame(job_rows)


@pytest.fixture
def growing(shell, tmp_path):
    path = tmp_path / "growing"
    run(shell, f"%gestalt create {path}")
    people, companies, jobs = staff()
    gestalt_nb.load_nodes(people, id="id", label="Person", valid_from="from", valid_to="to")
    gestalt_nb.load_nodes(companies, id="id", label="Company", valid_from="from", valid_to="to")
    gestalt_nb.load_edges(jobs, source="person", target="company", type="WORKS_AT", id="job", valid_from="from", valid_to="to")
    return people, companies, jobs, path


def ids_at(people, companies, moment) -> set[str]:
    return set(at(people, moment)["id"]) | set(at(companies, moment)["id"])


def by_kind(changes: pd.DataFrame, kind: str, change: str) -> set:
    return set(changes[(changes["kind"] == kind) & (changes["change"] == change)]["id"])


def test_gdiff_is_gestalt_nb_diff_on_the_line_with_a_comment_and_keeps_its_result(loaded, shell):
    people, _, jobs, _ = loaded
    before, after = MOMENTS[0], MOMENTS[2]
    result = run(shell, f"%gdiff {before} {after} --query '{JOBS}' --limit 10000 -o moved  # who moved")
    assert isinstance(result, DiffResult) and shell.user_ns["moved"] is result
    old_jobs, new_jobs = set(at(jobs, before)["job"]), set(at(jobs, after)["job"])
    assert by_kind(result.changes, "relationship", "added") == new_jobs - old_jobs
    assert by_kind(result.changes, "relationship", "removed") == old_jobs - new_jobs
    same = gestalt_nb.diff(JOBS, before, after, limit=10_000).changes
    assert result.changes.sort_values(["id", "property"]).to_dict("records") == same.sort_values(["id", "property"]).to_dict("records")


def test_gdiff_without_a_query_compares_the_whole_graph(loaded, shell):
    people, companies, jobs, _ = loaded
    before, after = MOMENTS[0], MOMENTS[1]
    result = run(shell, f"%gdiff {before} {after} --limit 100000")
    changes = result.changes
    old_jobs, new_jobs = set(at(jobs, before)["job"]), set(at(jobs, after)["job"])
    assert by_kind(changes, "relationship", "added") == new_jobs - old_jobs
    assert by_kind(changes, "relationship", "removed") == old_jobs - new_jobs
    old_roles, new_roles = at(people, before).set_index("id")["role"], at(people, after).set_index("id")["role"]
    assert by_kind(changes, "node", "changed") == {pid for pid in new_roles.index if old_roles[pid] != new_roles[pid]}
    assert by_kind(changes, "node", "added") == by_kind(changes, "node", "removed") == set()  # nobody came or went
    assert len(result.subgraph.nodes) == len(people["id"].unique()) + len(companies)


def test_a_diff_of_reads_cut_at_the_limit_says_so(loaded, shell):
    cut = run(shell, f"%gdiff {MOMENTS[0]} {MOMENTS[1]} --limit 5")
    assert cut.notes[0].startswith("The read was cut at 5 rows at both moments: what lies past the cut")
    assert "cut" not in " ".join(run(shell, f"%gdiff {MOMENTS[0]} {MOMENTS[1]} --limit 100000").notes)


def test_gdiff_known_at_reads_both_moments_as_recorded_then(loaded, shell):
    people, *_ = loaded
    recorded = datetime.now(timezone.utc)
    time.sleep(0.01)
    fix = pd.DataFrame([{"id": "p0", "name": "Person 0", "role": "director", "from": "2019-01-01", "to": None}])
    gestalt_nb.load_nodes(fix, id="id", label="Person", valid_from="from", valid_to="to")
    query = "--query 'MATCH (p:Person {name: \"Person 0\"}) RETURN p'"
    now = run(shell, f"%gdiff {MOMENTS[0]} {MOMENTS[2]} {query}")
    assert by_kind(now.changes, "node", "changed") == set()  # director throughout, after the correction
    then = run(shell, f"%gdiff {MOMENTS[0]} {MOMENTS[2]} {query} --known-at {recorded.isoformat().replace('+00:00', 'Z')}")
    roles = at(people[people["id"] == "p0"], MOMENTS[0])["role"].tolist() + at(people[people["id"] == "p0"], MOMENTS[2])["role"].tolist()
    changed = then.changes[then.changes["property"] == "role"]
    assert changed[["before", "after"]].values.tolist() == ([roles] if roles[0] != roles[1] else [])


@pytest.mark.parametrize(("line", "said"), [
    ("%gdiff 2021-01-01", r"the following arguments are required: WHEN2\n.*usage: %gdiff"),
    ("%gdiff soon 2022-01-01", r"^before='soon' is not a moment"),
    ("%gdiff 2021-01-01 2022-01-01 --query 'MATCH (n) SET n.x = 1 RETURN n'", r"^Refused: a read as of .* cannot write"),
])
def test_gdiff_errors_are_one_line(loaded, shell, line, said):
    with pytest.raises(UsageError, match=said):
        run(shell, line)


def test_the_overview_as_of_a_moment_holds_the_nodes_valid_then(growing, monkeypatch):
    people, companies, _, _ = growing
    monkeypatch.setattr(asof, "HISTORY_NOTE_AFTER", 0)  # said however quick (a small history reads at once)
    for number, moment in enumerate(("2021-06-01", "2023-06-01")):
        grouped = gestalt_nb.overview(by="label", as_of=moment)
        read = [note for note in grouped.notes if note.startswith("The database's history was read first: ")]
        assert len(read) == (1 if number == 0 else 0), read  # the first overview of a moment says it read the history
        sizes = dict(zip(grouped.groups["name"], grouped.groups["size"]))
        assert sizes == {"Person": len(at(people, moment)), "Company": len(companies)}, moment
        assert set(gestalt_nb.overview(as_of=moment).membership.index) == ids_at(people, companies, moment)
        assert f"as of {moment}T00:00:00Z" in grouped.notes[0] and f"as of {moment}" in grouped.subgraph.title
    present = gestalt_nb.overview()
    assert set(present.membership.index) == ids_at(people, companies, pd.Timestamp.now(tz="UTC").isoformat())


def test_growth_since_counts_each_groups_members_added_and_removed_against_the_reference(growing):
    people, companies, _, _ = growing
    since, moment = "2021-06-01", "2023-06-01"
    grown = gestalt_nb.overview(as_of=moment, since=since)
    then, now = ids_at(people, companies, since), ids_at(people, companies, moment)
    assert set(grown.membership.index) == then | now
    groups = grown.groups.set_index("group")
    for group, members in grown.membership.groupby(grown.membership).groups.items():
        members = set(members)
        row = groups.loc[group]
        assert (row["before"], row["after"], row["added"], row["removed"]) == (
            len(members & then), len(members & now), len(members & (now - then)), len(members & (then - now))), group
    assert groups["added"].sum() == len(now - then) > 0 and groups["removed"].sum() == len(then - now) > 0
    assert all(f"(+{row.added:,} −{row.removed:,})" in row.caption for row in grown.groups.itertuples())
    super_node = grown.subgraph.nodes[grown.node_id(0)]
    assert {key: super_node.properties[key] for key in ("before", "after", "added", "removed")} == {
        key: int(groups.loc[0, key]) for key in ("before", "after", "added", "removed")}


def test_goverview_as_of_and_since_on_the_line(growing, shell):
    grown = run(shell, "%goverview --by label --as-of 2023-06-01 --since 2021-06-01 -o grown  # two years of hiring")
    assert shell.user_ns["grown"] is grown and {"before", "after", "added", "removed"} <= set(grown.groups.columns)
    with pytest.raises(UsageError, match=r"^since='2024-01-01' is not before the moment shown \(2023-06-01T00:00:00Z\)"):
        run(shell, "%goverview --as-of 2023-06-01 --since 2024-01-01")
    with pytest.raises(UsageError, match=r"^as_of='later' is not a moment"):
        run(shell, "%goverview --as-of later")


def test_no_diff_or_overview_at_a_moment_writes_a_byte(growing, shell):
    *_, path = growing
    data = next(path.rglob("data.mdb")).parent
    before = digest(data)
    run(shell, "%gdiff 2021-01-01 2023-01-01")
    run(shell, "%goverview --as-of 2022-01-01 --known-at 2030-01-01")
    gestalt_nb.overview(as_of="2023-06-01", since="2021-06-01", by="community")
    assert digest(data) == before


GROUPS_OF = """
import json, sys
import gestalt_nb
gestalt_nb.connect(sys.argv[1], read_only=True)
grouped = gestalt_nb.overview(as_of="2023-06-01")
print(json.dumps({str(key): int(value) for key, value in grouped.membership.items()}))
"""


def test_the_same_state_and_moment_give_the_same_groups_in_every_process(growing):
    *_, path = growing
    here = {str(key): int(value) for key, value in gestalt_nb.overview(as_of="2023-06-01").membership.items()}
    gestalt_nb.connection().close()  # the other processes open it read-only
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", GROUPS_OF, str(path)], capture_output=True, text=True, timeout=300, env=env)
        assert done.returncode == 0, done.stderr[-2000:]
        assert json.loads(done.stdout.strip().splitlines()[-1]) == here


def test_an_overview_whose_moment_was_let_go_says_to_read_it_again(growing):
    from gestalt_nb.errors import GestaltError
    from gestalt_nb.temporal import visible

    grouped = gestalt_nb.overview(by="label", as_of="2021-06-01")
    for year in range(2022, 2022 + visible.KEEP):  # more moments than are kept: the first one's copy is let go
        gestalt_nb.run("MATCH (n) RETURN count(n) AS c", as_of=f"{year}-06-01")
    with pytest.raises(GestaltError, match=r"the graph as of 2021-06-01T00:00:00Z, copied from the database's history .* again\.$"):
        grouped.drill_subgraph(0)
