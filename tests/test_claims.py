"""%claims on a real LMDB graph with contradicting claims, corrections, a retraction and a rule."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

import gestalt_nb  # noqa: F401 - the package first, as a user imports it
from gestalt_nb.claims import ClaimAPI

from .conftest import run

BEFORE_DENIAL = "2024-01-01T00:00:00Z"
AFTER_DENIAL = "2024-07-01T00:00:00Z"


def commits(connection):
    return [commit.commit_id for commit in connection.db.iter_temporal_commits()]


def test_status_is_both_where_agents_disagree_and_moves_with_valid_time(shell, demo):
    before = run(shell, f"%claims status alice WORKS_FOR acme --valid-time {BEFORE_DENIAL}")
    after = run(shell, f"%claims status alice WORKS_FOR acme --valid-time {AFTER_DENIAL} -o alice_job")
    assert before.status == "supported" and after.status == "both"
    assert shell.user_ns["alice_job"] is after
    assert list(after.supporting["agent"]) == ["hr-system"] and list(after.refuting["agent"]) == ["news-crawler"]
    assert after.refuting.iloc[0]["valid"] == "[2024-06-01T00:00:00Z, ∞)"
    only_hr = run(shell, f"%claims status alice WORKS_FOR acme --valid-time {AFTER_DENIAL} --agent hr-system")
    assert only_hr.status == "supported"
    assert run(shell, f"%claims status alice WORKS_FOR globex --valid-time {AFTER_DENIAL}").status == "unknown"
    assert run(shell, "%claims status alice WORKS_FOR acme --valid-time 2010-01-01T00:00:00Z").status == "unknown"
    assert "BOTH" in after.show()._repr_mimebundle_()["text/html"]


def test_retraction_and_knowledge_time_travel(shell, demo):
    status = run(shell, f"%claims status alice WORKS_FOR acme --valid-time {AFTER_DENIAL}")
    denial = status.refuting.iloc[0]
    known_before = commits(demo)[-1]
    run(shell, f"%claims retract {denial.claim_id} --supersedes {denial.version_id} --reason 'Acme confirmed' --write")
    assert run(shell, f"%claims status alice WORKS_FOR acme --valid-time {AFTER_DENIAL}").status == "supported"
    past = run(shell, f"%claims status alice WORKS_FOR acme --valid-time {AFTER_DENIAL} --through-commit {known_before}")
    assert past.status == "both"
    hr_only = run(shell, f"%claims status alice WORKS_FOR acme --valid-time {AFTER_DENIAL} --through-commit 1")
    assert hr_only.status == "supported"  # commit 1 holds only the HR assertion
    assert run(shell, f"%claims status alice WORKS_FOR acme --valid-time {AFTER_DENIAL} --through-commit 0").status == "unknown"


def test_time_travel_widget_recomputes(shell, demo):
    view = run(shell, f"%claims status alice WORKS_FOR acme --valid-time {AFTER_DENIAL}").show()
    view.widget  # noqa: B018 - builds the widget (made on first read)
    assert view.through_commit.value == commits(demo)[-1]
    view.through_commit.value = 1
    assert view.result.status == "supported" and "knowledge through commit 1" in view.content.value
    view.through_commit.value = view.through_commit.max
    assert view.result.status == "both"
    view.valid_time.value = BEFORE_DENIAL
    assert view.result.status == "supported" and "SUPPORTED" in view.content.value
    view.valid_time.value = "yesterday"
    assert "not an ISO-8601 time" in view.message.value and view.result.status == "supported"


def test_explanation_subgraph_is_exactly_what_the_database_returns(shell, demo):
    based = run(shell, f"%claims search --predicate BASED_IN --subject bob --valid-time {BEFORE_DENIAL}")
    assert len(based) == 1
    claim_id = based.df.iloc[0]["claim_id"]
    explanation = run(shell, f"%claims explain {claim_id} --valid-time {BEFORE_DENIAL} -o why")
    truth = demo.db.explain_claim(claim_id, valid_time=BEFORE_DENIAL)
    assert set(explanation.subgraph.nodes) == {node.node_id for node in truth.nodes}
    drawn = {(edge.source, edge.type, edge.target) for edge in explanation.subgraph.edges.values()}
    assert drawn == {(edge.source_id, edge.relationship.upper(), edge.target_id) for edge in truth.edges}
    assert explanation.subgraph.highlight_nodes == {truth.root_version_id}
    kinds = {node.labels[0] for node in explanation.subgraph.nodes.values()}
    assert kinds == {"Claim", "Rule"}
    rule = next(node for node in explanation.subgraph.nodes.values() if node.labels == ("Rule",))
    assert rule.properties["rule"] == "(?p WORKS_FOR ?c) ∧ (?c LOCATED_IN ?l) ⇒ (?p BASED_IN ?l)"
    assert not explanation.truncated


def test_explanation_truncation_is_shown(demo):
    api = ClaimAPI(demo, max_chars=1500)
    claim_id = api.search(predicate="BASED_IN", subject="bob", valid_time=BEFORE_DENIAL).df.iloc[0]["claim_id"]
    small = api.explain(claim_id, valid_time=BEFORE_DENIAL)
    assert small.truncated and small.subgraph.truncated
    assert "The explanation was truncated" in small.show().text()


def test_writes_without_write_are_refused_and_change_nothing(shell, demo):
    before = commits(demo)
    status = run(shell, f"%claims status alice WORKS_FOR acme --valid-time {AFTER_DENIAL}")
    row = status.supporting.iloc[0]
    for line in (
        "assert eva WORKS_FOR acme --polarity positive --agent me --provenance {} --valid-from 2025-01-01T00:00:00Z",
        f"correct {row.claim_id} --supersedes {row.version_id} --confidence 0.5",
        f"retract {row.claim_id} --supersedes {row.version_id}",
    ):
        with pytest.raises(UsageError, match="Refused: .* claim writes are off by default. Nothing was written"):
            run(shell, f"%claims {line}")
    assert commits(demo) == before


def test_assert_correct_retract_history(shell, demo):
    made = run(
        shell,
        "%claims assert eva WORKS_FOR acme --polarity positive --agent recruiter --source offer.pdf --confidence 0.7 "
        "--provenance '{\"page\": 2}' --valid-from 2025-01-01T00:00:00Z --write",
    )
    claim_id, first = made.df.iloc[0]["claim_id"], made.df.iloc[0]["version_id"]
    fixed = run(shell, f"%claims correct {claim_id} --supersedes {first} --confidence 0.9 --write")
    second = fixed.df.iloc[0]["version_id"]
    run(shell, f"%claims retract {claim_id} --supersedes {second} --reason 'offer declined' --valid-from 2025-03-01T00:00:00Z --write")
    history = run(shell, f"%claims history {claim_id} -o eva_history").df
    assert list(history["operation"]) == ["assert", "correct", "retract"]
    assert list(history["confidence"])[:2] == [0.7, 0.9]
    assert history.iloc[0]["provenance"] == '{"page": 2}'
    assert history["system time"].is_monotonic_increasing
    assert run(shell, "%claims status eva WORKS_FOR acme --valid-time 2025-02-01T00:00:00Z").status == "supported"
    assert run(shell, "%claims status eva WORKS_FOR acme --valid-time 2025-04-01T00:00:00Z").status == "unknown"


def test_claim_writes_flag_on_the_connection(shell, tmp_path):
    run(shell, f"%gestalt create {tmp_path / 'cw'} --claim-writes")
    run(shell, "%claims assert a KNOWS b --polarity negative --agent me --provenance {} --valid-from 2025-01-01T00:00:00Z")
    assert run(shell, "%claims status a KNOWS b --valid-time 2025-06-01T00:00:00Z").status == "refuted"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("status alice WORKS_FOR acme --valid-time 2024-07-01", "has no timezone; add one, like 2024-06-01T00:00:00Z"),
        ("status alice WORKS_FOR acme --valid-time July", "'July' is not an ISO-8601 time"),
        ("status alice WORKS_FOR acme --system-time 2024-07-01T00:00:00Z --through-commit 2", "either a system time or --through-commit"),
        ("explain claim:nope --valid-time 2024-07-01T00:00:00Z", "No claim 'claim:nope' is visible at valid time"),
        ("history claim:nope", "No claim with id 'claim:nope'"),
        ("correct claim:nope --supersedes v1 --confidence 0.5 --write", "No claim with id 'claim:nope'"),
        ("assert a B c --polarity positive --agent me --provenance nope --valid-from 2025-01-01T00:00:00Z --write", "--provenance must be a JSON object"),
        ("assert a B c --agent me --provenance {} --valid-from 2025-01-01T00:00:00Z --write", "--polarity is required"),
        ("assert a B c --polarity positive --agent me --provenance {} --valid-from 2025-01-01 --write", "--valid-from '2025-01-01T00:00:00' has no timezone"),
        ("frobnicate", "invalid choice: 'frobnicate'"),
    ],
)
def test_clear_messages_for_bad_times_ids_and_arguments(shell, demo, line, message):
    with pytest.raises(UsageError) as caught:
        run(shell, f"%claims {line}")
    assert message in str(caught.value)


def test_wrong_supersedes_version_names_the_latest(shell, demo):
    status = run(shell, f"%claims status alice WORKS_FOR acme --valid-time {AFTER_DENIAL}")
    row = status.supporting.iloc[0]
    with pytest.raises(UsageError, match=rf"'v-unknown' is not a version of {row.claim_id}; .*the latest is {row.version_id}"):
        run(shell, f"%claims correct {row.claim_id} --supersedes v-unknown --confidence 0.1 --write")


def test_search_table_sorts_and_shows_polarity_and_world(shell, demo):
    table = run(shell, f"%claims search --subject alice --valid-time {AFTER_DENIAL}")
    assert set(table.df["polarity"]) == {"positive", "negative"} and set(table.df["world"]) == {"default"}
    view = table.show()
    view.widget  # noqa: B018 - builds the widget (made on first read)
    view.sort.value = "agent"
    agents = [line for line in ("hr-system", "news-crawler", "gestaltdb:rules") if line in view.content.value]
    order = sorted(agents, key=view.content.value.index)
    assert order == sorted(agents)


def test_evidence_tables_read_at_a_900px_width(shell, demo):
    """Short times and ids in the view (the frames keep them whole), so the table fits a notebook."""
    from gestalt_nb.views.claim_views import evidence_frame

    status = ClaimAPI(demo).status("bob", "BASED_IN", "nairobi", valid_time="2024-06-01T00:00:00Z")
    shown = evidence_frame(status.supporting)
    row, whole = shown.iloc[0], status.supporting.iloc[0]
    assert row["version"].endswith("…") and len(row["version"]) <= 15 and whole["version_id"].startswith(row["version"][:-1])
    assert "T00:00:00" not in row["valid"] and len(row["provenance"]) <= 60
    assert row["source"] in ("", whole["source"]) and "None" not in str(list(row))
