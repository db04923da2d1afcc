"""``GestaltMagic``: the one ``Magics`` + ``Configurable`` class IPython registers, made of one mixin per
capability (``connections``, ``cypher``, ``graph``, ``data``, ``claims``, ``agents``, ``temporal``), with the settings
``%config GestaltMagic.<name>`` writes to :data:`gestalt_nb.options.settings`, and every ``%magic?`` page.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from IPython.core.magic import Magics, magics_class
from traitlets import Bool, Enum, Float, Int, TraitError, Unicode, observe, validate
from traitlets.config import Configurable

from ..errors import GestaltError
from ..options import RENDERERS, SETTING_NAMES, Settings, settings
from .agents import AgentMagics, gask_parser, gmemory_parser
from .claims import ClaimMagics, claims_parser
from .connections import ConnectionMagics, gestalt_parser
from .cypher import CypherMagics
from .cypher_args import gcypher_parser, ghistory_parser, gsnippets_parser
from .data import DataMagics, gload_parser
from .graph import GraphMagics, gexplore_parser, goverview_parser, gretrieve_parser, gschema_parser, gsubgraph_parser
from .help import document
from .temporal import TemporalMagics, gdiff_parser

PARTS = (ConnectionMagics, CypherMagics, GraphMagics, DataMagics, ClaimMagics, AgentMagics, TemporalMagics)


def setting_traits() -> dict[str, Any]:
    """One ``%config`` trait per field of :class:`gestalt_nb.options.Settings`, with that field's default and help."""
    kinds = {bool: Bool, int: Int, float: Float, str: Unicode}
    traits = {}
    for item in fields(Settings):
        text = item.metadata["help"]
        trait = Enum(RENDERERS, item.default, help=text) if item.name == "renderer" else kinds[type(item.default)](item.default, help=text)
        traits[item.name] = trait.tag(config=True)
    return traits


class _Settings(*PARTS, Magics, Configurable):
    """What GestaltMagic does with its settings: each written through to :data:`gestalt_nb.options.settings`."""

    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        Configurable.__init__(self, config=shell.config if shell is not None else None)
        Magics.__init__(self, shell=shell)
        for name in self.trait_names(config=True):
            setattr(settings, name, getattr(self, name))

    @validate(*SETTING_NAMES)
    def _check(self, proposal: Mapping[str, Any]) -> Any:
        """Reject a bad value before it is set, so the trait and the settings never disagree."""
        name = proposal["trait"].name
        try:
            chosen = settings.with_overrides(**{name: proposal["value"]})
        except GestaltError as exc:
            raise TraitError(str(exc)) from None
        return getattr(chosen, name)  # as read (a layout is a Layout, still its text), so setting it reads nothing again

    @observe(*SETTING_NAMES)
    def _sync(self, change: Mapping[str, Any]) -> None:
        setattr(settings, change["name"], change["new"])


GestaltMagic = magics_class(type("GestaltMagic", (_Settings,), {
    "__doc__": "Magics for GestaltDB. Configure with ``%config GestaltMagic.<name> = value``.",
    "__module__": __name__,
    **setting_traits(),
}))
GestaltMagic.magics = {kind: {name: method for part in PARTS for name, method in part.magics[kind].items()} for kind in ("line", "cell")}


#: (magic, parser, what it does, one example, usage override) — the source of every ``%magic?`` page.
HELP = (
    ("gestalt", gestalt_parser, "Manage GestaltDB connections; the newest one is current.",
     "%gestalt demo\n%gestalt open ./graph --map-size 16GiB --alias g", None),
    ("gcypher", gcypher_parser,
     "Run Cypher on the current connection: read-only unless --write, at most --limit rows (a LIMIT is pushed "
     "into reads), shown as Graph | Table | JSON | Info. Tab completes labels, relationship types, properties, "
     "$parameters and options from the schema sample.",
     "%%gcypher -o people --limit 50\nMATCH (p:Person)-[r:WORKS_FOR]->(c:Company) RETURN p, r, c",
     "%%gcypher [options]  +  Cypher in the cell body   |   %gcypher [options] QUERY"),
    ("gschema", gschema_parser, "Show the schema sample: meta-graph, labels, relationship types, indexes.",
     "%gschema --nodes 1000 -o schema", None),
    ("goverview", goverview_parser, "See the whole graph as groups (communities, label sets or a property's values), "
     "drawn as super-nodes whose area is their node count; double-click one to draw its members in place.",
     "%goverview --by community -o whole\n%goverview --by label --types KNOWS,WORKS_FOR", None),
    ("gdiff", gdiff_parser, "Two moments of the graph compared (a read at each, from its history): what was added, removed and "
     "changed, drawn coloured by change with the changes as a table. Read-only.",
     "%gdiff 2021-01-01 2024-01-01\n%gdiff 2021-01-01 2024-01-01 --query 'MATCH (p:Person)-[r:WORKS_AT]->(c:Company) RETURN p, r, c'", None),
    ("gexplore", gexplore_parser, "Open the neighbourhood explorer, optionally starting at NODE_ID.",
     "%gexplore alice --budget 100 --sample 5", None),
    ("gretrieve", gretrieve_parser, "Run a GestaltDBRetriever and draw its paths from the seeds.",
     "%gretrieve 'who works with Alice' --seed-ids alice --hop KNOWS:out --hop WORKS_FOR", None),
    ("gload", gload_parser, "Load a pandas DataFrame as nodes or relationships, in one transaction.",
     "%gload nodes people --id pid --label Person --properties name,age", None),
    ("claims", claims_parser, "Sourced, bitemporal claims: read them, and write them only with --write.",
     "%claims status alice works_at acme --valid-time 2024-06-01T00:00:00Z", None),
    ("ghistory", ghistory_parser, "The queries this kernel ran: text, connection, rows, time, truncated, errors.",
     "%ghistory -n 10 -o runs", None),
    ("gsnippets", gsnippets_parser, "The query snippets saved with %%gcypher --save NAME (used with --with NAME).",
     "%gsnippets\n%gsnippets --drop people", None),
    ("gsubgraph", gsubgraph_parser, "The bounded neighbourhood of named entities, over typed adjacency in both directions.",
     "%gsubgraph 'Alice Chen' bob --hops 2 --relations KNOWS,WORKS_FOR", None),
    ("gask", gask_parser, "A question in words: a chat model plans it (or, with --answer, answers from the graph); the plan and the drawn result.",
     "%%gask --model llm\nWho does Carla Ruiz know?", "%%gask [options]  +  the question in the cell body"),
    ("gmemory", gmemory_parser, "Agent memory kept in this graph (GestaltStore): the namespace tree and its items.",
     "%gmemory users/42", None),
)


def _document() -> None:
    for name, parser, summary, example, usage in HELP:
        document(getattr(GestaltMagic, name), parser(), summary, example, usage)


_document()
