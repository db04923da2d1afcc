"""NaN, ±inf and integers past 64 bits, stored in real LMDB databases, read back through every read path
(records, ``.df``, the table / JSON tabs, the canvas payload, the static SVG, both HTML exports, ``to_cypher``)
and shown as the values they are — never turned into something else, never a raw ValueError."""

from __future__ import annotations

import base64
import gzip
import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from IPython.display import display
from IPython.utils.capture import capture_output

import gestalt_nb
from gestalt_nb.graph.adapter import normalize

from .conftest import raw, run

BIG = 12345678901234567890  # 20 digits: past 64 bits
NEGATIVE_BIG = -(10**25)
STORED = {"nan": float("nan"), "inf": float("inf"), "minus": float("-inf"), "big": BIG, "negative": NEGATIVE_BIG}
SHOWN = {"nan": "NaN", "inf": "inf", "minus": "-inf", "big": str(BIG), "negative": str(NEGATIVE_BIG)}


def strict_json(text: str):
    """JSON as a page parses it: ``NaN`` / ``Infinity`` are not JSON."""
    def refuse(token: str):
        raise AssertionError(f"{token} is not JSON; a page cannot parse it")

    return json.loads(text, parse_constant=refuse)


def same(value, expected) -> bool:
    if isinstance(expected, float) and math.isnan(expected):
        return isinstance(value, float) and math.isnan(value)
    return value == expected and type(value) is type(expected)


@pytest.fixture
def odd(shell, tmp_path):
    """A database (made through the public calls) holding each odd number on its own node, and a NaN-weighted relationship."""
    run(shell, f"%gestalt create {tmp_path / 'odd'}")
    for name, value in STORED.items():
        gestalt_nb.run("CREATE (n:P {name: $name, x: $v}) RETURN count(n) AS c", {"name": name, "v": value}, write=True)
    gestalt_nb.run("MATCH (a:P {name: 'nan'}), (b:P {name: 'big'}) CREATE (a)-[r:R {w: $w}]->(b) RETURN count(r) AS c",
                   {"w": float("nan")}, write=True)
    return gestalt_nb.connection()


def test_the_adapter_itself_refuses_a_nan_so_gestalt_nb_must_handle_it(odd):
    from langchain_gestaltdb._serialization import normalize as adapter_normalize

    node = raw(odd, "MATCH (n:P {name: 'nan'}) RETURN n")[0]["n"]
    with pytest.raises(ValueError, match="Non-finite"):
        adapter_normalize(node)
    kept = normalize(node)
    assert math.isnan(kept["properties"]["x"]) and kept["properties"]["name"] == "nan" and kept["labels"] == ["P"]
    assert normalize({"a": [1.5, {"b": float("-inf")}]}) == {"a": [1.5, {"b": float("-inf")}]}


def test_records_and_df_hold_the_values_as_they_are(shell, odd):
    result = run(shell, "%gcypher MATCH (n:P) RETURN n, n.name AS name, n.x AS x")
    assert len(result) == 5
    for record in result.records:
        expected = STORED[record["name"]]
        assert same(record["x"], expected) and same(record["n"]["properties"]["x"], expected)
    frame = result.df.set_index("name")
    assert math.isnan(frame.loc["nan", "x"]) and frame.loc["inf", "x"] == math.inf and frame.loc["minus", "x"] == -math.inf
    assert frame.loc["big", "x"] == BIG and frame.loc["negative", "x"] == NEGATIVE_BIG
    for name, text in SHOWN.items():
        assert f"x: {text}" in frame.loc[name, "n"]  # the node as text in a cell
    walked = gestalt_nb.run("MATCH (a)-[r:R]->(b) RETURN r, a, b")
    assert math.isnan(walked.records[0]["r"]["properties"]["w"]) and walked.subgraph.summary() == "2 nodes, 1 relationships"


def test_the_shown_output_tables_json_and_picture_say_the_values(shell, odd):
    result = run(shell, "%gcypher MATCH (n:P) RETURN n.name AS name, n.x AS x, n")
    with capture_output() as shown:
        display(result)
    (output,) = shown.outputs
    static = output.data["text/html"]
    cells = re.findall(r"<tr><td>([^<]*)</td><td>([^<]*)</td>", static)
    assert dict(cells) == SHOWN  # a stored NaN reads NaN, not an empty cell
    picture = base64.b64decode(re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', static).group(1)).decode()
    assert all(f">{name}</text>" in picture for name in SHOWN)
    json_tab = dict(result.view.tabs())["JSON"]()
    assert "NaN" in json_tab and "-Infinity" in json_tab and str(BIG) in json_tab
    plain = output.data["text/plain"]
    assert "NaN" in plain and "-inf" in plain and str(BIG) in plain
    captioned = gestalt_nb.render(result.subgraph, caption_property="x").svg()
    assert all(f">{text}</text>" in captioned for text in ("NaN", "inf", "-inf", str(BIG)))  # the 26 digits are cut at 24 characters


def test_the_canvas_payload_is_json_a_page_parses_and_shows_each_value(shell, odd):
    result = run(shell, "%gcypher MATCH (n:P) OPTIONAL MATCH (n)-[r:R]->(m) RETURN n, r, m")
    canvas = result.canvas
    graph = strict_json(gzip.decompress(canvas.graph_gz).decode("utf-8"))
    panels = {node["p"]["name"]: node["p"]["x"] for node in graph["nodes"]}
    assert panels == SHOWN  # text the page shows whole: a JavaScript number would round BIG
    (edge_panel,) = [panel for _, panel in graph["ec"]["p"]]
    assert edge_panel == {"w": "NaN"}
    canvas.add(gestalt_nb.run("MATCH (n:P {name: 'big'}) RETURN n").subgraph)  # a delta of the same values
    canvas.style(caption="x")


def test_exports_and_to_cypher_work_and_show_the_values(shell, odd, tmp_path):
    result = run(shell, "%gcypher MATCH (n:P) RETURN n")
    canvas = result.canvas
    page = canvas.to_html(str(tmp_path / "canvas.html"))
    data = strict_json(re.search(r'<script type="application/json" id="gestalt-data">(.*?)</script>', page, re.S).group(1))
    assert {node["p"]["name"]: node["p"]["x"] for node in data["graph"]["nodes"]} == SHOWN
    document = gestalt_nb.render(result.subgraph, renderer="gestaltdb").to_html()
    for name, text in SHOWN.items():
        assert f'"name":"{name}","x":"{text}"' in document
    query = canvas.to_cypher()
    again = gestalt_nb.run(str(query), query.params)
    assert set(again.subgraph.nodes) == set(result.subgraph.nodes)
    assert sorted(map(str, again.df["n"])) == sorted(map(str, result.df["n"]))


def test_lookups_by_id_and_neighbourhoods_read_the_values(odd):
    ids = [record["i"] for record in raw(odd, "MATCH (n:P) RETURN id(n) AS i")]
    fetched = {node["properties"]["name"]: node["properties"]["x"] for node in odd.nodes(ids)}
    assert all(same(fetched[name], value) for name, value in STORED.items())
    around = odd.subgraph("nan").subgraph
    assert math.isnan(next(node for node in around.nodes.values() if node.properties["name"] == "nan").properties["x"])
    assert {node.properties["name"] for node in around.nodes.values()} == {"nan", "big"}


def test_load_nodes_stores_infinities_and_big_integers_and_they_read_back(shell, tmp_path):
    run(shell, f"%gestalt create {tmp_path / 'frame'}")
    frame = pd.DataFrame({"id": ["a", "b", "c"], "x": [np.inf, -np.inf, np.nan], "big": [BIG, 1, NEGATIVE_BIG]})
    gestalt_nb.load_nodes(frame, id="id", label="F")
    stored = {record["i"]: record for record in raw(gestalt_nb.connection(), "MATCH (n:F) RETURN n.id AS i, n.x AS x, n.big AS big")}
    assert stored["a"]["x"] == math.inf and stored["b"]["x"] == -math.inf and stored["c"]["x"] is None  # NaN in a frame: missing
    assert stored["a"]["big"] == BIG and stored["c"]["big"] == NEGATIVE_BIG
    shown = run(shell, "%gcypher MATCH (n:F) RETURN n.id AS id, n.x AS x, n.big AS big ORDER BY id")
    assert shown.df["x"].tolist()[:2] == [math.inf, -math.inf] and shown.df["big"].tolist() == [BIG, 1, NEGATIVE_BIG]
    panels = {node["p"]["id"]: node["p"] for node in shown.canvas.graph["nodes"]} if shown.subgraph else {}
    assert panels == {}  # no entities returned: nothing drawn
    drawn = gestalt_nb.run("MATCH (n:F) RETURN n").canvas.graph["nodes"]
    assert {node["c"]: (node["p"].get("x"), node["p"]["big"]) for node in drawn} == {
        "a": ("inf", str(BIG)), "b": ("-inf", 1), "c": (None, str(NEGATIVE_BIG))}


@pytest.mark.parametrize("query", ["MATCH (n:P) RETURN n.name AS name, n.x AS x, n ORDER BY name",
                                   "MATCH (n:P)-[r]->(m) RETURN n.name AS name, n.x AS x, r"])  # the second one rewritten (untyped hop)
def test_the_agents_query_tool_reads_the_values_too(odd, query):
    """The adapter's own query tool refuses a NaN ("GestaltDB query failed"); ours hands the agent every value."""
    tool = {made.name: made for made in odd.toolkit().get_tools()}["gestaltdb_query"]
    answer = json.loads(tool.invoke({"query": query}))  # Python's json reads NaN and Infinity, as a model would
    found = {record["name"]: record["x"] for record in answer["records"]}
    assert all(same(found[name], STORED[name]) for name in found) and "nan" in found, found
    if "r" in answer["records"][0]:
        assert math.isnan(answer["records"][0]["r"]["properties"]["w"])


def test_the_overview_groups_by_the_number_the_20_digit_integer_and_community_and_shows_the_values(shell, tmp_path):
    """Binned by a property of 20-digit integers (past int64, inside uint64: a float rounds them to ...168), every bin
    edge is a stored value written in full; NaN and the infinities are groups of their own; drawn and exported."""
    run(shell, f"%gestalt create {tmp_path / 'binned'}")
    numbers = [float("nan"), math.inf, -math.inf, *map(float, range(30))]
    for k, x in enumerate(numbers):
        gestalt_nb.run("CREATE (n:P {k: $k, x: $x, big: $big}) RETURN count(n) AS c", {"k": k, "x": x, "big": BIG + k * 10**15}, write=True)
    gestalt_nb.run("MATCH (a:P {k: 0}), (b:P {k: 1}) CREATE (a)-[r:R]->(b) RETURN count(r) AS c", write=True)
    by_x = gestalt_nb.overview("x")
    sizes = dict(zip(by_x.groups["name"], by_x.groups["size"]))
    assert sizes["x = NaN"] == sizes["x = inf"] == sizes["x = -inf"] == 1 and sum(sizes.values()) == len(numbers)
    by_big = gestalt_nb.overview("big")
    stored = {f"{BIG + k * 10**15:,}" for k in range(len(numbers))}
    edges = {edge for name in by_big.groups["name"] for edge in name.removeprefix("big ").split(" – ")}
    assert edges <= stored and f"{BIG:,}" in edges, edges  # not 12,345,678,901,234,567,168
    assert by_big.groups["size"].sum() == len(numbers)
    members = by_big.members(int(by_big.groups.index[by_big.groups["name"].str.startswith(f"big {BIG:,} – ")][0]), limit=50)
    assert BIG in members["big"].tolist()
    by_community = gestalt_nb.overview("community")
    assert by_community.groups["size"].sum() == len(numbers)
    for grouped, shown in ((by_x, "x = NaN"), (by_big, f"big {BIG:,} – "), (by_community, "no relationships")):
        canvas = grouped.canvas
        assert shown in canvas.to_html(str(tmp_path / "overview.html"))
        canvas.drill(0)
        assert any(key not in canvas.subgraph.groups for key in canvas.subgraph.nodes)  # members drawn
