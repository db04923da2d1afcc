"""Sourced, bitemporal claims: status, search, explanation, history, and explicit writes.

Reads go through the adapter's ``GestaltDBClaimToolkit`` tools, so a person sees exactly the JSON
an agent gets; writes go through its write tools, and only when asked for (``write=True`` or a
connection opened with claim writes). The tools answer every failure with one generic sentence,
so inputs are checked here first — times, ids, versions — and a failure says what was wrong.
Nothing is ever deleted: corrections and retractions append versions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from typing import TYPE_CHECKING, Any

from langchain_gestaltdb import GestaltDBClaimToolkit

from ..display import Displayable
from ..engine.adapter import claim_version as _serialize_claim_version  # history rows in the shape the adapter's tools return
from ..errors import GestaltError
from ..graph import values
from ..graph.subgraph import Edge, Node, Subgraph

if TYPE_CHECKING:  # only for annotations: capabilities never import the session at run time
    from ..session import Connection

EXAMPLE = "2024-06-01T00:00:00Z"


def instant(value: Any, name: str) -> str | None:
    """An ISO-8601 instant with a timezone, from text, an aware datetime or a ``$type`` map."""
    if value is None:
        return None
    if isinstance(value, dict) and values.is_temporal(value):
        value = values.temporal_to_python(value)
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise GestaltError(f"{name} {value!r} is not an ISO-8601 time; write it like {EXAMPLE}.") from None
    if not isinstance(value, datetime):
        raise GestaltError(f"{name} must be an ISO-8601 time with a timezone, like {EXAMPLE}; got {type(value).__name__}.")
    if value.tzinfo is None:
        raise GestaltError(f"{name} {value.isoformat()!r} has no timezone; add one, like {EXAMPLE}.")
    return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def now() -> str:
    return datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")


def object_value(value: Any, literal: bool) -> Any:
    """An entity id as given; a literal parsed as JSON when it is JSON, else kept as text."""
    if not literal or not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


def evidence_row(version: dict[str, Any]) -> dict[str, Any]:
    claim = version.get("claim") or {}
    return {
        "polarity": claim.get("polarity"),
        "subject": claim.get("subject"),
        "predicate": claim.get("predicate"),
        "object": claim.get("object"),
        "agent": claim.get("agent"),
        "source": claim.get("source"),
        "confidence": claim.get("confidence"),
        "world": claim.get("world"),
        "valid": values.readable_temporal(version["valid"]) if values.is_temporal(version.get("valid")) else None,
        "system time": values.readable_temporal(version["system_time"]) if values.is_temporal(version.get("system_time")) else None,
        "operation": version.get("operation"),
        "provenance": json.dumps(claim.get("provenance"), ensure_ascii=False, sort_keys=True),
        "claim_id": version.get("logical_id"),
        "version_id": version.get("version_id"),
    }


def _frame(versions: list[dict[str, Any]]):
    import pandas as pd

    rows = [evidence_row(version) for version in versions]
    return pd.DataFrame(rows, columns=list(evidence_row({"valid": None}).keys()))


# -- results ---------------------------------------------------------------------
@dataclass(eq=False)
class ClaimStatus(Displayable):
    """The four-valued status of one statement, with the evidence the adapter's tool returned."""

    data: dict[str, Any]
    api: ClaimAPI | None = field(default=None, repr=False)
    query: dict[str, Any] = field(default_factory=dict)

    def recompute(self, *, valid_time: Any = None, system_time: Any = None, through_commit: int | None = None) -> ClaimStatus:
        """The same statement and filters at another valid time and/or knowledge horizon."""
        if self.api is None:
            raise GestaltError("This status was not computed from a connection; run %claims status again.")
        return self.api.status(**self.query, valid_time=valid_time, system_time=system_time, through_commit=through_commit)

    @property
    def status(self) -> str:
        return self.data["status"]

    @property
    def evidence(self) -> list[dict[str, Any]]:
        return self.data["evidence"]

    @property
    def truncated(self) -> bool:
        return bool(self.data.get("truncated"))

    @cached_property
    def supporting(self):
        return _frame([v for v in self.evidence if (v.get("claim") or {}).get("polarity") == "positive"])

    @cached_property
    def refuting(self):
        return _frame([v for v in self.evidence if (v.get("claim") or {}).get("polarity") == "negative"])

    def statement(self) -> str:
        return f"{self.data['subject']} {self.data['predicate']} {json.dumps(self.data['object'], ensure_ascii=False) if self.data['object_kind'] == 'literal' else self.data['object']}"

    def horizon(self) -> str:
        parts = [f"valid time {self.data['valid_time']}"]
        if self.data.get("system_time"):
            parts.append(f"system time {self.data['system_time']}")
        elif self.data.get("through_commit") is not None:
            parts.append(f"knowledge through commit {self.data['through_commit']}")
        else:
            parts.append("current knowledge")
        filters = {key: value for key, value in (self.data.get("filters") or {}).items() if value is not None}
        if filters:
            parts.append("filters " + ", ".join(f"{key}={value}" for key, value in filters.items()))
        return "; ".join(parts)

    def __repr__(self) -> str:
        return f"<ClaimStatus {self.status.upper()}: {self.statement()} at {self.horizon()}; {len(self.evidence)} evidence>"


@dataclass(eq=False)
class ClaimTable(Displayable):
    """Claim versions as rows: a search's matches or one claim's history."""

    kind: str
    versions: list[dict[str, Any]]
    title: str
    truncated: bool = False

    @cached_property
    def df(self):
        return _frame(self.versions)

    def __len__(self) -> int:
        return len(self.versions)

    def __repr__(self) -> str:
        more = " (truncated)" if self.truncated else ""
        return f"<Claim {self.kind}: {len(self.versions)} versions{more} — {self.title}>"


def _caption(kind: str, value: dict[str, Any]) -> str:
    if kind == "rule":
        return f"rule {value.get('rule_id')}"
    claim = value.get("claim") or {}
    sign = {"positive": "+", "negative": "−"}.get(claim.get("polarity"), "")
    return f"{sign} {claim.get('subject')} {claim.get('predicate')} {claim.get('object')}".strip()


def rule_text(value: dict[str, Any]) -> str:
    atom = lambda a: f"({a['subject']} {a['predicate']} {a['object']})"
    return " ∧ ".join(atom(a) for a in value.get("when", [])) + " ⇒ " + atom(value.get("then", {}))


@dataclass(eq=False)
class ClaimExplanation(Displayable):
    """How a claim was derived: claim and rule nodes, premise and derived-by edges."""

    data: dict[str, Any]

    @property
    def truncated(self) -> bool:
        return bool(self.data.get("truncated"))

    @cached_property
    def subgraph(self) -> Subgraph:
        claim_id = str(self.data["claim_id"])
        subgraph = Subgraph(title=f"explanation of {claim_id if len(claim_id) <= 24 else claim_id[:23] + '…'}")
        for item in self.data["nodes"]:
            value = item["value"]
            if item["kind"] == "rule":
                props = {"name": _caption("rule", value), "rule": rule_text(value), "rule_id": value.get("rule_id"), "version_id": value.get("version_id")}
            else:
                props = {"name": _caption("claim", value), **{k: v for k, v in evidence_row(value).items() if v is not None}}
            label = "Rule" if item["kind"] == "rule" else "Claim"
            subgraph.add_node(Node(item["node_id"], (label,), props), highlight=item["node_id"] == self.data.get("root_version_id"))
        for number, edge in enumerate(self.data["edges"]):
            props = {"premise_ordinal": edge["premise_ordinal"]} if edge.get("premise_ordinal") is not None else {}
            kind = edge["relationship"].upper()
            subgraph.add_edge(Edge(f"{edge['source_id']}-{kind}-{edge['target_id']}-{number}", edge["source_id"], edge["target_id"], kind, props))
        if self.truncated:
            subgraph.truncated = True
            subgraph.notes.append(
                f"The explanation was truncated ({self.data['returned_nodes']} nodes, {self.data['returned_edges']} edges shown): "
                "raise max_nodes/max_chars (gestalt_nb.claims.ClaimAPI(..., max_chars=...)) to see the whole derivation."
            )
        subgraph.complete_endpoints()  # an edge cut by the cap still points at a drawn (id-only) node
        return subgraph

    @cached_property
    def df(self):
        import pandas as pd

        rows = [{"node_id": item["node_id"], "kind": item["kind"], "what": _caption(item["kind"], item["value"]),
                 "rule": rule_text(item["value"]) if item["kind"] == "rule" else ""} for item in self.data["nodes"]]
        return pd.DataFrame(rows, columns=["node_id", "kind", "what", "rule"])

    def __repr__(self) -> str:
        more = ", truncated" if self.truncated else ""
        return f"<ClaimExplanation {self.data['claim_id']}: {self.subgraph.summary()}{more}>"


# -- the API -------------------------------------------------------------------------
class ClaimAPI:
    """Claim reads and writes for one connection, through the adapter's claim tools."""

    def __init__(self, connection: Connection, *, max_evidence: int = 50, max_claims: int = 50, max_chars: int = 200_000) -> None:
        self.connection = connection
        toolkit = GestaltDBClaimToolkit(
            graph=connection.graph, allow_writes=True, max_evidence=max_evidence, max_claims=max_claims, max_chars=max_chars
        )
        self.tools = {tool.name: tool for tool in toolkit.get_tools()}

    def _call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        self.connection.db  # noqa: B018 - reading it fails clearly on a closed connection
        try:
            output = self.tools[name].invoke({key: value for key, value in arguments.items() if value is not None})
        except Exception as exc:  # pydantic validation of the tool's input
            errors = getattr(exc, "errors", None)
            detail = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errors()) if callable(errors) else str(exc)
            raise GestaltError(f"Invalid claim arguments: {detail}") from exc
        try:
            return json.loads(output)
        except ValueError:
            raise GestaltError(f"{output} (tool {name})") from None

    def _horizon(self, valid_time: Any, system_time: Any, through_commit: int | None) -> dict[str, Any]:
        if system_time is not None and through_commit is not None:
            raise GestaltError("Give either a system time or --through-commit, not both.")
        if through_commit is not None and (not isinstance(through_commit, int) or through_commit < 0):
            raise GestaltError(f"--through-commit must be a commit number (0 or more), not {through_commit!r}.")
        return {
            "valid_time": instant(valid_time, "valid time") or now(),
            "system_time": instant(system_time, "system time"),
            "through_commit": through_commit,
        }

    def latest_commit(self) -> int:
        return max((commit.commit_id for commit in self.connection.db.iter_temporal_commits()), default=0)

    def status(
        self, subject: str, predicate: str, object: Any, *, literal: bool = False, world: str | None = None,
        agent: str | None = None, source: str | None = None, valid_time: Any = None, system_time: Any = None,
        through_commit: int | None = None,
    ) -> ClaimStatus:
        """Supported / refuted / both / unknown for one statement, with its evidence."""
        horizon = self._horizon(valid_time, system_time, through_commit)
        data = self._call(
            "gestaltdb_claim_status",
            {"subject": subject, "predicate": predicate, "object": object_value(object, literal),
             "object_kind": "literal" if literal else "entity", "world": world, "agent": agent, "source": source, **horizon},
        )
        query = {"subject": subject, "predicate": predicate, "object": object, "literal": literal, "world": world, "agent": agent, "source": source}
        return ClaimStatus(data, self, query)

    def search(
        self, *, subject: str | None = None, predicate: str | None = None, object: Any = None, literal: bool = False,
        agent: str | None = None, source: str | None = None, world: str | None = None, polarity: str | None = None,
        statement_id: str | None = None, valid_time: Any = None, system_time: Any = None, through_commit: int | None = None,
    ) -> ClaimTable:
        """Claims visible at the horizon matching every given filter."""
        if polarity not in (None, "positive", "negative"):
            raise GestaltError(f"--polarity is positive or negative, not {polarity!r}.")
        horizon = self._horizon(valid_time, system_time, through_commit)
        filters = {"subject": subject, "predicate": predicate, "object": object_value(object, literal),
                   "object_kind": ("literal" if literal else "entity") if object is not None else None,
                   "agent": agent, "source": source, "world": world, "polarity": polarity, "statement_id": statement_id}
        data = self._call("gestaltdb_claim_search", {**filters, **horizon})
        shown = ", ".join(f"{key}={value}" for key, value in filters.items() if value is not None) or "no filters"
        return ClaimTable("search", data["claims"], f"{shown}; valid time {horizon['valid_time']}", bool(data.get("truncated")))

    def explain(self, claim_id: str, *, valid_time: Any = None, system_time: Any = None) -> ClaimExplanation:
        """The derivation graph of a claim visible at the horizon."""
        horizon = self._horizon(valid_time, system_time, None)
        horizon.pop("through_commit")
        data = self._call("gestaltdb_claim_explanation", {"claim_id": claim_id, **horizon})
        if not data.get("found"):
            raise GestaltError(
                f"No claim {claim_id!r} is visible at valid time {horizon['valid_time']}"
                + (f" and system time {horizon['system_time']}" if horizon["system_time"] else "")
                + ". Find claim ids with %claims search (the claim_id column)."
            )
        return ClaimExplanation(data)

    def history(self, claim_id: str) -> ClaimTable:
        """Every version of a claim — assert, correct, retract — oldest first."""
        versions = [_serialize_claim_version(version) for version in self.connection.db.iter_claim_versions(claim_id)]
        if not versions:
            raise GestaltError(f"No claim with id {claim_id!r}. Find claim ids with %claims search (the claim_id column).")
        return ClaimTable("history", versions, claim_id)

    # -- writes (explicit only) ------------------------------------------------------
    def _allow(self, write: bool, what: str) -> None:
        if not (write or self.connection.claim_writes):
            raise GestaltError(
                f"Refused: {what} writes a claim, and claim writes are off by default. Nothing was written. "
                "Add --write (or write=True) to run it."
            )

    def _check_version(self, claim_id: str, supersedes: str) -> None:
        versions = list(self.connection.db.iter_claim_versions(claim_id))
        if not versions:
            raise GestaltError(f"No claim with id {claim_id!r}. Find claim ids with %claims search.")
        ids = [version.version_id for version in versions]
        if supersedes not in ids:
            raise GestaltError(
                f"{supersedes!r} is not a version of {claim_id}; supersede one of its versions "
                f"(the latest is {ids[-1]}; see %claims history {claim_id})."
            )

    def assert_claim(
        self, subject: str, predicate: str, object: Any, *, polarity: str, agent: str, provenance: Any, valid_from: Any,
        valid_to: Any = None, source: str | None = None, confidence: float | None = None, world: str = "default",
        literal: bool = False, write: bool = False,
    ) -> ClaimTable:
        """Append a sourced assertion (positive) or denial (negative). Nothing is inferred."""
        self._allow(write, "assert")
        for name, value in (("--polarity", polarity), ("--agent", agent), ("--valid-from", valid_from)):
            if value in (None, ""):
                raise GestaltError(f"{name} is required: claims never infer authority, polarity or validity.")
        data = self._call(
            "gestaltdb_claim_assert",
            {"subject": subject, "predicate": predicate, "object": object_value(object, literal), "polarity": polarity,
             "agent": agent, "provenance": _provenance(provenance), "valid_from": instant(valid_from, "--valid-from"),
             "valid_to": instant(valid_to, "--valid-to"), "source": source, "confidence": confidence, "world": world,
             "object_kind": "literal" if literal else "entity"},
        )
        self.connection.feed.publish("claim", [data.get("logical_id") or data.get("claim_id") or subject], exact=True)
        return ClaimTable("write", [data], f"asserted {subject} {predicate} {object}")

    def correct(
        self, claim_id: str, *, supersedes: str, confidence: float | None = None, provenance: Any = None,
        valid_from: Any = None, valid_to: Any = None, write: bool = False,
    ) -> ClaimTable:
        """Supersede one version with corrected confidence, provenance or validity."""
        self._allow(write, "correct")
        self._check_version(claim_id, supersedes)
        data = self._call(
            "gestaltdb_claim_correct",
            {"claim_id": claim_id, "supersedes_version_id": supersedes, "confidence": confidence,
             "provenance": _provenance(provenance) if provenance is not None else None,
             "valid_from": instant(valid_from, "--valid-from"), "valid_to": instant(valid_to, "--valid-to")},
        )
        self.connection.feed.publish("claim", [claim_id], exact=True)
        return ClaimTable("write", [data], f"corrected {claim_id}")

    def retract(
        self, claim_id: str, *, supersedes: str, reason: str | None = None, valid_from: Any = None,
        valid_to: Any = None, write: bool = False,
    ) -> ClaimTable:
        """Withdraw a claim (over an interval, or from now on); its history stays."""
        self._allow(write, "retract")
        self._check_version(claim_id, supersedes)
        data = self._call(
            "gestaltdb_claim_retract",
            {"claim_id": claim_id, "supersedes_version_id": supersedes, "reason": reason,
             "valid_from": instant(valid_from, "--valid-from"), "valid_to": instant(valid_to, "--valid-to")},
        )
        self.connection.feed.publish("claim", [claim_id], exact=True)
        return ClaimTable("write", [data], f"retracted {claim_id}")


def _provenance(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise GestaltError(f"--provenance must be a JSON object (use {{}} when there is none): {exc}.") from None
    if not isinstance(value, dict):
        raise GestaltError("--provenance must be a JSON object (use {} when there is none).")
    return value
