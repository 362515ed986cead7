"""Path-style traps (a calendar's next month, forever) stop; real pagination and dated blog URLs are crawled."""

from corpus_pipeline.crawl.crawler import crawl_website, path_template
from corpus_pipeline_tests.crawl.conftest import make_website
from corpus_pipeline_tests.support.http_server import LoopbackSite, Response, Route


def page(*links: str) -> bytes:
    return ("<html><body><p>Text.</p>" + "".join(f'<a href="{link}">{link}</a>' for link in links) + "</body></html>").encode()


class Calendar(dict):
    """Every /cal/YYYY/MM/ page exists and links to the next and the previous month."""

    def get(self, path, default=None):
        if path.startswith("/cal/"):
            return Route(handler=self.month)
        return super().get(path, default)

    @staticmethod
    def month(request) -> Response:
        year, month = (int(part) for part in request.path.strip("/").split("/")[1:3])
        following = (year + month // 12, month % 12 + 1)
        before = (year - (month == 1), (month - 2) % 12 + 1)
        return Response(body=page(f"/cal/{following[0]}/{following[1]:02d}/", f"/cal/{before[0]}/{before[1]:02d}/"))


def test_a_calendar_linking_to_the_next_month_forever_stops_at_the_named_limit(hostile_settings):
    routes = Calendar({"/": Route(body=page("/cal/2026/11/"))})
    with LoopbackSite(routes) as site:
        rows = list(crawl_website(make_website(site.url("/"), mode="crawl"), hostile_settings))
        requests = site.total_requests
    limit = hostile_settings.max_template_chain
    trapped = [r for r in rows if r["outcome"] == "limit_reached"]
    assert trapped and all(r["error"].startswith(f"path trap: over {limit} pages of /cal/#/#/") for r in trapped)
    # One line forwards and one backwards, each cut at the limit (plus robots.txt and the start page).
    assert requests <= 2 * limit + 2


def test_pagination_of_a_few_dozen_pages_is_crawled_to_the_end(hostile_settings):
    routes = {"/blog/": Route(body=page("/blog/page/2"))}
    for number in range(2, 61):
        routes[f"/blog/page/{number}"] = Route(body=page(f"/blog/page/{number + 1}") if number < 60 else page())
    with LoopbackSite(routes) as site:
        rows = list(crawl_website(make_website(site.url("/"), mode="crawl", child="/blog/"), hostile_settings))
    assert sum(r["outcome"] == "fetched" and "/page/" in r["url"] for r in rows) == 59
    assert not any(r["outcome"] == "limit_reached" for r in rows)


def test_dated_blog_posts_are_not_a_trap(hostile_settings):
    slugs = (f"on-{a}{b}-things" for a in "abcdefghijkl" for b in "abcdefghij")  # words, as slugs are
    posts = [f"/{year}/{month:02d}/{next(slugs)}" for year in range(2015, 2025) for month in range(1, 13)]
    routes = {"/": Route(body=page(posts[0]))}
    for current, following in zip(posts, posts[1:] + ["/"]):
        routes[current] = Route(body=page(following))  # each post links to the next one: a long chain of dated URLs
    with LoopbackSite(routes) as site:
        rows = list(crawl_website(make_website(site.url("/"), mode="crawl"), hostile_settings))
    assert sum(r["outcome"] == "fetched" for r in rows if r["url"].endswith("-things")) == len(posts)


def test_path_template_abstracts_digit_runs_only():
    assert path_template("/cal/2026/11/") == path_template("/cal/2027/01/") == "/cal/#/#/"
    assert path_template("/2019/05/my-post") != path_template("/2019/05/other-post")
