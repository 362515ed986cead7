"""The per-host pace: the control law on a fake clock, then against real servers on 127.0.0.1."""

from __future__ import annotations

import math
import random
import threading
import time
from contextlib import ExitStack

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus_pipeline.crawl.crawler import crawl_website
from corpus_pipeline.crawl.fetcher import Fetcher
from corpus_pipeline.crawl.settings import CrawlSettings
from corpus_pipeline.crawl.throttle import HostThrottle, PaceLimits
from corpus_pipeline_tests.crawl.conftest import make_website
from corpus_pipeline_tests.support.http_server import LoopbackSite, Response, Route

HOST = "example.org"
# Round trips that take a host from one request to the ceiling of 8: four answers one at a time measure the idle
# latency, then the window doubles per round trip (1, 2, 4, 8).
WARM_UP = 12


class FakeClock:
    """A clock that moves only when the throttle sleeps or a test says time passed."""

    def __init__(self) -> None:
        self.now = 0.0
        self.starts: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def make_throttle(**limits) -> tuple[HostThrottle, FakeClock]:
    clock = FakeClock()
    return HostThrottle(PaceLimits(**limits), clock=clock, sleep=clock.sleep), clock


def round_trip(throttle: HostThrottle, clock: FakeClock, latency_s: float, status: int | None = 200) -> int:
    """Fill every place in flight at once, let ``latency_s`` pass, answer them all; returns how many ran.

    ``status`` None leaves the slots without an answer (a timeout).
    """
    width = throttle.pace(HOST).concurrency
    with ExitStack() as stack:
        slots = [stack.enter_context(throttle.request_slot(HOST)) for _ in range(width)]
        clock.starts.append(clock.now)
        clock.now += latency_s
        for slot in slots:
            if status is not None:
                slot.response(status)
    return width


def test_a_fast_server_gets_the_ceiling_and_no_delay():
    throttle, clock = make_throttle(max_concurrency=8)
    assert throttle.pace(HOST).concurrency == 1, "an unknown host starts with one request at a time"
    for _ in range(WARM_UP):
        round_trip(throttle, clock, 0.02)
    pace = throttle.pace(HOST)
    assert pace.concurrency == 8 and pace.delay_s == 0.0
    assert pace.idle_latency_s == pytest.approx(0.02)


def test_a_server_whose_latency_grows_with_load_stays_near_its_idle_latency():
    throttle, clock = make_throttle(max_concurrency=16)
    idle = 0.05
    latencies: list[float] = []
    for _ in range(300):
        width = throttle.pace(HOST).concurrency
        round_trip(throttle, clock, idle * width)  # the server works on one request at a time
        latencies += [idle * width] * width
    steady = latencies[len(latencies) // 3:]
    assert sum(steady) / len(steady) <= 2 * idle
    assert throttle.pace(HOST).concurrency <= 2


def dynamic_round_trip(throttle: HostThrottle, clock: FakeClock, draw: random.Random, slowdown: float = 1.0) -> int:
    """A round trip to a dynamic site: pages of costs spread five-fold (log-normal around 100 ms) and, one answer in
    three, a redirect, an image or a 404 in 3 ms, each ``slowdown`` times slower; answers arrive in latency order."""
    width = throttle.pace(HOST).concurrency
    answers = []
    for _ in range(width):
        if draw.random() < 1 / 3:
            answers.append((0.003 * slowdown, *draw.choice([(301, None), (200, "image/jpeg"), (404, "text/html")])))
        else:
            answers.append((0.1 * math.exp(draw.gauss(0.0, 0.45)) * slowdown, 200, "text/html; charset=UTF-8"))
    with ExitStack() as stack:
        slots = [stack.enter_context(throttle.request_slot(HOST)) for _ in range(width)]
        start = clock.now
        for slot, (latency, status, content_type) in sorted(zip(slots, answers), key=lambda pair: pair[1][0]):
            clock.now = start + latency
            slot.response(status, content_type)
    return width


def test_a_dynamic_site_whose_latency_does_not_rise_gets_the_ceiling():
    """Issue 47: fast redirects and 404s among pages of different costs are no latency rise."""
    throttle, clock = make_throttle(max_concurrency=8)
    draw = random.Random(47)
    widths = [dynamic_round_trip(throttle, clock, draw) for _ in range(200)]
    steady = widths[50:]
    assert sum(steady) / len(steady) >= 7.5, widths  # the law before issue 47: 6.8, halving on page round trips


def test_a_dynamic_site_that_queues_our_requests_stays_near_its_idle_latency():
    """The same site on a server working on one request at a time: every answer waits for the others."""
    throttle, clock = make_throttle(max_concurrency=8)
    draw = random.Random(43)
    widths = [dynamic_round_trip(throttle, clock, draw, slowdown=throttle.pace(HOST).concurrency)
              for _ in range(200)]
    steady = widths[50:]
    assert sum(steady) / len(steady) <= 2, widths


def test_a_latency_rise_that_our_load_does_not_cause_is_undone():
    throttle, clock = make_throttle(max_concurrency=8)
    for _ in range(WARM_UP):
        round_trip(throttle, clock, 0.05)
    assert throttle.pace(HOST).concurrency == 8
    widths = [round_trip(throttle, clock, 0.2) for _ in range(4)]  # slower for everyone, whatever we send
    assert widths == [8, 4, 4, 8], "taken for queueing, halved, judged over two round trips, undone"


def test_the_first_answers_measure_the_idle_latency_and_a_slow_answer_never_grows_the_window():
    throttle, clock = make_throttle(max_concurrency=8)
    widths = [round_trip(throttle, clock, 0.05) for _ in range(5)]
    assert widths == [1, 1, 1, 1, 1], "four answers one at a time are the idle latency; the fifth is measured by it"
    assert throttle.pace(HOST).concurrency == 2
    round_trip(throttle, clock, 0.1)  # twice idle: too few answers to judge a back-off, and no licence to grow
    assert throttle.pace(HOST).concurrency == 2


def test_a_window_not_in_use_does_not_grow():
    throttle, clock = make_throttle(max_concurrency=8)
    for _ in range(20):
        with throttle.request_slot(HOST) as slot:  # a crawl with one URL at a time to give
            clock.now += 0.05
            slot.response(200)
    assert throttle.pace(HOST).concurrency == 2, "grown once, while its single place was in use"


def test_refusals_halve_the_window_once_per_round_trip_then_double_the_delay():
    throttle, clock = make_throttle(max_concurrency=8, max_delay_s=3.0)
    for _ in range(WARM_UP):
        round_trip(throttle, clock, 0.01)
    assert round_trip(throttle, clock, 0.01, status=429) == 8
    assert throttle.pace(HOST).concurrency == 4, "eight refusals of one round trip are one signal"
    round_trip(throttle, clock, 0.01, status=503)
    round_trip(throttle, clock, 0.01, status=503)
    assert throttle.pace(HOST).concurrency == 1 and throttle.pace(HOST).delay_s == 0.0
    delays = []
    for _ in range(8):
        round_trip(throttle, clock, 0.01, status=429)
        delays.append(throttle.pace(HOST).delay_s)
    assert delays[:3] == pytest.approx([0.2, 0.4, 0.8]), "exponential back-off from 0.1 s per request"
    assert max(delays) == 3.0, "never above max_delay_s"


def test_a_back_off_halves_what_was_in_flight_not_an_unused_window():
    throttle, clock = make_throttle(max_concurrency=8)
    for _ in range(WARM_UP):
        round_trip(throttle, clock, 0.01)
    with throttle.request_slot(HOST) as first, throttle.request_slot(HOST):
        clock.now += 0.01
        first.response(503)
    assert throttle.pace(HOST).concurrency == 1, "two were in flight: one is left, not four"


def test_a_request_left_without_answer_counts_as_a_failure():
    throttle, clock = make_throttle(max_concurrency=8)
    for _ in range(WARM_UP):
        round_trip(throttle, clock, 0.01)
    round_trip(throttle, clock, 1.0, status=None)
    assert throttle.pace(HOST).concurrency == 4


def test_the_pace_recovers_additively_after_a_back_off():
    throttle, clock = make_throttle(max_concurrency=8)
    for status in (429, 429, 429):
        round_trip(throttle, clock, 0.01, status=status)
    delays = [throttle.pace(HOST).delay_s]
    while throttle.pace(HOST).delay_s > 0:
        round_trip(throttle, clock, 0.01)
        delays.append(throttle.pace(HOST).delay_s)
    assert delays[1] == pytest.approx(delays[0] / 1.25), "the delay shrinks by a fifth per good answer"
    widths = [round_trip(throttle, clock, 0.01) for _ in range(12)]
    assert all(0 <= later - earlier <= 1 for earlier, later in zip(widths, widths[1:])), "one more per round trip"
    assert widths[-1] == 8


def test_min_delay_and_crawl_delay_are_floors():
    throttle, clock = make_throttle(max_concurrency=8, min_delay_s=0.5, max_delay_s=1.0)
    throttle.set_delay(HOST, 3.0)  # robots.txt Crawl-delay, above max_delay_s: it still wins
    throttle.set_delay(HOST, 2.0)  # never lowers the floor
    for _ in range(6):
        with throttle.request_slot(HOST) as slot:
            clock.starts.append(clock.now)
            slot.response(200)
    gaps = [b - a for a, b in zip(clock.starts, clock.starts[1:])]
    assert min(gaps) >= 3.0 and throttle.pace(HOST).delay_s == 3.0
    other, _ = make_throttle(min_delay_s=0.5)
    for _ in range(5):
        round_trip(other, clock, 0.001)
    assert other.pace(HOST).delay_s == 0.5, "a fast server does not go below the user's floor"


def test_a_fixed_pace_ignores_the_server():
    throttle, clock = make_throttle(max_concurrency=4, min_delay_s=0.25, adaptive=False)
    for status in (429, 503, None, 200):
        round_trip(throttle, clock, 5.0, status=status)
        assert throttle.pace(HOST).concurrency == 4 and throttle.pace(HOST).delay_s == 0.25


events = st.lists(
    st.tuples(st.floats(0.0, 30.0), st.sampled_from([200, 304, 404, 429, 500, 503, 504, None])), max_size=60
)


@settings(max_examples=150, deadline=None)
@given(events, st.integers(1, 16), st.floats(0.0, 2.0), st.floats(0.0, 20.0))
def test_the_pace_never_leaves_its_bounds(answers, max_concurrency, min_delay_s, max_delay_s):
    throttle, clock = make_throttle(max_concurrency=max_concurrency, min_delay_s=min_delay_s, max_delay_s=max_delay_s)
    for latency_s, status in answers:
        round_trip(throttle, clock, latency_s, status)
        pace = throttle.pace(HOST)
        assert 1 <= pace.concurrency <= max_concurrency
        assert min_delay_s <= pace.delay_s <= max(max_delay_s, min_delay_s)


# -- real servers ------------------------------------------------------------------------------


def test_a_burst_of_429_and_503_lowers_the_pace():
    settings_ = CrawlSettings(max_retries=0, connect_timeout_s=2.0, read_timeout_s=2.0)
    busy = [Response(429, headers={"Retry-After": "1"}), Response(429), Response(503), Response(503), Response(200)]
    routes = {"/page.html": Route(body="<p>ok</p>"), "/busy.html": Route(sequence=busy)}
    with LoopbackSite(routes) as site:
        throttle = HostThrottle.for_settings(settings_)
        fetcher = Fetcher(settings_, throttle)
        for _ in range(8):
            assert fetcher.fetch(site.url("/page.html")).status == 200
        before = throttle.pace("127.0.0.1")
        statuses = [fetcher.fetch(site.url("/busy.html")).status for _ in range(4)]
        after = throttle.pace("127.0.0.1")
    assert statuses == [429, 429, 503, 503]
    assert before.delay_s == 0.0, "latency alone never adds a delay"
    assert after.concurrency == 1 and after.delay_s > 0.0


def test_a_default_crawl_never_exceeds_the_ceiling_per_host():
    in_flight = {"now": 0, "most": 0}
    lock = threading.Lock()

    def counted(request) -> Response:
        with lock:
            in_flight["now"] += 1
            in_flight["most"] = max(in_flight["most"], in_flight["now"])
        time.sleep(0.01)
        with lock:
            in_flight["now"] -= 1
        return Response(200, b"<p>page</p>")

    pages = [f"/p{i}.html" for i in range(60)]
    index = "".join(f'<a href="{p}">{p}</a>' for p in pages)
    routes = {"/": Route(body=index), **{p: Route(handler=counted) for p in pages}}
    settings_ = CrawlSettings(per_host_concurrency=3, backoff_base_s=0.05)
    assert settings_.adaptive_pace and settings_.min_delay_s == 0.0, "the default pace is adaptive, with no fixed delay"
    with LoopbackSite(routes) as site:
        rows = list(crawl_website(make_website(site.url("/"), mode="crawl"), settings_))
    assert sum(row["outcome"] == "fetched" for row in rows) == 61
    assert 1 < in_flight["most"] <= 3
