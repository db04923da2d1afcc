"""The overview's progress: an ipywidgets bar in a kernel (like a load's), a line on stderr elsewhere.

Shown only for a graph big enough to take over a second (``SHOW_FROM`` relationships), beside a line
kept for saved notebooks (``outputs.Line``); silent for a reused overview. It names the stage (reading,
finding communities, summarising) and the seconds
so far; it is removed when the overview is ready, and says "stopped" (in red, and stays) when a
budget or an interrupt stops it — no picture is drawn then.
"""

from __future__ import annotations

import sys
import time

from .. import outputs
from ..display import kernel_shell

#: Relationships from which an overview shows its progress (100k take about a second here).
SHOW_FROM = 100_000
#: Seconds between two updates of the same stage's line (each update is two widget messages the page re-renders:
#: in headless Chromium on two cores, ~30 ms of the browser's CPU that a 1M overview's kernel would otherwise have).
EVERY = 1.0
#: Steps of the bar: reading is its first 40, finding communities the next 50, summarising the rest.
STEPS = 100


class Progress:
    def __init__(self, active: bool) -> None:
        self.active, self.started, self.value, self.line = active, time.perf_counter(), 0, ""
        self.what, self.shown = "", 0.0
        self.bar = self.text = self.box = None
        if active and kernel_shell() is not None:
            import ipywidgets as w

            self.bar, self.text = w.IntProgress(value=0, max=STEPS, description="overview"), w.Label()
            self.box = w.HBox([self.bar, self.text])
            self.kept = outputs.Line(self.box, "overview: starting")

    def show(self, what: str, value: int | None = None, detail: str = "") -> None:
        """Say the stage ``what`` (and ``detail``), the bar at ``value`` of ``STEPS`` (unchanged when None);
        the same stage's line changes at most every ``EVERY`` seconds."""
        if not self.active:
            return
        self.value = max(self.value, min(int(value), STEPS)) if value is not None else self.value
        now = time.perf_counter()
        if what == self.what and now - self.shown < EVERY:
            return
        self.what, self.shown = what, now
        self.line = f"{what}{detail} … {now - self.started:.1f} s"
        if self.bar is not None:
            self.bar.value, self.text.value = self.value, self.line
        else:
            print(f"\roverview: {self.line}", end="", file=sys.stderr)

    def stopped(self, why: str) -> None:
        """Leave a red line saying the overview stopped (it stays on the page; nothing is drawn)."""
        if not self.active:
            return
        line = f"stopped ({why}) after {time.perf_counter() - self.started:.1f} s; nothing was drawn"
        if self.bar is not None:
            self.bar.bar_style, self.text.value = "danger", line
            self.kept.say(f"overview: {line}")
        else:
            print(f"\roverview: {line}", file=sys.stderr)
        self.active = False

    def close(self) -> None:
        """The overview is ready: the bar goes (its line ends, off a kernel)."""
        if not self.active:
            return
        if self.box is not None:
            self.kept.say(None)  # the picture goes too: a saved notebook keeps nothing of the bar
            self.box.close()
        else:
            print(f"\roverview: ready in {time.perf_counter() - self.started:.1f} s", file=sys.stderr)
        self.active = False
