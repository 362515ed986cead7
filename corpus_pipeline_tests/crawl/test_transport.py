"""The address a connection reached is judged before anything is sent (DNS rebinding)."""

import requests

from corpus_pipeline.core.outcomes import FetchOutcome
from corpus_pipeline.crawl.fetcher import Fetcher
from corpus_pipeline.crawl.politeness import is_private_address
from corpus_pipeline.crawl.throttle import HostThrottle
from corpus_pipeline.crawl.transport import ACCEPT
from corpus_pipeline_tests.support.http_server import LoopbackSite, Response, Route


def test_a_refused_peer_ends_the_fetch_before_the_request_is_sent(fast_settings):
    seen: list[tuple[str, int, str]] = []

    def refuse_loopback(host: str, port: int, address: str) -> str | None:
        seen.append((host, port, address))
        return f"{host} connected to {address}" if is_private_address(address) else None

    with LoopbackSite({"/": Route(body="<html>secret</html>")}) as site:
        fetcher = Fetcher(fast_settings, HostThrottle.for_settings(fast_settings), peer_check=refuse_loopback)
        result = fetcher.fetch(site.url("/"))
        assert site.total_requests == 0, "the server must not receive the request"
    assert result.outcome == FetchOutcome.PRIVATE_ADDRESS
    assert result.error == "127.0.0.1 connected to 127.0.0.1"
    assert result.attempts == 1, "a refusal is a decision, not a failure to retry"
    assert result.body is None
    assert seen and seen[0][1] == int(site.base_url.rsplit(":", 1)[1])


def test_an_accepted_peer_is_fetched_as_usual(fast_settings):
    with LoopbackSite({"/": Route(body="<html>hello</html>")}) as site:
        fetcher = Fetcher(fast_settings, HostThrottle.for_settings(fast_settings), peer_check=lambda *_: None)
        result = fetcher.fetch(site.url("/"))
    assert result.outcome == FetchOutcome.FETCHED and b"hello" in result.body


def test_private_address_literals():
    assert is_private_address("127.0.0.1") and is_private_address("10.1.2.3") and is_private_address("::1")
    assert is_private_address("::ffff:192.168.0.1"), "IPv4-mapped addresses are judged as IPv4"
    assert not is_private_address("93.184.216.34")
    assert not is_private_address("not-an-address")


def test_the_environments_proxy_carries_the_request(fast_settings, monkeypatch):
    # A proxy receives the absolute URL in its request line; the target host is never resolved by the crawler.
    target = "http://proxied.invalid/page.html"
    with LoopbackSite({target: Route(body="<html>through the proxy</html>")}) as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.base_url)
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        fetcher = Fetcher(fast_settings, HostThrottle.for_settings(fast_settings))
        results = [fetcher.fetch(target) for _ in range(2)]
        assert proxy.hits(target) == 2, "every request goes through the proxy, not only the first"
    assert all(r.outcome == FetchOutcome.FETCHED and b"through the proxy" in r.body for r in results)


def test_no_proxy_sends_a_host_direct_and_netrc_credentials_are_never_sent(fast_settings, monkeypatch, tmp_path):
    (tmp_path / ".netrc").write_text("machine 127.0.0.1 login someone password secret\n")
    monkeypatch.setenv("NETRC", str(tmp_path / ".netrc"))
    with LoopbackSite({}) as proxy, LoopbackSite({"/": Route(body="<html>direct</html>")}) as site:
        monkeypatch.setenv("HTTP_PROXY", proxy.base_url)
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        fetcher = Fetcher(fast_settings, HostThrottle.for_settings(fast_settings))
        result = fetcher.fetch(site.url("/"))
        assert proxy.total_requests == 0
        (_, _, headers), = site.requests
    assert result.outcome == FetchOutcome.FETCHED and b"direct" in result.body
    assert "Authorization" not in headers, "the user's .netrc is not the crawl's to send"


def test_requests_go_out_as_a_requests_session_sent_them(fast_settings):
    # The crawl's client replaced a requests.Session (trust_env off, its User-Agent and Accept): the same header
    # lines, in the same order, with a re-crawl's validators after them.
    validators = {"If-None-Match": '"v1"', "If-Modified-Since": "Wed, 21 Oct 2015 07:28:00 GMT"}
    with LoopbackSite({"/page": Route(body="<html>page</html>")}) as site:
        fetcher = Fetcher(fast_settings, HostThrottle.for_settings(fast_settings))
        result = fetcher.fetch(site.url("/page"), validators=validators)
        session = requests.Session()
        session.trust_env = False
        session.headers["User-Agent"] = fast_settings.user_agent
        session.headers["Accept"] = ACCEPT
        session.get(site.url("/page"), headers=validators, timeout=5).close()
        (_, ours_path, ours), (_, theirs_path, theirs) = site.requests
    assert result.outcome == FetchOutcome.FETCHED and b"page" in result.body
    assert ours_path == theirs_path == "/page"
    assert list(ours.items()) == list(theirs.items())
    assert ours["User-Agent"] == fast_settings.user_agent and ours["If-None-Match"] == '"v1"'


def test_a_cookie_the_server_sets_comes_back_on_the_threads_next_requests(fast_settings):
    routes = {
        "/set": Route(body="<html>set</html>", headers={"Set-Cookie": "visit=abc; Path=/"}),
        "/next": Route(body="<html>next</html>"),
    }
    with LoopbackSite(routes) as site:
        fetcher = Fetcher(fast_settings, HostThrottle.for_settings(fast_settings))
        fetcher.fetch(site.url("/next"))
        fetcher.fetch(site.url("/set"))
        fetcher.fetch(site.url("/next"))
        sent = [headers.get("Cookie") for _, _, headers in site.requests]
    assert sent == [None, None, "visit=abc"]


def test_unchanged_pages_answered_304_share_one_connection(fast_settings):
    # A 304 has no body to read: its connection serves the next request (a night of unchanged pages opened one per
    # page before).
    client_ports: list[int] = []

    def not_modified(request) -> Response:
        client_ports.append(request.client_address[1])
        return Response(304, b"", None, {"ETag": '"v1"'})

    with LoopbackSite({"/page": Route(handler=not_modified)}) as site:
        fetcher = Fetcher(fast_settings, HostThrottle.for_settings(fast_settings))
        results = [fetcher.fetch(site.url("/page"), validators={"If-None-Match": '"v1"'}) for _ in range(3)]
    assert [r.outcome for r in results] == [FetchOutcome.NOT_MODIFIED] * 3
    assert len(client_ports) == 3 and len(set(client_ports)) == 1, f"connections from ports {client_ports}"
