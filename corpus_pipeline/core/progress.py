"""Progress of a long step, told in the run's log: items done, rate, time left.

A step that works for minutes (the crawl, the parse of every page, OCR, the near-duplicate search) says where it
stands at least every tenth of its work or every EVERY_S seconds, whichever comes first, in one line. A tenth
done less than MIN_GAP_S after the last line waits for the next one (each line is an event the run stores); the
last item's line is always written.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

# The run log is read by a person waiting.
EVERY_S = 30.0
MIN_GAP_S = 2.0
TENTHS = 10


@dataclass
class Progress:
    """Counts items of one step and logs ``what: done/total (pct), rate/s, ~left`` through ``log`` (None: nothing is
    told). Without a ``total`` (a recursive crawl does not know it) the line says done and rate only."""

    what: str
    total: int | None
    log: Callable[[str], None] | None
    unit: str = "pages"
    clock: Callable[[], float] = time.monotonic
    done: int = 0
    _started: float = field(init=False)
    _last_logged: float = field(init=False)
    _next_tenth: int = field(init=False, default=1)

    def __post_init__(self) -> None:
        self._started = self._last_logged = self.clock()

    def advance(self, items: int = 1) -> None:
        """``items`` more done; logs a line at a tenth of the total passed or after EVERY_S (module docstring)."""
        self.done += items
        if self.log is None:
            return
        now = self.clock()
        tenth_passed = bool(self.total) and self.done * TENTHS >= self._next_tenth * (self.total or 0)
        finished = bool(self.total) and self.done >= (self.total or 0)
        since = now - self._last_logged
        if (tenth_passed and (since >= MIN_GAP_S or finished)) or since >= EVERY_S:
            self.log(self.line(now))
            self._last_logged = now
            if self.total:
                self._next_tenth = self.done * TENTHS // self.total + 1

    @property
    def elapsed_s(self) -> float:
        """Seconds since the step started."""
        return self.clock() - self._started

    def line(self, now: float) -> str:
        """``parse: 260/2,600 pages (10%), 8.7 pages/s, ~4 min 29 s left`` at clock time ``now``."""
        elapsed = now - self._started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        if not self.total:
            return f"{self.what}: {self.done:,} {self.unit}, {rate:.1f} {self.unit}/s"
        share = 100 * self.done / self.total
        left = f"~{_duration(max(self.total - self.done, 0) / rate)} left" if rate > 0 else "time left unknown"
        return f"{self.what}: {self.done:,}/{self.total:,} {self.unit} ({share:.0f}%), {rate:.1f} {self.unit}/s, {left}"


def _duration(seconds: float) -> str:
    """``4 min 29 s``, ``12 s``, ``1 h 3 min``."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"
