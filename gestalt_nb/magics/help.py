"""Help for every magic, generated from its argument parser, so it never drifts from what it accepts.

``%gcypher?`` (and ``%gestalt?``, ``%claims?`` …) shows: what the magic does, its usage, every
option with its meaning and default, each subcommand with its own options, and one example.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..options import Settings


def _takes_value(action: argparse.Action) -> bool:
    return action.nargs != 0


def _metavar(action: argparse.Action) -> str:
    if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
        return "{" + ",".join(str(choice) for choice in action.choices) + "}"
    if action.metavar:
        return str(action.metavar)
    return action.dest.upper().replace("-", "_")


def invocation(action: argparse.Action) -> str:
    """How an argument is written: ``-o, --out OUT``, ``--write``, ``[ALIAS]``."""
    if not action.option_strings:
        name = _metavar(action)
        return f"[{name}]" if action.nargs in ("?", "*") else name
    names = ", ".join(action.option_strings)
    return f"{names} {_metavar(action)}" if _takes_value(action) else names


#: Options whose default is a setting (``%config GestaltMagic.<name>``) rather than a fixed value.
_FROM_SETTINGS = {"limit": "row_limit", "display_limit": "display_limit", "max_nodes": "max_nodes",
                  "max_edges": "max_edges", "renderer": "renderer"}


def default_text(action: argparse.Action) -> str:
    if action.required:
        return "required"
    if action.default is None and action.dest in _FROM_SETTINGS and action.option_strings:
        name = _FROM_SETTINGS[action.dest]
        return f"%config GestaltMagic.{name}, {getattr(Settings, name)!r} unless set"
    if isinstance(action, (argparse._StoreTrueAction,)):
        return "off"
    if isinstance(action, argparse._AppendAction):
        return "none; repeatable"
    if action.default is None or action.default == "" or action.default is argparse.SUPPRESS:
        return "none" if action.option_strings else ("optional" if action.nargs in ("?", "*") else "required")
    return repr(action.default) if isinstance(action.default, str) else str(action.default)


def _arguments(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if not isinstance(a, (argparse._SubParsersAction, argparse._HelpAction))]


def subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name, help, parser) of each subcommand, in the order they were declared."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            found += [(name, helps.get(name, ""), sub) for name, sub in action.choices.items()]
    return found


def _usage(prog: str, actions: list[argparse.Action]) -> str:
    parts = []
    for action in actions:
        text = invocation(action).split(", ")[-1] if action.option_strings else invocation(action)
        parts.append(f"[{text}]" if action.option_strings and not action.required else text)
    return " ".join([prog, *parts])


def _option_lines(actions: list[argparse.Action], indent: str) -> list[str]:
    width = max((len(invocation(a)) for a in actions), default=0)
    lines = []
    for action in actions:
        meaning = action.help or ""
        if "default" not in meaning:
            meaning = f"{meaning} (default: {default_text(action)})".strip()
        lines.append(f"{indent}{invocation(action):<{width}}  {meaning}")
    return lines


def help_text(parser: argparse.ArgumentParser, summary: str, example: str, usage: str | None = None) -> str:
    """The whole help page for one magic."""
    lines = [summary.strip(), ""]
    commands = subcommands(parser)
    if commands:
        lines.append("Commands:")
        for name, text, sub in commands:
            actions = _arguments(sub)
            lines.append(f"  {_usage(parser.prog + ' ' + name, actions)}")
            if text:
                lines.append(f"      {text}")
            lines += _option_lines(actions, "      ")
    else:
        actions = _arguments(parser)
        lines.append("Usage:")
        lines.append(f"  {usage or _usage(parser.prog, actions)}")
        lines.append("")
        lines.append("Arguments and options:")
        lines += _option_lines(actions, "  ")
    lines += ["", "Example:", *("  " + line for line in example.strip().splitlines())]
    return "\n".join(lines)


def document(function: Any, parser: argparse.ArgumentParser, summary: str, example: str, usage: str | None = None) -> None:
    """Set ``function.__doc__`` (what ``%magic?`` shows) to the generated help."""
    function.__doc__ = help_text(parser, summary, example, usage)
