"""Several history loads as one commit of GestaltDB's history (``with gestalt_nb.one_history_commit():``): the same
graph at every moment as the loads one by one, in one commit; a relationship to a node only the block holds; a load
that fails inside the block holds nothing; the block's end writes what the finished loads held, even when it raised."""

from __future__ import annotations

import pandas as pd
import pytest

import gestalt_nb

from .test_temporal import MOMENTS, READ, history, reference, rows


def commits(connection) -> int:
    return sum(1 for _ in connection.db.iter_temporal_commits())


def load(people, companies, jobs) -> list:
    return [gestalt_nb.load_nodes(people, id="id", label="Person", valid_from="from", valid_to="to"),
            gestalt_nb.load_nodes(companies, id="id", label="Company", valid_from="from", valid_to="to"),
            gestalt_nb.load_edges(jobs, source="person", target="company", type="WORKS_AT", id="job", valid_from="from", valid_to="to")]


def test_three_loads_in_the_block_are_one_commit_and_read_as_the_three_loads_do(shell, tmp_path):
    people, companies, jobs = history(people=120)
    one = gestalt_nb.create(str(tmp_path / "one"), alias="one")
    with gestalt_nb.one_history_commit():
        results = load(people, companies, jobs)
        assert commits(one) == 0  # held: nothing of the history is written before the block ends
        assert one.run("MATCH (p:Person) RETURN count(p) AS n").df["n"][0] == 120  # what is valid now is written at once
    assert commits(one) == 1
    assert all("held for one_history_commit()" in result.notes[0] for result in results)
    three = gestalt_nb.create(str(tmp_path / "three"), alias="three")
    load(people, companies, jobs)
    assert commits(three) == 3
    for moment in MOMENTS:
        expected = reference(people, companies, jobs, moment)
        assert rows(one.run(READ, as_of=moment, limit=10_000)) == expected == rows(three.run(READ, as_of=moment, limit=10_000)), moment
    assert one.run(READ, limit=10_000).df.equals(three.run(READ, limit=10_000).df)  # the present alike


def test_a_relationship_may_end_at_a_node_only_the_block_holds_and_a_bad_load_holds_nothing(shell, tmp_path):
    connection = gestalt_nb.create(str(tmp_path / "g"))
    past = pd.DataFrame({"id": ["old"], "name": ["Old Co"], "from": ["2001-01-01"], "to": ["2002-01-01"]})  # not valid now
    who = pd.DataFrame({"id": ["ada"], "name": ["Ada"], "from": ["2000-01-01"], "to": [None]})
    job = pd.DataFrame({"s": ["ada"], "t": ["old"], "from": ["2001-01-01"], "to": ["2002-01-01"]})
    stray = pd.DataFrame({"s": ["ada"], "t": ["nobody"], "from": ["2001-01-01"], "to": [None]})
    with gestalt_nb.one_history_commit():
        gestalt_nb.load_nodes(pd.concat([past, who]), id="id", label="Org", valid_from="from", valid_to="to")
        gestalt_nb.load_edges(job, source="s", target="t", type="AT", valid_from="from", valid_to="to")  # 'old' is only held
        with pytest.raises(gestalt_nb.GestaltError, match="'nobody' is not a node, now or in the history"):
            gestalt_nb.load_edges(stray, source="s", target="t", type="AT", valid_from="from", valid_to="to")
        assert len(connection._held_versions) == 3  # the refused load held nothing
    assert commits(connection) == 1
    found = connection.run("MATCH (a)-[r:AT]->(b) RETURN a.name AS a, b.name AS b", as_of="2001-06-01").df
    assert found.to_dict("records") == [{"a": "Ada", "b": "Old Co"}]
    assert connection.run("MATCH (a)-[r:AT]->(b) RETURN count(r) AS n").df["n"][0] == 0  # not valid now


def test_the_block_writes_what_its_finished_loads_held_when_it_raises_and_does_not_nest(shell, tmp_path):
    connection = gestalt_nb.create(str(tmp_path / "g"))
    who = pd.DataFrame({"id": ["ada"], "from": ["2000-01-01"], "to": ["2010-01-01"]})
    with pytest.raises(KeyError, match="the person's own mistake"):
        with connection.one_history_commit():
            connection.load_nodes(who, id="id", label="P", valid_from="from", valid_to="to")
            with pytest.raises(gestalt_nb.GestaltError, match=r"^one_history_commit\(\) is already open on connection '.+': blocks do not nest"):
                with connection.one_history_commit():
                    pass
            raise KeyError("the person's own mistake")  # after a load that finished
    assert commits(connection) == 1 and connection._held_versions is None
    assert len(connection.run("MATCH (n:P) RETURN n", as_of="2005-01-01").records) == 1
    connection.load_nodes(who.assign(id="bo"), id="id", label="P", valid_from="from", valid_to="to")  # after the block: a commit of its own
    assert commits(connection) == 2

