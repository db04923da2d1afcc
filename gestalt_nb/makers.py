"""What a :class:`~gestalt_nb.session.Connection` makes for agents and claims: each maker written out as a method.

Each method's keywords are the made class's own (the adapter's toolkits and retriever, our ``ClaimAPI`` and
``GestaltStore``), written out with their defaults so that ``help()``, Shift+Tab and a type checker show them;
the made class still checks them (pydantic's ranges: ``max_rows`` 1–1,000), and a refusal is one line
(``checks.checked``). Its body imports that class on first use, so ``%load_ext`` stays light.
``tests/test_signatures.py`` fails when a maker and its class drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .checks import checked_methods
from .errors import GestaltError
from .graph.ids import resolve

if TYPE_CHECKING:
    from langchain_core.tools import BaseTool
    from langchain_gestaltdb import GestaltDBGraph, GestaltDBRetriever
    from langchain_gestaltdb.retrievers import RetrievalHop
    from langgraph.store.base import IndexConfig, TTLConfig

    from .agents.handoff import ClaimToolkit, Toolkit
    from .claims.api import ClaimAPI
    from .memory.store import GestaltStore


@checked_methods  # each argument checked against its annotation (checks.py), as the Connection's own methods are
class Makers:
    """Mixed into ``Connection``: toolkit, claim_toolkit, agent_tools, claims, retriever and memory_store."""

    if TYPE_CHECKING:  # what Connection gives the makers
        db: Any

        @property
        def handle(self) -> GestaltDBGraph: ...
        def _check_open(self) -> None: ...
        def _tool_error(self, exc: Exception) -> str: ...
        def _publish(self, op: str, ids: Any = None, *, exact: bool = True) -> None: ...

    def toolkit(self, *, allow_writes: bool = False, allowed_procedures: tuple[str, ...] = (), max_rows: int = 100,
                max_chars: int = 16000, timeout: float | None = None, memory_limit: int | str | None = None) -> Toolkit:
        """The adapter's ``GestaltDBToolkit`` on this graph (schema and query tools for an agent): read-only unless ``allow_writes=True``.

        ``allowed_procedures`` are the ``CALL`` procedures a query
        may name; each answer is at most ``max_rows`` rows (1–1,000) and ``max_chars`` characters; each read
        runs within ``timeout`` seconds and ``memory_limit`` (default: the settings').
        """
        from .agents.handoff import Toolkit, bind  # deferred: keeps %load_ext light

        made = Toolkit(graph=self.handle, allow_writes=allow_writes, allowed_procedures=allowed_procedures, max_rows=max_rows,
                       max_chars=max_chars, timeout=timeout, memory_limit=memory_limit)
        return bind(made, self._tool_error, self._publish)

    def claim_toolkit(self, *, allow_writes: bool = False, max_evidence: int = 50, max_claims: int = 50, max_depth: int = 64,
                      max_nodes: int = 1000, max_edges: int = 2000, max_chars: int = 16000) -> ClaimToolkit:
        """The adapter's ``GestaltDBClaimToolkit`` on this graph (claim status, search, explanation and history tools):
        read-only unless ``allow_writes=True``.

        The ``max_*`` keywords bound each answer (evidence and claims
        listed, the explanation's depth, nodes and relationships, characters).
        """
        from .agents.handoff import ClaimToolkit, bind  # deferred: keeps %load_ext light

        made = ClaimToolkit(graph=self.handle, allow_writes=allow_writes, max_evidence=max_evidence, max_claims=max_claims,
                            max_depth=max_depth, max_nodes=max_nodes, max_edges=max_edges, max_chars=max_chars)
        return bind(made, self._tool_error, self._publish)

    def agent_tools(self, *, allow_writes: bool = False, allowed_procedures: tuple[str, ...] = (), max_rows: int = 100,
                    max_chars: int = 16000, timeout: float | None = None, memory_limit: int | str | None = None) -> list[BaseTool]:
        """What an agent gets by default: the schema and query tools (``toolkit``, with these keywords) and the
        read-only claim tools."""
        tools = self.toolkit(allow_writes=allow_writes, allowed_procedures=allowed_procedures, max_rows=max_rows,
                             max_chars=max_chars, timeout=timeout, memory_limit=memory_limit).get_tools()
        return tools + self.claim_toolkit().get_tools()

    def claims(self, *, max_evidence: int = 50, max_claims: int = 50, max_chars: int = 200000) -> ClaimAPI:
        """Claim status, search, explanation, history and explicit writes (``%claims``), each answer bounded by
        ``max_evidence``, ``max_claims`` and ``max_chars``."""
        from .claims.api import ClaimAPI  # deferred: keeps %load_ext light

        self._check_open()
        return ClaimAPI(self, max_evidence=max_evidence, max_claims=max_claims, max_chars=max_chars)  # type: ignore[arg-type]  # self is the Connection this is mixed into

    def retriever(self, *, name: str | None = None, tags: list[str] | None = None, metadata: dict[str, Any] | None = None,
                  hops: tuple[RetrievalHop, ...] = (), seed_ids: tuple[str, ...] = (), seed_label: str | None = None,
                  seed_property: str | None = None, seed_resolver: Callable[[str], Sequence[str]] | None = None,
                  max_seeds: int = 10, max_paths: int = 50, max_entities: int = 100, max_content_chars: int = 2000,
                  include_sources: bool = True, max_sources_per_entity: int = 5, rng_seed: int = 0) -> GestaltDBRetriever:
        """A ``GestaltDBRetriever`` bound to this connection's graph (the adapter's, unchanged).

        It starts from ``seed_ids`` (integer ids as typed, ``"0"``, find their stored form) or from nodes whose
        ``seed_property`` (of ``seed_label``) matches the query (or ``seed_resolver``'s ids), walks ``hops``, and
        returns at most ``max_seeds`` seeds, ``max_paths`` paths and ``max_entities`` entities as documents of at
        most ``max_content_chars`` characters (with up to ``max_sources_per_entity`` sources when ``include_sources``).
        """
        from langchain_gestaltdb import GestaltDBRetriever

        self._check_open()
        seeds = tuple(resolve(self.db, seed) for seed in seed_ids)
        try:
            return GestaltDBRetriever(graph=self.handle, name=name, tags=tags, metadata=metadata, hops=hops, seed_ids=seeds,
                                      seed_label=seed_label, seed_property=seed_property, seed_resolver=seed_resolver,
                                      max_seeds=max_seeds, max_paths=max_paths, max_entities=max_entities,
                                      max_content_chars=max_content_chars, include_sources=include_sources,
                                      max_sources_per_entity=max_sources_per_entity, rng_seed=rng_seed)
        except ValueError as exc:
            if type(exc).__name__ == "ValidationError":  # a keyword its model refused: one line (checks.checked)
                raise
            raise GestaltError(f"Cannot build the retriever: {exc}") from exc

    def memory_store(self, *, index: IndexConfig | None = None, ttl: TTLConfig | None = None,
                     about: str | Callable[[dict[str, Any]], Iterable[str]] | None = None,
                     clock: Callable[[], datetime] | None = None) -> GestaltStore:
        """A LangGraph long-term store on this graph (``gestalt_nb.memory.GestaltStore``): ``index`` embeds items
        for search, ``ttl`` expires them, ``about`` names the nodes an item is about, ``clock`` tells the time."""
        from .memory.store import GestaltStore  # deferred: needs LangGraph (the agents extra)

        return GestaltStore(self, index=index, ttl=ttl, about=about, clock=clock)
