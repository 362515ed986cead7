"""Request deadlines: one watch thread shuts the socket of a request that ran out of time, and only that one."""

import socket
import time

from corpus_pipeline.crawl.deadline import DeadlineWatch, RequestDeadline


def test_a_blocked_read_ends_when_its_deadline_passes():
    ours, theirs = socket.socketpair()
    with ours, theirs:
        deadline = RequestDeadline(DeadlineWatch())
        deadline.arm(0.05)
        deadline.watch(ours)
        started = time.monotonic()
        assert ours.recv(10) == b""  # the peer never writes: only the shutdown ends the read
        assert deadline.expired
        assert time.monotonic() - started < 5


def test_a_finished_request_s_deadline_never_shuts_the_next_request():
    watch = DeadlineWatch()
    first, second = RequestDeadline(watch), RequestDeadline(watch)
    ours, theirs = socket.socketpair()
    with ours, theirs:
        first.arm(0.02)
        first.disarm()
        first.arm(30)  # the next request of the same thread
        first.watch(ours)
        second.arm(0.05)  # another thread's request, due first
        time.sleep(0.2)
        assert second.expired
        assert not first.expired
        theirs.sendall(b"ok")
        assert ours.recv(2) == b"ok"
