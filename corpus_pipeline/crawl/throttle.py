"""How fast a crawl talks to each host: how many requests are in flight and how far apart they start.

By default a host's pace follows its server's latency to the response headers (the last byte would also count our own
stalls), like Scrapy's AutoThrottle, by TCP's congestion control (additive increase, multiplicative decrease): one
law for refusals, failures and latency, with no throughput estimate (noisy on small sites):

* The **window** (requests the server may work on at once) starts at one and grows by one per answer until the
  host's first sign of trouble (TCP's slow start), then by one per round trip. Only a window in use grows (answers
  received below it say nothing about more: TCP's application-limited rule), and above one request only on answers
  measured against their kind's idle latency and within the tolerance.
* **Trouble halves the requests in flight** (TCP's flight size rule): a 429, 503 or 504, a request that ended
  without an answer (timeout, connection error), or a latency rise. Only a request started after a decrease can
  cause the next one (TCP's one decrease per round trip): a burst of refusals halves the window once.
* **A latency rise is latency rising with our concurrency, per kind of answer** (status class and media type): a
  dynamic site answers a redirect or a 404 in milliseconds and its pages in 60-300 ms. A kind keeps its last 16
  answers of each load (our requests in flight when one was sent or answered). Its **idle latency** is the geometric
  mean of its answers of the lowest loads (at least four), at least 10 ms; an answer's **load ratio** is its latency
  over that. The server queues our requests, and more would only slow every client, when the geometric mean of the
  last round trip's load ratios (at least four answers) is above 1.5: pages whose costs spread five-fold average out
  over a round trip, whereas queueing slows every answer of it.
* **A latency back-off is checked**: when the second round trip after it (the first still shares the server with
  requests sent before) is not a fifth lower in load ratio, our load was not the cause (our process is starved of
  CPU, or the server is slower for everyone): the window goes back and the latest answers become the idle
  latencies. Latency alone never takes the window below one request; refusals and failures do.
* **Below one request, the window becomes a delay** between starts: max(latency, 0.1 s) / window. Each further
  refusal doubles it (exponential back-off); each good answer shrinks it by a fifth.

The pace stays within :class:`PaceLimits` (robots.txt's Crawl-delay raises the floor:
:meth:`HostThrottle.set_delay`); with ``adaptive`` off, ``max_concurrency`` requests in flight ``min_delay_s`` apart.
"""

from __future__ import annotations

import math
import statistics
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial

from corpus_pipeline.crawl.settings import CrawlSettings

# The adaptive control law's constants (the module docstring says how they act).
# A round trip's load ratio above 1.5 means requests queue: above the spread of a round trip of pages of different
# costs, below the 2x the benchmark's loaded server must not exceed.
LATENCY_TOLERANCE = 1.5
LATENCY_SLACK_S = 0.01  # an idle latency below 10 ms is scheduling jitter, no sign of load
LATENCY_RELIEF = 0.8  # a latency back-off that does not take a fifth off the load ratio relieved no queue of ours
LATENCY_SMOOTHING = 0.5  # weight of a new answer in the smoothed latency (the unit of the back-off delay)
IDLE_LATENCY_SAMPLES = 64  # answers kept for the last round trips
SAMPLES_PER_LOAD = 16  # the latest, so the idle latency follows a server that gets slower for good
# A geometric mean of four pages whose costs spread five-fold (log-normal, sigma 0.45) passes 1.5x by chance 1 in 25.
LATENCY_SAMPLE = 4
# After slow start (TCP's): on a server that queues, the probe above its capacity lasts one round trip.
WINDOW_INCREASE = 1.0
# x1.25 window per good answer below one request: a server that refused once gets ~3 good answers per refusal, not 1.
DELAY_RECOVERY = 0.25
BACKOFF_FACTOR = 0.5  # TCP's halving: twice the refusals, half the rate, so back-off is exponential
# A server answering 429 in a millisecond would otherwise be asked again a few milliseconds later.
BACKOFF_UNIT_S = 0.1
OVERLOAD_STATUSES = frozenset({429, 503, 504})  # rate limited, unavailable, gateway timeout


@dataclass(frozen=True)
class PaceLimits:
    """The configured bounds of every host's pace (the user's knobs)."""

    max_concurrency: int = CrawlSettings.per_host_concurrency
    min_delay_s: float = CrawlSettings.min_delay_s
    max_delay_s: float = CrawlSettings.max_delay_s
    adaptive: bool = CrawlSettings.adaptive_pace


@dataclass(frozen=True)
class Pace:
    """A host's pace at one moment: requests allowed in flight and the delay between starts."""

    concurrency: int
    delay_s: float
    idle_latency_s: float | None  # of the kind of the latest answer


@dataclass(frozen=True)
class Answer:
    """One response's headers, as the pace learns from them."""

    kind: str  # answer_kind's
    status: int
    latency_s: float  # from the start of the request to its response headers
    load: int  # requests of ours in flight to the host when it was sent or answered (the more), itself included


def answer_kind(status: int, content_type: str | None) -> str:
    """What an answer's latency is compared within: its status class (304 apart) and, unless a redirect, its media
    type (a page, an image, a redirect and a 404 page differ in cost)."""
    if status == 304:
        return "304"
    status_class = f"{status // 100}xx"
    if 300 <= status < 400:
        return status_class
    media = (content_type or "").split(";", 1)[0].strip().lower()
    return f"{status_class} {media}"


@dataclass(frozen=True)
class _Sample:
    answered_at: float
    latency_s: float
    load: int
    ratio: float | None  # latency over its kind's idle latency (the slack at least) when it arrived; None: none yet


class _KindLatencies:
    """The recent answers of one kind by load: those of the fewest requests in flight (slow start, the bottom of the
    last back-off) stay when the window has long grown."""

    def __init__(self) -> None:
        self.by_load: defaultdict[int, deque[_Sample]] = defaultdict(partial(deque, maxlen=SAMPLES_PER_LOAD))

    def idle_s(self, least: int) -> float | None:
        """Geometric mean latency of the answers sent with the fewest requests of ours in flight: all those of the
        lowest load, then of the next one, until there are ``least`` (None while the kind has fewer answers)."""
        chosen: list[float] = []
        for load in sorted(self.by_load):
            chosen += [sample.latency_s for sample in self.by_load[load]]
            if len(chosen) >= least:
                return _geometric_mean(chosen)
        return None

    def forget_before(self, since: float) -> None:
        """Drop the answers that arrived at ``since`` or before."""
        for load in list(self.by_load):
            kept = deque((s for s in self.by_load[load] if s.answered_at > since), maxlen=SAMPLES_PER_LOAD)
            if kept:
                self.by_load[load] = kept
            else:
                del self.by_load[load]


def _geometric_mean(values: list[float]) -> float:
    """The geometric mean of positive values (a zero counts as a microsecond)."""
    return math.exp(statistics.fmean(math.log(max(value, 1e-6)) for value in values))


@dataclass
class _BackOff:
    """A latency back-off waiting for the answers that judge it."""

    window_before: float
    ratios_before: list[float]  # load ratios of the answers it reacted to
    answers_before: int = 0  # of them, answers that arrived after it
    ratios_after: list[float] = field(default_factory=list)


class _HostPace:
    """The control law of one host. Not thread-safe: HostThrottle calls it under the host's lock."""

    def __init__(self, limits: PaceLimits) -> None:
        self.limits = limits
        self.floor_s = limits.min_delay_s
        self.window = 1.0
        self.slow_start = True
        self.back_off: _BackOff | None = None
        self.generation = 0  # decreases so far; a slot remembers the generation it started in
        self.latency_s: float | None = None
        self.kinds: defaultdict[str, _KindLatencies] = defaultdict(_KindLatencies)
        self.last_kind: _KindLatencies | None = None
        self.recent: deque[_Sample] = deque(maxlen=IDLE_LATENCY_SAMPLES)  # answers of every kind, in order

    def concurrency(self) -> int:
        if not self.limits.adaptive:
            return self.limits.max_concurrency
        return max(1, min(self.limits.max_concurrency, math.floor(self.window)))

    def delay_s(self) -> float:
        backoff = 0.0
        if self.limits.adaptive and self.window < 1.0:
            backoff = min(self._backoff_latency() / self.window, self.limits.max_delay_s)
        return max(self.floor_s, backoff)

    def on_answer(self, answer: Answer, generation: int, now: float, in_flight: int) -> None:
        """Headers of ``answer`` arrived at ``now``, for a request of ``generation``; ``in_flight`` counts it."""
        overloaded = answer.status in OVERLOAD_STATUSES
        previous = answer.latency_s if self.latency_s is None else self.latency_s
        self.latency_s = (1 - LATENCY_SMOOTHING) * previous + LATENCY_SMOOTHING * answer.latency_s
        if not overloaded:  # a refusal is quick and says nothing about how fast the server works
            self._file(answer, now)
        if not self.limits.adaptive:
            return
        ratio = None if overloaded else self.recent[-1].ratio  # this answer's
        calm = ratio is not None and ratio <= LATENCY_TOLERANCE
        if generation < self.generation:
            if self.back_off is not None and ratio is not None:
                # An answer to a request sent before the back-off measures the queue the back-off reacted to.
                self.back_off.ratios_before.append(ratio)
                self.back_off.answers_before += 1
            return
        if overloaded:
            self.back_off = None  # the server said it is overloaded: the back-off stands
            self._decrease(in_flight, below_one=True)
        elif self.back_off is not None:
            self._judge_latency_back_off(self.back_off)
        elif self._queueing():
            self._latency_rose(in_flight)
        elif in_flight >= self.concurrency() and (self.window < 1.0 or calm):
            # A window in use grows on a calm answer; a delay (below one request) on any good answer.
            self._increase()

    def _file(self, answer: Answer, now: float) -> None:
        """Keep the answer with its kind's, and its load ratio (None while its kind has no idle latency yet)."""
        kind = self.kinds[answer.kind]
        idle = kind.idle_s(LATENCY_SAMPLE)
        # Below the slack, an idle latency is scheduling jitter: a 3 ms redirect answered in 8 ms is no queue.
        ratio = answer.latency_s / max(idle, LATENCY_SLACK_S) if idle is not None else None
        sample = _Sample(now, answer.latency_s, answer.load, ratio)
        kind.by_load[answer.load].append(sample)
        self.recent.append(sample)
        self.last_kind = kind

    def on_failure(self, generation: int, in_flight: int) -> None:
        """A request of ``generation`` ended without an answer; ``in_flight`` counts it."""
        if self.limits.adaptive and generation >= self.generation:
            self.back_off = None
            self._decrease(in_flight, below_one=True)

    def _latency_rose(self, in_flight: int) -> None:
        """Back off from a latency rise, and see over the next round trip whether it was ours."""
        if self.window <= 1.0:
            self._rebaseline()  # one request at a time cannot queue: the server got slower for another reason
            return
        back_off = _BackOff(self.window, [s.ratio for s in reversed(self._round_trip()) if s.ratio is not None])
        self._decrease(in_flight, below_one=False)
        self.back_off = back_off

    def _judge_latency_back_off(self, back_off: _BackOff) -> None:
        """After two round trips at the lower window, undo the back-off unless the load ratio fell."""
        ratio = self.recent[-1].ratio
        if ratio is None:
            return
        back_off.ratios_after.append(ratio)
        round_trip = max(LATENCY_SAMPLE, self.concurrency())
        if len(back_off.ratios_after) < 2 * round_trip:
            return
        # The first round trip after the back-off still shared the server with requests sent before it.
        after = _geometric_mean(back_off.ratios_after[round_trip:])
        # Before: the round trip that rose and the answers still on their way then, at least ``LATENCY_SAMPLE``.
        before = _geometric_mean(back_off.ratios_before[-max(LATENCY_SAMPLE, back_off.answers_before):])
        self.back_off = None
        if after > LATENCY_RELIEF * before:
            self.window = back_off.window_before
            self._rebaseline()  # the server is slower at any load of ours: today's answers are its idle latency

    def _rebaseline(self) -> None:
        """The answers of the last round trip become their kinds' idle latency."""
        since = self.recent[-1].answered_at - self.recent[-1].latency_s
        for kind in self.kinds.values():
            kind.forget_before(since)
        self.recent.clear()

    def _queueing(self) -> bool:
        """Whether the geometric mean of the last round trip's load ratios is above the tolerance."""
        ratios = [sample.ratio for sample in self._round_trip() if sample.ratio is not None]
        return len(ratios) >= LATENCY_SAMPLE and _geometric_mean(ratios) > LATENCY_TOLERANCE

    def _round_trip(self) -> list[_Sample]:
        """The answers that arrived while the latest one was on its way, newest first, and at least
        ``LATENCY_SAMPLE`` with a load ratio."""
        latest = self.recent[-1]
        since = latest.answered_at - latest.latency_s
        answers: list[_Sample] = []
        measured = 0
        for sample in reversed(self.recent):
            if sample.answered_at <= since and measured >= LATENCY_SAMPLE:
                break
            answers.append(sample)
            measured += sample.ratio is not None
        return answers

    def _increase(self) -> None:
        if self.slow_start:
            self.window += 1.0
        elif self.window < 1.0:
            self.window *= 1.0 + DELAY_RECOVERY
        else:
            self.window += WINDOW_INCREASE / self.window  # one round trip is `window` answers
        self.window = min(self.window, float(self.limits.max_concurrency))

    def _decrease(self, in_flight: int, below_one: bool) -> None:
        """Halve what was in flight (TCP halves its flight size, not a window the sender did not fill)."""
        self.slow_start = False
        self.generation += 1
        lowest = self._backoff_latency() / self.limits.max_delay_s if below_one and self.limits.max_delay_s > 0 else 1.0
        self.window = max(min(self.window, max(in_flight, 1)) * BACKOFF_FACTOR, min(lowest, 1.0))

    def _backoff_latency(self) -> float:
        return max(self.latency_s or 0.0, BACKOFF_UNIT_S)


@dataclass
class RequestSlot:
    """One request's permission to run; tell it when the response headers arrive."""

    _report: Callable[[int, str | None], None]
    waited_s: float  # time spent waiting for the host's pace before the request could start
    answered: bool = False

    def response(self, status: int, content_type: str | None = None) -> None:
        """The response headers arrived: the throttle learns this kind of answer's latency (first call only)."""
        if not self.answered:
            self.answered = True
            self._report(status, content_type)


@dataclass
class _Host:
    pace: _HostPace
    condition: threading.Condition
    in_flight: int = 0
    next_start: float = 0.0


class HostThrottle:
    """Per-host pace of one crawl, shared by its worker threads (thread-safe)."""

    def __init__(self, limits: PaceLimits, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.limits = limits
        self._clock = clock
        self._sleep = sleep
        self._hosts: dict[str, _Host] = {}
        self._lock = threading.Lock()

    @classmethod
    def for_settings(cls, settings: CrawlSettings) -> HostThrottle:
        """The throttle the crawl settings' pace fields describe."""
        return cls(PaceLimits(
            max_concurrency=max(1, settings.per_host_concurrency),
            min_delay_s=max(0.0, settings.min_delay_s),
            max_delay_s=max(0.0, settings.max_delay_s),
            adaptive=settings.adaptive_pace,
        ))

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
            idle_s = pace.last_kind.idle_s(LATENCY_SAMPLE) if pace.last_kind is not None else None
            return Pace(pace.concurrency(), pace.delay_s(), idle_s)

    @contextmanager
    def request_slot(self, host: str) -> Iterator[RequestSlot]:
        """Block until a request to ``host`` may start, then hold one of its places in flight. Call
        ``slot.response(status)`` when the response headers arrive: leaving the block without it (a timeout, a
        connection error) tells the throttle the request failed."""
        state = self._host(host)
        asked = self._clock()
        with state.condition:
            while state.in_flight >= state.pace.concurrency():
                state.condition.wait()
            state.in_flight += 1
            load = state.in_flight  # requests of ours the server has with this one
            generation = state.pace.generation
            now = self._clock()
            start = max(now, state.next_start)
            state.next_start = start + state.pace.delay_s()
        slot: RequestSlot | None = None
        try:
            if start > now:
                self._sleep(start - now)
            started = self._clock()
            slot = RequestSlot(lambda status, content_type: self._answered(
                state, answer_kind(status, content_type), status, self._clock() - started, load, generation),
                waited_s=started - asked)
            yield slot
        finally:
            with state.condition:
                if slot is not None and not slot.answered:
                    state.pace.on_failure(generation, state.in_flight)
                state.in_flight -= 1
                state.condition.notify()  # one place freed wakes one waiter, not all the pool's idle threads

    def _answered(self, state: _Host, kind: str, status: int, latency_s: float, load: int, generation: int) -> None:
        with state.condition:
            before = state.pace.concurrency()
            # Requests sent after this one shared the server with it too: its load is the larger of the two counts.
            answer = Answer(kind, status, latency_s, max(load, state.in_flight))
            state.pace.on_answer(answer, generation, self._clock(), state.in_flight)
            grown = state.pace.concurrency() - before
            if grown > 0:
                state.condition.notify(grown)  # as many waiters as the window has new places

    def _host(self, host: str) -> _Host:
        with self._lock:
            if host not in self._hosts:
                self._hosts[host] = _Host(_HostPace(self.limits), threading.Condition())
            return self._hosts[host]
