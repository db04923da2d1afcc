"""GraphRAG with a scripted chat model: extraction, validation, resolution, source links, multi-hop answers."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document
from langchain_core.messages import AIMessage
from pydantic import BaseModel

import gestalt_nb
from gestalt_nb.agents import ScriptedChatModel
from gestalt_nb.graphrag import prompts
from gestalt_nb.graphrag.extraction import schema_for

from .conftest import run


@pytest.fixture
def empty(shell, tmp_path):
    run(shell, f"%gestalt create {tmp_path / 'rag'}")
    return gestalt_nb.connection()


def graph(nodes, relationships=(), call_id="g"):
    """The model's ExtractedGraph answer as a tool call."""
    args = {"nodes": [{"id": i, "type": t, "properties": {}} for i, t in nodes],
            "relationships": [{"source_id": s, "target_id": o, "type": t, "properties": {}} for s, t, o in relationships]}
    return AIMessage(content="", tool_calls=[{"name": "ExtractedGraph", "args": args, "id": call_id, "type": "tool_call"}])


def named(*names):
    return AIMessage(content="", tool_calls=[{"name": "EntityNames", "args": {"names": list(names)}, "id": "n", "type": "tool_call"}])


def entities(connection):
    """Every non-internal node as (id, labels, properties), read from the raw store."""
    db = connection.db
    out = {}
    for key in db.get_node_keys_generator():
        node = db.get_node(key)
        if not any(label.startswith("__") for label in node.labels):
            out[node.get_id] = node
    return out


def facts(connection):
    records = connection.db.query("MATCH (a)-[r]->(b) RETURN a.name AS a, type(r) AS t, b.name AS b").records
    return {(r["a"], r["t"], r["b"]) for r in records if r["t"] != "MENTIONS"}


def mentions(connection):
    """(document_id, entity id) for every source link."""
    records = connection.db.query("MATCH (s:__LangChainSource__)-[:MENTIONS]->(e) RETURN s.document_id AS d, e.name AS e").records
    return {(r["d"], r["e"]) for r in records}


CORPUS = [
    Document(id="d1", page_content="Alice Chen works at MongoDB in New York."),
    Document(id="d2", page_content="Bob Li founded MongoDB. Bob Li knows Alice Chen."),
]


def test_small_corpus_gives_exactly_the_expected_graph(empty):
    seen = []

    def first(messages):
        seen.append(messages[-1].content)
        return graph([("Alice Chen", "Person"), ("MongoDB", "Organization"), ("New York", "City")],
                     [("Alice Chen", "WORKS_AT", "MongoDB"), ("MongoDB", "LOCATED_IN", "New York")])

    model = ScriptedChatModel(responses=[first, graph([("Bob Li", "Person"), ("MongoDB", "Organization"), ("Alice Chen", "Person")],
                                                      [("Bob Li", "FOUNDED", "MongoDB"), ("Bob Li", "KNOWS", "Alice Chen")])])
    result = gestalt_nb.extract(CORPUS, model)
    assert "Alice Chen works at MongoDB" in seen[0] and "ExtractedGraph" in seen[0]
    assert not result.dropped and result.written and len(result.graph_documents) == 2
    nodes = entities(empty)
    assert {i: sorted(n.labels) for i, n in nodes.items()} == {
        "Alice Chen": ["Person"], "MongoDB": ["Organization"], "New York": ["City"], "Bob Li": ["Person"]}
    assert nodes["MongoDB"].properties["name"] == "MongoDB"  # names as written, never "Mongodb"
    assert facts(empty) == {("Alice Chen", "WORKS_AT", "MongoDB"), ("MongoDB", "LOCATED_IN", "New York"),
                            ("Bob Li", "FOUNDED", "MongoDB"), ("Bob Li", "KNOWS", "Alice Chen")}
    assert mentions(empty) == {("d1", "Alice Chen"), ("d1", "MongoDB"), ("d1", "New York"),
                               ("d2", "Bob Li"), ("d2", "MongoDB"), ("d2", "Alice Chen")}
    # the case-insensitive name lookup sees what extract wrote
    assert empty.subgraph(["mongodb"], max_hops=0).seed_node_ids == ["MongoDB"]
    assert {n.id for n in result.subgraph.nodes.values()} == set(nodes)
    assert "merged" not in result._repr_mimebundle_()["text/plain"] and "Person" in empty.graph.get_structured_schema["node_props"]


def test_a_document_the_model_cannot_answer_is_dropped_and_the_rest_written(empty):
    model = ScriptedChatModel(responses=[AIMessage(content="Sorry, I cannot help."), graph([("Bob Li", "Person")])])
    with pytest.warns(UserWarning, match="dropped 1 parts"):
        result = gestalt_nb.extract(CORPUS, model)
    assert [(d.document, d.kind, d.reason) for d in result.dropped] == [(0, "document", "the model gave no ExtractedGraph")]
    assert set(entities(empty)) == {"Bob Li"} and mentions(empty) == {("d2", "Bob Li")}


def test_allowed_types_go_into_prompt_and_schema():
    schema = schema_for(["Organization", "Person"], ["WORKS_AT"]).model_json_schema()
    text = str(schema)
    assert "'enum': ['Organization', 'Person']" in text and "'WORKS_AT'" in text
    assert schema_for(None, None).model_json_schema()["title"] == "ExtractedGraph"


BAD = [Document(id="b1", page_content="Alice Chen works at MongoDB. She lives in Paris.")]


def bad_model(seen=None):
    def respond(messages):
        if seen is not None:
            seen.append(messages[-1].content)
        return graph([("Alice Chen", "Person"), ("MongoDB", "Organization"), ("Paris", "City")],
                     [("Alice Chen", "WORKS_AT", "MongoDB"), ("Alice Chen", "LIVES_IN", "Paris"), ("MongoDB", "WORKS_AT", "Alice Chen")])
    return ScriptedChatModel(responses=[respond])


ALLOWED = {"allowed_node_types": ["Person", "Organization"], "allowed_relationship_types": [("Person", "WORKS_AT", "Organization")]}


def test_disallowed_types_are_dropped_with_reasons_under_warn(empty):
    seen = []
    with pytest.warns(UserWarning, match="dropped 3 parts"):
        result = gestalt_nb.extract(BAD, bad_model(seen), **ALLOWED)
    assert "Allowed node types: Organization, Person" in seen[0] and "(Person, WORKS_AT, Organization)" in seen[0]
    reasons = {(d.kind, d.item.get("id") or d.item.get("type"), d.reason.split(" (")[0]) for d in result.dropped}
    assert reasons == {
        ("node", "Paris", "type 'City' is not allowed"),
        ("relationship", "LIVES_IN", "its target 'Paris' was dropped"),
        ("relationship", "WORKS_AT", "(Organization, WORKS_AT, Person) is not an allowed triple"),
    }
    assert set(entities(empty)) == {"Alice Chen", "MongoDB"}
    assert facts(empty) == {("Alice Chen", "WORKS_AT", "MongoDB")}


def test_disallowed_types_raise_under_error_and_nothing_is_written(empty):
    good = Document(id="ok", page_content="Bob Li works at MongoDB.")
    model = ScriptedChatModel(responses=[graph([("Bob Li", "Person"), ("MongoDB", "Organization")], [("Bob Li", "WORKS_AT", "MongoDB")]),
                                         bad_model().responses[0]])
    revision = empty.feed.revision
    with pytest.raises(gestalt_nb.GestaltError, match="validate='error'.*Nothing was written"):
        gestalt_nb.extract([good, *BAD], model, validate="error", batch_size=1, **ALLOWED)
    assert model.position == 2  # the whole call was extracted before deciding
    assert empty.db.query("MATCH (n) RETURN count(n) AS c").records[0]["c"] == 0
    assert empty.feed.revision == revision


def test_differently_written_names_are_one_node_linked_to_both_sources(empty):
    docs = [Document(id="a", page_content="ACME Corp. hired Alice Chen."), Document(id="b", page_content="Bob Li left acme corp last year.")]
    model = ScriptedChatModel(responses=[
        graph([("ACME Corp.", "Organization"), ("Alice Chen", "Person")], [("ACME Corp.", "HIRED", "Alice Chen")]),
        graph([("Bob Li", "Person"), ("acme corp", "Company")], [("Bob Li", "LEFT", "acme corp")]),
    ])
    revision = empty.feed.revision
    result = gestalt_nb.extract(docs, model, batch_size=1)
    assert empty.feed.revision == revision + 2  # one change-feed event per batch
    nodes = entities(empty)
    assert set(nodes) == {"ACME Corp.", "Alice Chen", "Bob Li"}
    acme = nodes["ACME Corp."]
    assert sorted(acme.labels) == ["Company", "Organization"] and acme.properties["aliases"] == ["ACME Corp.", "acme corp"]
    assert {d for d, e in mentions(empty) if e == "ACME Corp."} == {"a", "b"}
    assert facts(empty) == {("ACME Corp.", "HIRED", "Alice Chen"), ("Bob Li", "LEFT", "ACME Corp.")}
    assert [(m.name, m.into) for m in result.merges] == [("acme corp", "ACME Corp.")]
    assert "__name_norm" not in empty.db.indexed_node_properties  # the resolution key is kept beside the graph
    assert all(not key.startswith("__name") for node in nodes.values() for key in node.properties)
    # a later call finds the node through the index (neither the lower-cased name nor the id match) and merges into it
    later = gestalt_nb.extract([Document(id="c", page_content="Acme  Corp is in Boston.")],
                               ScriptedChatModel(responses=[graph([("Acme  Corp", "Organization")])]))
    assert [(m.name, m.into, "already in the graph" in m.reason) for m in later.merges] == [("Acme  Corp", "ACME Corp.", True)]
    assert set(entities(empty)) == {"ACME Corp.", "Alice Chen", "Bob Li"}
    assert entities(empty)["ACME Corp."].properties["aliases"] == ["ACME Corp.", "acme corp", "Acme  Corp"]
    assert {d for d, e in mentions(empty) if e == "ACME Corp."} == {"a", "b", "c"}


MULTI = [Document(id="team", page_content="Jane Smith works with John Doe."),
         Document(id="jobs", page_content="Jane Smith works at MongoDB.")]


def multi_hop(empty):
    gestalt_nb.extract(MULTI, ScriptedChatModel(responses=[
        graph([("Jane Smith", "Person"), ("John Doe", "Person")], [("Jane Smith", "WORKS_WITH", "John Doe")]),
        graph([("Jane Smith", "Person"), ("MongoDB", "Organization")], [("Jane Smith", "WORKS_AT", "MongoDB")]),
    ]))


def test_multi_hop_answer_reaches_two_hops_and_shows_how(empty):
    multi_hop(empty)
    sent = []

    def reply(messages):
        sent.append(messages[-1].content)
        return AIMessage(content="Not directly: John Doe works with Jane Smith, who works at MongoDB.")

    a = gestalt_nb.answer("Does John Doe work at MongoDB?", ScriptedChatModel(responses=[named("john doe"), reply]))
    assert a.names == ["john doe"] and a.seeds == ["John Doe"]
    assert a.result.hops["MongoDB"] == 2
    assert "- Jane Smith -[WORKS_WITH]-> John Doe" in a.context and "- Jane Smith -[WORKS_AT]-> MongoDB" in a.context
    assert "Jane Smith works with John Doe." in a.context and "Jane Smith works at MongoDB." in a.context
    assert a.context in sent[0]  # exactly the text sent
    assert {s["document_id"] for s in a.sources} == {"team", "jobs"}
    assert a.paths == [["John Doe", "<-[WORKS_WITH]-", "Jane Smith", "-[WORKS_AT]->", "MongoDB"]]
    drawn = a.subgraph
    assert drawn.highlight_nodes == {"John Doe", "Jane Smith", "MongoDB"}
    assert {drawn.edges[e].type for e in drawn.highlight_edges} == {"WORKS_WITH", "WORKS_AT"}
    assert not a.truncated
    # one hop does not reach MongoDB: the depth is what found it
    near = gestalt_nb.answer("Does John Doe work at MongoDB?", ScriptedChatModel(responses=[named("John Doe"), AIMessage(content="Unknown.")]), max_depth=1)
    assert "MongoDB" not in near.result.hops and "-[WORKS_AT]->" not in near.context and near.paths == []


def test_two_named_entities_draw_the_path_between_them(empty):
    multi_hop(empty)
    a = gestalt_nb.answer("Does John Doe work at MongoDB?", ScriptedChatModel(responses=[named("John Doe", "MongoDB"), AIMessage(content="No.")]))
    assert a.seeds == ["John Doe", "MongoDB"]
    assert a.paths == [["John Doe", "<-[WORKS_WITH]-", "Jane Smith", "-[WORKS_AT]->", "MongoDB"]]


def test_context_is_bounded_and_says_when_cut(empty):
    multi_hop(empty)
    a = gestalt_nb.answer("Does John Doe work at MongoDB?", ScriptedChatModel(responses=[named("John Doe"), AIMessage(content="?")]),
                          max_context_chars=120)
    body, note = a.context.rsplit("\n", 1)
    assert len(body) <= 120 and note.startswith("[Context cut at 120 characters") and a.truncated
    few = gestalt_nb.answer("Does John Doe work at MongoDB?", ScriptedChatModel(responses=[named("John Doe"), AIMessage(content="?")]), max_passages=1)
    assert len(few.sources) == 1 and few.truncated and any("max_passages=1" in n for n in few.notes)


def test_names_failure_falls_back_to_the_questions_words(empty):
    multi_hop(empty)
    a = gestalt_nb.answer("Does John Doe work at MongoDB?", ScriptedChatModel(responses=[AIMessage(content="no idea"), AIMessage(content="Yes.")]))
    assert a.seeds == ["John Doe", "MongoDB"] and "used the question's words" in a.notes[0]


def test_gask_answer_shows_answer_beside_its_evidence(shell, empty):
    multi_hop(empty)
    shell.user_ns["llm"] = ScriptedChatModel(responses=[named("John Doe"), AIMessage(content="John Doe works with Jane Smith, who works at MongoDB.")])
    a = run(shell, "%%gask --answer --model llm\nDoes John Doe work at MongoDB?")
    assert isinstance(a, gestalt_nb.graphrag.Answer) and a.result.hops["MongoDB"] == 2
    bundle = a._repr_mimebundle_()
    assert "John Doe works with Jane Smith" in bundle["text/plain"] and "WORKS_AT" in bundle["text/html"]
    with pytest.raises(Exception, match="needs --model"):
        run(shell, "%%gask --answer\nDoes John Doe work at MongoDB?")


class LCNode(BaseModel):  # the shape of LangChain's (langchain-experimental) graph documents, without depending on it
    id: str
    type: str
    properties: dict = {}


class LCRelationship(BaseModel):
    source: LCNode
    target: LCNode
    type: str
    properties: dict = {}


class LCGraphDocument(BaseModel):
    nodes: list[LCNode]
    relationships: list[LCRelationship]
    source: Document


def test_langchain_graph_documents_take_the_same_path(empty):
    jane, mongo = LCNode(id="Jane Smith", type="Person"), LCNode(id="mongodb", type="Organization")
    docs = [LCGraphDocument(nodes=[jane, mongo], relationships=[LCRelationship(source=jane, target=mongo, type="WORKS_AT")], source=MULTI[1])]
    multi_hop(empty)
    result = gestalt_nb.ingest_graph_documents(docs)
    assert [(m.name, m.into) for m in result.merges] == [("mongodb", "MongoDB")]
    assert set(entities(empty)) == {"Jane Smith", "John Doe", "MongoDB"}
    with pytest.raises(gestalt_nb.GestaltError, match="no source Document"):
        gestalt_nb.ingest_graph_documents([{"nodes": [{"id": "X", "type": "T"}], "relationships": []}])


def test_prompts_are_constants_a_user_can_override(empty, monkeypatch):
    seen = []
    monkeypatch.setattr(prompts, "EXTRACTION_PROMPT", "CUSTOM {types}{examples}<<{text}>>")
    gestalt_nb.extract([MULTI[0]], ScriptedChatModel(responses=[lambda m: seen.append(m[-1].content) or graph([("Jane Smith", "Person")])]),
                       ingest=False, examples=[{"nodes": [{"id": "X", "type": "Person"}]}])
    assert seen[0].startswith("CUSTOM Examples of the output wanted:") and seen[0].endswith("<<Jane Smith works with John Doe.>>")
    assert empty.db.query("MATCH (n) RETURN count(n) AS c").records[0]["c"] == 0  # ingest=False writes nothing


def test_bad_input_is_a_short_error(empty):
    model = ScriptedChatModel(responses=[])
    for call, match in [(lambda: gestalt_nb.extract(MULTI, model, validate="strict"), "validate must be"),
                        (lambda: gestalt_nb.extract(MULTI, object()), "chat model"),
                        (lambda: gestalt_nb.extract([""], model), "not a non-empty"),
                        (lambda: gestalt_nb.extract(MULTI, model, allowed_relationship_types="WORKS_AT"), "list of type names"),
                        (lambda: gestalt_nb.answer("  ", model), "Ask a question")]:
        with pytest.raises(gestalt_nb.GestaltError, match=match):
            call()


def test_concurrent_calls_give_the_same_graph(empty):
    """max_concurrency > 1 runs a batch's calls together (LangChain's batch); each answer stays with its document."""
    def by_text(messages):
        text = messages[-1].content
        if "Alice Chen works at MongoDB" in text:
            return graph([("Alice Chen", "Person"), ("MongoDB", "Organization")], [("Alice Chen", "WORKS_AT", "MongoDB")])
        return graph([("Bob Li", "Person"), ("MongoDB", "Organization")], [("Bob Li", "FOUNDED", "MongoDB")])

    result = gestalt_nb.extract(CORPUS, ScriptedChatModel(responses=[by_text] * 4), max_concurrency=2)
    assert not result.dropped
    assert facts(empty) == {("Alice Chen", "WORKS_AT", "MongoDB"), ("Bob Li", "FOUNDED", "MongoDB")}
    assert mentions(empty) == {("d1", "Alice Chen"), ("d1", "MongoDB"), ("d2", "Bob Li"), ("d2", "MongoDB")}


def test_fuzzy_merges_similar_names_of_one_call_only_when_asked(empty):
    docs = [Document(id="x", page_content="Acme Robotics builds arms."), Document(id="y", page_content="Acme Robotic hired Jane Doe and John Doe.")]

    def model():
        return ScriptedChatModel(responses=[graph([("Acme Robotics", "Organization")]),
                                            graph([("Acme Robotic", "Organization"), ("Jane Doe", "Person"), ("John Doe", "Person")])])

    preview = gestalt_nb.extract(docs, model(), ingest=False)
    assert preview.merges == [] and len(preview.entities) == 4
    result = gestalt_nb.extract(docs, model(), fuzzy=90)
    assert [(m.name, m.into, "score 96" in m.reason) for m in result.merges] == [("Acme Robotic", "Acme Robotics", True)]
    assert set(entities(empty)) == {"Acme Robotics", "Jane Doe", "John Doe"}  # 75 apart: kept separate
    with pytest.raises(gestalt_nb.GestaltError, match="fuzzy must be"):
        gestalt_nb.extract(docs, model(), fuzzy=500)
