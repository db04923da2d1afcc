"""What sets each group apart, for its caption: the label or property value most over-represented in it.

A group's share of a label is exact (the label index, counted per group with numpy). Property values are read
for a seeded sample of each group's members (``per_group``; the whole graph's share is the groups' shares
weighted by their sizes), so a property's share is an estimate, and the note says so. A value names a group
when at least ``MIN_SHARE`` of the group has it and it is ``MIN_LIFT`` times as common there as in the whole
graph (lift); the highest share × log(lift) wins. A group nothing sets apart is named by its best-connected
members (highest degree, by their ``name``). Captions of different groups always differ: a repeated one gets
its group's best-connected member added.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: A value names a group when this share of its members has it ...
MIN_SHARE = 0.5
#: ... and it is this many times as common there as in the whole graph.
MIN_LIFT = 1.5
#: Members whose properties are read, at most, over all groups (each group gets its share, 20 to 200).
SAMPLE = 10_000
SEED = 7
#: Property values that name nothing: too long to be a category.
LONGEST = 40


@dataclass
class Naming:
    """Per group: the identifying part of its caption, what sets it apart (in words) and its best-known members."""

    heads: list[str]
    distinguishing: list[str]
    members: list[str]
    notes: list[str] = field(default_factory=list)


def per_group(groups: int) -> int:
    return max(20, min(200, SAMPLE // max(groups, 1)))


def name_groups(membership: np.ndarray, sizes: np.ndarray, label_counts: np.ndarray, labels: list[str], special: list[bool],
                tops: dict[int, list[int]], member_names: dict[int, str], read: Callable[[np.ndarray], list[dict[str, Any]]] | None,
                ) -> Naming:
    """Name each group (``special[g]``: a group of our own, "no relationships" and the like, keeps its name).

    ``read(numbers)`` gives the nodes' JSON (labels, properties) for node integers; None: labels and members only."""
    count = sizes.size
    scores: list[tuple[float, str, str]] = [(0.0, "", "") for _ in range(count)]
    total = max(int(sizes.sum()), 1)
    whole = label_counts.sum(axis=0) / total
    for g in range(count):
        for column, label in enumerate(labels):
            share = label_counts[g, column] / max(int(sizes[g]), 1)
            _consider(scores, g, share, whole[column], label, f"label {label}: {share:.0%} of the group, {whole[column]:.0%} of the graph")
    notes: list[str] = []
    if read is not None and count:
        notes += _by_values(scores, membership, sizes, read)
    members = [", ".join(member_names.get(n, "") for n in tops.get(g, [])[:3]) for g in range(count)]
    heads, distinguishing = [], []
    for g in range(count):
        score, head, why = scores[g]
        if special[g] or not head:
            head = ", ".join(member_names.get(n, "") for n in tops.get(g, [])[:2]) if not special[g] else ""
            why = "" if special[g] else "nothing over-represented: named by its best-connected members"
        heads.append(head)
        distinguishing.append(why)
    _apart(heads, special, tops, member_names)
    return Naming(heads, distinguishing, members, notes)


def _consider(scores: list[tuple[float, str, str]], g: int, share: float, whole: float, head: str, why: str) -> None:
    if share < MIN_SHARE or whole <= 0 or share < MIN_LIFT * whole:
        return
    score = share * math.log(share / whole)
    if score > scores[g][0]:
        scores[g] = (score, f"{head} {share:.0%}", why)


def _by_values(scores: list[tuple[float, str, str]], membership: np.ndarray, sizes: np.ndarray,
               read: Callable[[np.ndarray], list[dict[str, Any]]]) -> list[str]:
    """Count property values in a seeded sample of each group; consider each value's lift."""
    count = sizes.size
    order = np.argsort(membership, kind="stable")
    starts = np.searchsorted(membership[order], np.arange(count + 1))
    rng = np.random.default_rng(SEED)
    take = per_group(count)
    chosen, owner = [], []
    for g in range(count):
        members = order[starts[g]:starts[g + 1]]
        picked = members if members.size <= take else np.sort(rng.choice(members, take, replace=False))
        chosen.append(picked)
        owner.append(np.full(picked.size, g))
    numbers, groups = np.concatenate(chosen), np.concatenate(owner)
    read_count = np.bincount(groups, minlength=count)
    found: list[Counter] = [Counter() for _ in range(count)]
    for g, raw in zip(groups.tolist(), read(numbers)):
        for key, value in (raw.get("properties") or {}).items():
            shown = _category(key, value)
            if shown is not None:
                found[g][shown] += 1
    whole: Counter = Counter()
    for g in range(count):
        for value, seen in found[g].items():
            whole[value] += sizes[g] * seen / max(int(read_count[g]), 1)
    total = max(int(sizes.sum()), 1)
    for g in range(count):
        for (key, shown), seen in found[g].items():
            if seen < 2:  # a value one member has names that member, not its group (a name, in a group of two)
                continue
            share, overall = seen / max(int(read_count[g]), 1), whole[(key, shown)] / total
            _consider(scores, g, share, overall, shown,
                      f"{key} = {shown}: ~{share:.0%} of the group, ~{overall:.0%} of the graph (from {int(read_count[g]):,} members read)")
    sampled = int((read_count < sizes).sum())
    if not sampled:
        return []
    return [f"Property values that name groups are counted on up to {take:,} members of each group (a seeded sample; "
            f"{sampled:,} groups are bigger): their shares are estimates."]


def _category(key: str, value: Any) -> tuple[str, str] | None:
    """``(key, shown)`` for a value that can name a group (short text, a truth value, a whole number), else None."""
    if isinstance(value, bool):
        return key, f"{key}={str(value).lower()}"
    if isinstance(value, int):
        return (key, f"{key}={value}") if abs(value) < 10**15 else None
    if isinstance(value, str) and 0 < len(value) <= LONGEST and not value.isspace():
        return key, value
    return None


def _apart(heads: list[str], special: list[bool], tops: dict[int, list[int]], member_names: dict[int, str]) -> None:
    """Make repeated heads differ: each repeat gets its group's best-connected member not already in it. Heads that
    differ only in their share ("test 72%", "test 73%") are repeats: a caption with little room keeps the value only."""
    value = [head.rsplit(" ", 1)[0] if head.endswith("%") else head for head in heads]
    seen = Counter(shown for shown, own in zip(value, special) if not own)
    for g, head in enumerate(heads):
        if special[g] or seen[value[g]] < 2:
            continue
        extra = next((member_names[n] for n in tops.get(g, []) if member_names.get(n) and member_names[n] not in head), None)
        if extra:
            heads[g] = f"{head} · {extra}" if head else extra
