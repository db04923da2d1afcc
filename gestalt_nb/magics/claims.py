"""``%claims``: status, search, explain, history, and explicit writes (assert, correct, retract)."""

from __future__ import annotations

from IPython.core.magic import line_magic, magics_class

from ..errors import GestaltError
from ..session import REGISTRY
from .common import MagicBase, Parser, user_errors, words


def claims_parser() -> Parser:
    parser = Parser(prog="%claims", add_help=False)
    sub = parser.add_subparsers(dest="command", parser_class=Parser)

    def command(name: str, help_text: str, *positional: tuple[str, str], horizon: bool = True, commit: bool = False) -> Parser:
        cmd = sub.add_parser(name, help=help_text, add_help=False)
        for item, meaning in positional:
            cmd.add_argument(item, help=meaning)
        cmd.add_argument("--alias", help="connection to use instead of the current one")
        cmd.add_argument("-o", "--out", help="store the result in this variable")
        if horizon:
            cmd.add_argument("--valid-time", help="ISO-8601 time the claim must hold at (default: now)")
            cmd.add_argument("--system-time", help="ISO-8601 knowledge horizon: what was known then")
        if commit:
            cmd.add_argument("--through-commit", type=int, help="knowledge horizon as a commit number")
        return cmd

    def filters(cmd: Parser) -> None:
        cmd.add_argument("--world", help="only claims in this world")
        cmd.add_argument("--agent", help="only claims by this agent")
        cmd.add_argument("--source", help="only claims from this source")
        cmd.add_argument("--literal", action="store_true", help="the object is a JSON literal, not an entity id")

    triple = (("subject", "subject entity id"), ("predicate", "predicate name"), ("object", "object entity id or literal"))
    filters(command("status", "four-valued status with supporting and refuting evidence", *triple, commit=True))
    search = command("search", "claims matching the filters, as a table", commit=True)
    filters(search)
    search.add_argument("--subject", help="subject entity id")
    search.add_argument("--predicate", help="predicate name")
    search.add_argument("--object", help="object entity id or literal")
    search.add_argument("--statement-id", help="one statement's id")
    search.add_argument("--polarity", choices=("positive", "negative"), help="assertions or denials only")
    command("explain", "the derivation of a claim, drawn", ("claim_id", "the claim (version) id"))
    command("history", "every version of a claim", ("claim_id", "the claim id"), horizon=False)
    write = command("assert", "assert or deny a claim (a write)", *triple, horizon=False)
    filters(write)
    write.add_argument("--polarity", choices=("positive", "negative"), help="assert (positive) or deny (negative)")
    write.add_argument("--provenance", default=None, help="JSON object saying where the claim comes from")
    write.add_argument("--confidence", type=float, help="confidence between 0 and 1")
    for name in ("correct", "retract"):
        meaning = "a corrected version of a claim (a write)" if name == "correct" else "retract a claim (a write)"
        cmd = command(name, meaning, ("claim_id", "the claim id"), horizon=False)
        cmd.add_argument("--supersedes", required=True, help="the version id being replaced")
        if name == "correct":
            cmd.add_argument("--confidence", type=float, help="confidence between 0 and 1")
            cmd.add_argument("--provenance", help="JSON object saying where the correction comes from")
        else:
            cmd.add_argument("--reason", help="why it is retracted")
    for cmd in (write, sub.choices["correct"], sub.choices["retract"]):
        cmd.add_argument("--valid-from", help="ISO-8601 start of validity")
        cmd.add_argument("--valid-to", help="ISO-8601 end of validity (open when left out)")
        cmd.add_argument("--write", action="store_true", help="required: claim writes are explicit")
    return parser


@magics_class
class ClaimMagics(MagicBase):
    """``%claims``."""

    @line_magic
    @user_errors
    def claims(self, line: str):
        """Claims: status | search | explain | history | assert | correct | retract (writes need --write)."""
        args = claims_parser().parse_args(words(line))
        if args.command is None:
            raise GestaltError("Say what to do: %claims status|search|explain|history|assert|correct|retract ...")
        api = REGISTRY.get(args.alias).claims()
        horizon = {"valid_time": getattr(args, "valid_time", None), "system_time": getattr(args, "system_time", None)}
        if args.command == "status":
            result = api.status(args.subject, args.predicate, args.object, literal=args.literal, world=args.world,
                                agent=args.agent, source=args.source, through_commit=args.through_commit, **horizon)
        elif args.command == "search":
            result = api.search(subject=args.subject, predicate=args.predicate, object=args.object, literal=args.literal,
                                agent=args.agent, source=args.source, world=args.world, polarity=args.polarity,
                                statement_id=args.statement_id, through_commit=args.through_commit, **horizon)
        elif args.command == "explain":
            result = api.explain(args.claim_id, **horizon)
        elif args.command == "history":
            result = api.history(args.claim_id)
        elif args.command == "assert":
            result = api.assert_claim(args.subject, args.predicate, args.object, polarity=args.polarity, agent=args.agent,
                                      provenance=args.provenance, valid_from=args.valid_from, valid_to=args.valid_to,
                                      source=args.source, confidence=args.confidence, world=args.world or "default",
                                      literal=args.literal, write=args.write)
        elif args.command == "correct":
            result = api.correct(args.claim_id, supersedes=args.supersedes, confidence=args.confidence,
                                 provenance=args.provenance, valid_from=args.valid_from, valid_to=args.valid_to, write=args.write)
        else:
            result = api.retract(args.claim_id, supersedes=args.supersedes, reason=args.reason,
                                 valid_from=args.valid_from, valid_to=args.valid_to, write=args.write)
        return self._keep(result, args.out)
