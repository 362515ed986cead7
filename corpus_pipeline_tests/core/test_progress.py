"""core/progress: a long step says where it stands every tenth of its work or every 30 s."""

from corpus_pipeline.core.progress import Progress


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_line_every_tenth_with_the_rate_and_the_time_left():
    clock, lines = Clock(), []
    progress = Progress("parse", 200, lines.append, clock=clock)
    for _ in range(200):
        clock.now += 0.5
        progress.advance()
    assert len(lines) == 10
    assert lines[0] == "parse: 20/200 pages (10%), 2.0 pages/s, ~1 min 30 s left"
    assert lines[-1] == "parse: 200/200 pages (100%), 2.0 pages/s, ~0 s left"


def test_a_line_every_30_seconds_between_two_tenths():
    clock, lines = Clock(), []
    progress = Progress("survey", 10_000, lines.append, clock=clock)
    for _ in range(100):
        clock.now += 1.0
        progress.advance()
    assert len(lines) == 3  # at 30, 60 and 90 s: the first tenth is 1,000 pages away
    assert lines[0].startswith("survey: 30/10,000 pages (0%), 1.0 pages/s, ~2 h 46 min left")


def test_a_short_step_says_little_more_than_its_last_line():
    clock, lines = Clock(), []
    progress = Progress("parse", 2_000, lines.append, clock=clock)
    for _ in range(2_000):
        clock.now += 0.002  # 4 s in all: a tenth every 0.4 s
        progress.advance()
    # A line once 2 s went by since the start (half the pages), then the last one; ten for a step of 20 s.
    assert [line.split(" (")[1].split(")")[0] for line in lines] == ["50%", "100%"]


def test_without_a_total_the_line_says_done_and_rate():
    clock, lines = Clock(), []
    progress = Progress("fetch", None, lines.append, clock=clock)
    clock.now = 31.0
    progress.advance(62)
    assert lines == ["fetch: 62 pages, 2.0 pages/s"]
