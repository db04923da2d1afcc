"""The bundled demo graph: a small research-and-industry world, built from code, the same every time.

People work for companies, live in places, author papers and contribute to projects; companies
fund projects; papers cite papers. Three news snippets are ingested as ``__LangChainSource__``
documents that MENTION the entities they talk about. Separately from the graph, sourced claims
disagree about where Alice works, and a rule derives where people are based.
"""

from __future__ import annotations

from datetime import date

from gestaltdb.graphdb import Edge, Node
from gestaltdb.temporal import TemporalDate
from langchain_core.documents import Document
from langchain_gestaltdb import GestaltDBGraph, GraphDocument, GraphNode

from ..graph import names

PEOPLE = [
    # id, name, born, h_index, rating
    ("alice", "Alice Chen", date(1988, 3, 14), 21, 4.7),
    ("bob", "Bob Okafor", date(1979, 11, 2), 34, 4.1),
    ("carla", "Carla Ruiz", date(1992, 6, 30), 12, 4.9),
    ("dev", "Dev Patel", date(1985, 1, 9), 18, 3.8),
    ("eva", "Eva Novak", date(1995, 8, 21), 7, 4.3),
    ("farid", "Farid Haddad", date(1981, 4, 17), 26, 4.0),
]
COMPANIES = [("acme", "Acme Robotics", 1998, 412.5), ("globex", "Globex Labs", 2011, 88.0), ("initech", "Initech", 1989, 1203.75)]
PLACES = [("lisbon", "Lisbon", "Portugal", 545_000), ("nairobi", "Nairobi", "Kenya", 4_397_000), ("toronto", "Toronto", "Canada", 2_794_000)]
PAPERS = [
    ("p-memory", "Graph Memory for Agents", 2023, date(2023, 5, 2)),
    ("p-claims", "Bitemporal Claims at Scale", 2024, date(2024, 2, 19)),
    ("p-sampling", "Typed Neighbourhood Sampling", 2022, date(2022, 9, 12)),
]
PROJECTS = [("atlas", "Project Atlas", date(2022, 1, 10), 1.5e6), ("beacon", "Project Beacon", date(2023, 7, 1), 420_000.0)]

RELATIONSHIPS = [
    # source, type, target, properties
    ("alice", "WORKS_FOR", "acme", {"role": "Research Engineer", "since": TemporalDate(date(2019, 4, 1))}),
    ("bob", "WORKS_FOR", "globex", {"role": "CTO", "since": TemporalDate(date(2012, 1, 15))}),
    ("carla", "WORKS_FOR", "acme", {"role": "Data Scientist", "since": TemporalDate(date(2021, 9, 1))}),
    ("dev", "WORKS_FOR", "initech", {"role": "Architect", "since": TemporalDate(date(2015, 6, 1))}),
    ("eva", "WORKS_FOR", "globex", {"role": "PhD Intern", "since": TemporalDate(date(2024, 2, 1))}),
    ("farid", "WORKS_FOR", "initech", {"role": "Director", "since": TemporalDate(date(2010, 3, 1))}),
    ("alice", "LIVES_IN", "lisbon", {}),
    ("bob", "LIVES_IN", "nairobi", {}),
    ("carla", "LIVES_IN", "lisbon", {}),
    ("dev", "LIVES_IN", "toronto", {}),
    ("eva", "LIVES_IN", "nairobi", {}),
    ("farid", "LIVES_IN", "toronto", {}),
    ("acme", "LOCATED_IN", "lisbon", {}),
    ("globex", "LOCATED_IN", "nairobi", {}),
    ("initech", "LOCATED_IN", "toronto", {}),
    ("alice", "KNOWS", "bob", {"weight": 0.8}),
    ("alice", "KNOWS", "carla", {"weight": 0.95}),
    ("bob", "KNOWS", "eva", {"weight": 0.6}),
    ("dev", "KNOWS", "farid", {"weight": 0.9}),
    ("carla", "KNOWS", "dev", {"weight": 0.4}),
    ("alice", "AUTHORED", "p-memory", {"position": 1}),
    ("bob", "AUTHORED", "p-memory", {"position": 2}),
    ("carla", "AUTHORED", "p-claims", {"position": 1}),
    ("farid", "AUTHORED", "p-claims", {"position": 2}),
    ("dev", "AUTHORED", "p-sampling", {"position": 1}),
    ("p-claims", "CITES", "p-memory", {}),
    ("p-memory", "CITES", "p-sampling", {}),
    ("alice", "CONTRIBUTES_TO", "atlas", {"hours": 320}),
    ("carla", "CONTRIBUTES_TO", "atlas", {"hours": 140}),
    ("eva", "CONTRIBUTES_TO", "beacon", {"hours": 210}),
    ("dev", "CONTRIBUTES_TO", "beacon", {"hours": 95}),
    ("acme", "FUNDS", "atlas", {"amount": 1.2e6}),
    ("globex", "FUNDS", "beacon", {"amount": 300_000.0}),
    ("initech", "FUNDS", "atlas", {"amount": 300_000.0}),
]

NEWS = [
    ("news-1", "Acme Robotics hires Alice Chen to lead memory research for Project Atlas in Lisbon.", ["alice", "acme", "atlas", "lisbon"]),
    ("news-2", "Globex Labs CTO Bob Okafor and intern Eva Novak present Project Beacon in Nairobi.", ["bob", "eva", "globex", "beacon", "nairobi"]),
    ("news-3", "Sources say Alice Chen left Acme Robotics; Acme says she is still on staff.", ["alice", "acme"]),
]

#: Sourced claims: (subject, predicate, object, polarity, agent, source, confidence, valid_from)
CLAIMS = [
    ("alice", "WORKS_FOR", "acme", "positive", "hr-system", "hr-export-2024.csv", 0.97, "2019-04-01T00:00:00Z"),
    ("alice", "WORKS_FOR", "acme", "negative", "news-crawler", "news-3", 0.6, "2024-06-01T00:00:00Z"),
    ("bob", "WORKS_FOR", "globex", "positive", "hr-system", "hr-export-2024.csv", 0.99, "2012-01-15T00:00:00Z"),
    ("acme", "LOCATED_IN", "lisbon", "positive", "company-registry", "registry-2024", 1.0, "1998-01-01T00:00:00Z"),
    ("globex", "LOCATED_IN", "nairobi", "positive", "company-registry", "registry-2024", 1.0, "2011-01-01T00:00:00Z"),
]
RULE = ("works-at-company-location", [("?p", "WORKS_FOR", "?c"), ("?c", "LOCATED_IN", "?l")], ("?p", "BASED_IN", "?l"))
RULES_AS_OF = "2024-01-01T00:00:00Z"


def _nodes() -> list[Node]:
    nodes = [
        Node(pid, labels=["Person"], properties={"name": name, "born": TemporalDate(born), "h_index": h, "rating": rating})
        for pid, name, born, h, rating in PEOPLE
    ]
    nodes += [Node(cid, labels=["Company"], properties={"name": name, "founded": year, "revenue_musd": revenue}) for cid, name, year, revenue in COMPANIES]
    nodes += [Node(lid, labels=["Place"], properties={"name": name, "country": country, "population": pop}) for lid, name, country, pop in PLACES]
    nodes += [Node(pid, labels=["Paper"], properties={"name": title, "year": year, "published": TemporalDate(day)}) for pid, title, year, day in PAPERS]
    nodes += [Node(pid, labels=["Project"], properties={"name": name, "started": TemporalDate(day), "budget": budget}) for pid, name, day, budget in PROJECTS]
    return nodes


def _label_of() -> dict[str, str]:
    labels = {}
    for kind, rows in (("Person", PEOPLE), ("Company", COMPANIES), ("Place", PLACES), ("Paper", PAPERS), ("Project", PROJECTS)):
        labels.update({row[0]: kind for row in rows})
    return labels


def build_demo(graph: GestaltDBGraph) -> None:
    """Write the demo graph, sources, claims and rule into an empty database.

    Graph writes happen in one transaction (all or nothing); claims and the rule follow through
    GestaltDB's claim API, which keeps its own append-only history.
    """
    db = graph.graph
    if "name" not in db.indexed_node_properties:
        db.create_node_property_index("name")
    names.start(db)
    labels = _label_of()
    with names.tracked(db) as tx:  # every node written here (the sources too) keeps its name in the index
        tx.put_nodes(_nodes())
        tx.put_edges_bulk(
            [Edge(f"{src}-{kind}-{dst}", src, dst, properties={"type": kind, **props}) for src, kind, dst, props in RELATIONSHIPS],
            check_existing=False,
        )
        documents = [
            GraphDocument(
                nodes=[GraphNode(id=entity, type=labels[entity]) for entity in mentioned],
                source=Document(page_content=text, metadata={"outlet": "Demo Wire"}, id=doc_id),
            )
            for doc_id, text, mentioned in NEWS
        ]
        GestaltDBGraph(tx).add_graph_documents(documents, include_source=True)
    for subject, predicate, obj, polarity, agent, source, confidence, valid_from in CLAIMS:
        db.assert_claim(
            subject=subject, predicate=predicate, object=obj, polarity=polarity, agent=agent,
            source=source, confidence=confidence, valid_from=valid_from, provenance={"demo": True},
        )
    name, when, then = RULE
    db.create_rule(name, when=when, then=then)
    db.run_rules(as_of=RULES_AS_OF)
    names.rebuild(db)  # claims and rules committed in their own transactions: mark this small graph's index current
    graph.refresh_schema()
