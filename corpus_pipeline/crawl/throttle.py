"""How fast a crawl talks to each host: how many requests are in flight and how far apart they start.

By default the pace of a host follows its server's response latency (the time from the start of a request to its
response headers), in the spirit of Scrapy's AutoThrottle, with a control law of our own borrowed from TCP
congestion control (additive increase, multiplicative decrease):

* The **window** is how many requests the server may work on at once. It starts at one request and, until the
  host's first sign of trouble, grows by one per answer (doubling every round trip, TCP's slow start); after that
  by one request per round trip.
* **Trouble halves the requests in flight** (the window becomes half of them, TCP's flight size rule): an answer
  429, 503 or 504, a request that ended without an answer (timeout, connection error), or a latency rise: the
  fastest answer of the last round trip (the answers that arrived while the latest one was on its way, at least
  two) slower than 1.5 times the host's idle latency (the fastest of its last 64 answers) and 10 ms more. A server
  whose latency grows with our load is queueing our requests: more of them in flight would bring no more
  throughput, only slower answers for every client. Queueing delays every answer of a round trip, whereas a short
  stall of our own process (threads parsing pages while an answer waits to be read) delays some; hence the
  fastest answer, not the average.
* **A latency back-off is checked**: when the second round trip after it (the first still shares the server with
  requests sent before it) is not a fifth faster on average, the rise was not caused by our load (our own process
  is starved of CPU, or the server is slower for everyone), so the window goes back to where it was. Latency alone
  never takes the window below one request; refusals and failures do.
* Only a window in use grows: answers received while fewer requests were in flight than allowed say nothing about
  how the server would take more (TCP's rule for application-limited senders).
* **Below one request, the window becomes a delay** between request starts: max(latency, 0.1 s) / window. Each
  further refusal doubles the delay (exponential back-off); each good answer shrinks it by a fifth.
* Only a request started after a decrease can cause the next one: answers already on their way reflect the old
  pace (TCP's one decrease per round trip), so a burst of refusals halves the window once, not once per request.

Why this law rather than a target concurrency computed from throughput x latency: it needs no throughput
estimate (noisy on small sites) and reacts to refusals and failures with the same mechanism as to latency.

The pace never leaves the configured bounds: at most ``max_concurrency`` requests in flight, and a delay between
starts never below the floor (``min_delay_s``, raised by robots.txt's Crawl-delay through :meth:`set_delay`) nor
above ``max_delay_s`` (unless the floor is). With ``adaptive`` off, the pace is fixed at ``max_concurrency``
requests in flight started ``min_delay_s`` apart, as the crawler did before.
"""

from __future__ import annotations

import math
import statistics
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import islice

from corpus_pipeline.crawl.settings import CrawlSettings


@dataclass(frozen=True)
class PaceLimits:
    """The configured bounds of every host's pace (the user's knobs)."""

    max_concurrency: int = CrawlSettings.per_host_concurrency
    min_delay_s: float = CrawlSettings.min_delay_s
    max_delay_s: float = CrawlSettings.max_delay_s
    adaptive: bool = CrawlSettings.adaptive_pace

    @classmethod
    def from_settings(cls, settings: CrawlSettings) -> PaceLimits:
        """The pace fields of the crawl settings."""
        return cls(
            max_concurrency=max(1, settings.per_host_concurrency),
            min_delay_s=max(0.0, settings.min_delay_s),
            max_delay_s=max(0.0, settings.max_delay_s),
            adaptive=settings.adaptive_pace,
        )


@dataclass(frozen=True)
class PaceLaw:
    """Constants of the adaptive control law (see the module docstring for how they act)."""

    # A round trip's fastest answer above 1.5x the idle latency means requests queue; 1.5 leaves room below the 2x
    # the benchmark's loaded server must not exceed.
    latency_tolerance: float = 1.5
    # ...and at least 10 ms above it: scheduling jitter of a few milliseconds on a fast server is no sign of load.
    latency_slack_s: float = 0.01
    # A latency back-off that does not take a fifth off the round trip's mean latency relieved no queue of ours.
    latency_relief: float = 0.8
    # Weight of a new answer in the smoothed latency (the unit of the back-off delay): recent answers count most.
    latency_smoothing: float = 0.5
    # The idle latency is the lowest of the last 64 answers, so it follows a server that gets slower for good.
    idle_latency_samples: int = 64
    # Window growth per round trip after slow start: TCP's one request per round trip; on a server that queues, the
    # probe above its capacity lasts one round trip before the latency check halves the window again.
    window_increase: float = 1.0
    # Below one request, each good answer shrinks the back-off delay by a fifth (x1.25 window): a rate-limited server
    # that refused once gets about three good answers per refusal, not one.
    delay_recovery: float = 0.25
    # TCP's halving: twice the refusals, half the rate, so back-off is exponential.
    backoff_factor: float = 0.5
    # Below one request in flight, the delay is at least 0.1 s / window: a server answering 429 in a millisecond
    # would otherwise be asked again a few milliseconds later.
    backoff_unit_s: float = 0.1
    # Answers that say "too much": rate limited, unavailable, gateway timeout (the server behind it did not answer).
    overload_statuses: frozenset[int] = frozenset({429, 503, 504})


@dataclass(frozen=True)
class Pace:
    """A host's pace at one moment: requests allowed in flight and the delay between starts."""

    concurrency: int
    delay_s: float
    latency_s: float | None  # smoothed time to response headers, None before the first answer
    idle_latency_s: float | None  # lowest recent latency of ordinary answers


class _HostPace:
    """The control law of one host. Not thread-safe: HostThrottle calls it under the host's lock."""

    def __init__(self, limits: PaceLimits, law: PaceLaw) -> None:
        self.limits = limits
        self.law = law
        self.floor_s = limits.min_delay_s
        self.window = 1.0
        self.slow_start = True
        self.judging = False  # a latency back-off waits for the answers that judge it
        self.latencies_after_back_off: list[float] = []
        self.window_before_back_off = 1.0
        self.latency_at_back_off = 0.0
        self.generation = 0  # decreases so far; a slot remembers the generation it started in
        self.latency_s: float | None = None
        self.recent: deque[tuple[float, float]] = deque(maxlen=law.idle_latency_samples)  # (answered at, latency)

    def concurrency(self) -> int:
        if not self.limits.adaptive:
            return self.limits.max_concurrency
        return max(1, min(self.limits.max_concurrency, math.floor(self.window)))

    def delay_s(self) -> float:
        backoff = 0.0
        if self.limits.adaptive and self.window < 1.0:
            backoff = min(self._backoff_latency() / self.window, self.limits.max_delay_s)
        return max(self.floor_s, backoff)

    def idle_latency_s(self) -> float | None:
        return min(latency for _, latency in self.recent) if self.recent else None

    def on_answer(self, latency_s: float, status: int, generation: int, now: float, in_flight: int) -> None:
        """Headers arrived at ``now``, ``latency_s`` after the start of a request started in ``generation``, with
        ``in_flight`` requests (this one included) not finished."""
        law = self.law
        overloaded = status in law.overload_statuses
        smoothing = law.latency_smoothing
        previous = latency_s if self.latency_s is None else self.latency_s
        self.latency_s = (1 - smoothing) * previous + smoothing * latency_s
        if not overloaded:  # a refusal is quick and says nothing about how fast the server works
            self.recent.append((now, latency_s))
        if not self.limits.adaptive or generation < self.generation:
            return
        if overloaded:
            self._stop_judging()  # the server said it is overloaded: the back-off stands
            self._decrease(in_flight, below_one=True)
        elif self.judging:
            self._judge_latency_back_off(latency_s)
        elif self._queueing():
            self._latency_rose(in_flight)
        elif in_flight >= self.concurrency():
            self._increase()  # only a window in use grows: a crawl that sends less has learnt nothing about more

    def on_failure(self, generation: int, in_flight: int) -> None:
        """A request started in ``generation`` ended without an answer, with ``in_flight`` requests (this one
        included) not finished."""
        if self.limits.adaptive and generation >= self.generation:
            self._stop_judging()
            self._decrease(in_flight, below_one=True)

    def _latency_rose(self, in_flight: int) -> None:
        """Back off from a latency rise, and see over the next round trip whether it was ours."""
        if self.window <= 1.0:
            self._rebaseline()  # one request at a time cannot queue: the server got slower for another reason
            return
        self.window_before_back_off = self.window
        self.latency_at_back_off = self._mean_of_round_trip()
        self._decrease(in_flight, below_one=False)
        self.judging = True

    def _judge_latency_back_off(self, latency_s: float) -> None:
        """After two round trips at the lower window: not faster means our load was not the cause, so undo."""
        self.latencies_after_back_off.append(latency_s)
        round_trip = max(2, self.concurrency())
        if len(self.latencies_after_back_off) < 2 * round_trip:
            return
        # The first round trip after the back-off still shared the server with requests sent before it.
        after = statistics.fmean(self.latencies_after_back_off[round_trip:])
        self.latencies_after_back_off = []
        self.judging = False
        if after > self.law.latency_relief * self.latency_at_back_off:
            self.window = self.window_before_back_off

    def _stop_judging(self) -> None:
        self.judging = False
        self.latencies_after_back_off = []

    def _rebaseline(self) -> None:
        """The latency of the last round trip becomes the idle latency (our own process stalls, or the server is
        slower for everyone: either way fewer requests from us would not make it faster)."""
        keep = len(self._round_trip())
        for _ in range(len(self.recent) - keep):
            self.recent.popleft()

    def _queueing(self) -> bool:
        if len(self.recent) < 2:
            return False
        idle = min(latency for _, latency in self.recent)
        return self._fastest_of_round_trip() > max(self.law.latency_tolerance * idle, idle + self.law.latency_slack_s)

    def _fastest_of_round_trip(self) -> float:
        return min(self._round_trip())

    def _mean_of_round_trip(self) -> float:
        return statistics.fmean(self._round_trip())

    def _round_trip(self) -> list[float]:
        """Latencies of the answers that arrived while the latest one was on its way (at least two answers)."""
        latest_at, latest = self.recent[-1]
        since = latest_at - latest
        answers = [latency for at, latency in reversed(self.recent) if at > since]
        return answers if len(answers) >= 2 else [latency for _, latency in islice(reversed(self.recent), 2)]

    def _increase(self) -> None:
        if self.slow_start:
            self.window += 1.0
        elif self.window < 1.0:
            self.window *= 1.0 + self.law.delay_recovery
        else:
            self.window += self.law.window_increase / self.window  # one round trip is `window` answers
        self.window = min(self.window, float(self.limits.max_concurrency))

    def _decrease(self, in_flight: int, below_one: bool) -> None:
        """Halve what was in flight (TCP halves its flight size, not a window the sender did not fill)."""
        self.slow_start = False
        self.generation += 1
        lowest = self._backoff_latency() / self.limits.max_delay_s if below_one and self.limits.max_delay_s > 0 else 1.0
        self.window = max(min(self.window, max(in_flight, 1)) * self.law.backoff_factor, min(lowest, 1.0))

    def _backoff_latency(self) -> float:
        return max(self.latency_s or 0.0, self.law.backoff_unit_s)


class RequestSlot:
    """One request's permission to run; tell it when the response headers arrive."""

    def __init__(self, report: Callable[[int], None]) -> None:
        self._report = report
        self.answered = False
        self.waited_s = 0.0  # time spent waiting for the host's pace before the request could start

    def response(self, status: int) -> None:
        """The response headers arrived with ``status``: the throttle learns the latency (first call only)."""
        if not self.answered:
            self.answered = True
            self._report(status)


@dataclass
class _Host:
    pace: _HostPace
    condition: threading.Condition
    in_flight: int = 0
    next_start: float = 0.0


class HostThrottle:
    """Per-host pace of one crawl, shared by its worker threads (thread-safe)."""

    def __init__(
        self,
        limits: PaceLimits,
        law: PaceLaw | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.limits = limits
        self.law = law or PaceLaw()
        self._clock = clock
        self._sleep = sleep
        self._hosts: dict[str, _Host] = {}
        self._lock = threading.Lock()

    @classmethod
    def for_settings(cls, settings: CrawlSettings) -> HostThrottle:
        """The throttle the crawl settings describe."""
        return cls(PaceLimits.from_settings(settings))

    def set_delay(self, host: str, delay_s: float) -> None:
        """Raise the floor of one host's delay between starts (robots.txt Crawl-delay); never lowers it."""
        state = self._host(host)
        with state.condition:
            state.pace.floor_s = max(state.pace.floor_s, delay_s)

    def pace(self, host: str) -> Pace:
        """The current pace of ``host``."""
        state = self._host(host)
        with state.condition:
            pace = state.pace
            return Pace(pace.concurrency(), pace.delay_s(), pace.latency_s, pace.idle_latency_s())

    @contextmanager
    def request_slot(self, host: str) -> Iterator[RequestSlot]:
        """Block until a request to ``host`` may start, then hold one of its places in flight.

        Call ``slot.response(status)`` when the response headers arrive; leaving the block without it (a timeout,
        a connection error) tells the throttle the request failed.
        """
        state = self._host(host)
        asked = self._clock()
        with state.condition:
            while state.in_flight >= state.pace.concurrency():
                state.condition.wait()
            state.in_flight += 1
            generation = state.pace.generation
            now = self._clock()
            start = max(now, state.next_start)
            state.next_start = start + state.pace.delay_s()
        slot: RequestSlot | None = None
        try:
            if start > now:
                self._sleep(start - now)
            started = self._clock()
            slot = RequestSlot(lambda status: self._answered(state, status, self._clock() - started, generation))
            slot.waited_s = started - asked
            yield slot
        finally:
            with state.condition:
                if slot is not None and not slot.answered:
                    state.pace.on_failure(generation, state.in_flight)
                state.in_flight -= 1
                # One place freed: one waiter may take it. Waking them all (the pool's idle threads queue here)
                # made every answer wake a crowd that went back to sleep, a fifth of a fast crawl's CPU.
                state.condition.notify()

    def _answered(self, state: _Host, status: int, latency_s: float, generation: int) -> None:
        with state.condition:
            before = state.pace.concurrency()
            state.pace.on_answer(latency_s, status, generation, self._clock(), state.in_flight)
            grown = state.pace.concurrency() - before
            if grown > 0:
                state.condition.notify(grown)  # as many waiters as the window has new places

    def _host(self, host: str) -> _Host:
        with self._lock:
            if host not in self._hosts:
                self._hosts[host] = _Host(_HostPace(self.limits, self.law), threading.Condition())
            return self._hosts[host]
