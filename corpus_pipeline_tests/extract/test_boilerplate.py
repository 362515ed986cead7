"""Domain-level boilerplate learned from consecutive pages of a generated website."""

from datetime import datetime, timezone

from corpus_pipeline.core.registry import parse_registry
from corpus_pipeline.extract.boilerplate import learn_boilerplate
from corpus_pipeline.extract.page import HtmlPage, parse_html_page

TOPICS = ["tomatoes", "bicycles", "compost", "bees", "rainwater", "orchards", "seeds", "slugs"]


def site_page(topic: str, index: int) -> bytes:
    return f"""<html><body>
<div class="menu"><a href="/">Home</a> <a href="/news">News</a> <a href="/shop">Shop</a></div>
<div class="cookie">We use cookies to improve your experience. Accept all cookies?</div>
<div class="content"><h1>All about {topic}</h1>
<p>This page number {index} explains {topic} in detail, with advice collected from many members over the years.</p>
<p>Everything you wanted to know about {topic} but never dared to ask the committee.</p></div>
<div class="footer">Copyright Riverside Garden. All rights reserved. Privacy policy.</div>
</body></html>""".encode()


def test_shared_navigation_and_footer_are_removed_and_unique_text_kept():
    pages = [(f"http://127.0.0.1:8000/{t}.html", site_page(t, i)) for i, t in enumerate(TOPICS)]
    model = learn_boilerplate(pages, workers=2)
    website = parse_registry({"websites": [{"name": "s", "url": "http://127.0.0.1:8000/", "markup": "body"}]}).websites[0]
    record = parse_html_page(HtmlPage(pages[3][0], pages[3][1], "text/html", datetime.now(timezone.utc)), website, model)
    assert "All about bees" in record["content"]
    assert "page number 3 explains bees" in record["content"]
    for boilerplate in ("cookies", "Copyright", "Home News Shop"):
        assert boilerplate not in record["content"]
    without = parse_html_page(HtmlPage(pages[3][0], pages[3][1], "text/html", datetime.now(timezone.utc)), website, None)
    assert "cookies" in without["content"], "the model is what removes it"


def test_identical_pages_are_not_emptied():
    same = site_page("tomatoes", 1)
    pages = [(f"http://127.0.0.1:8000/copy-{i}.html", same) for i in range(4)]
    model = learn_boilerplate(pages, workers=1)
    website = parse_registry({"websites": [{"name": "s", "url": "http://127.0.0.1:8000/", "markup": "body"}]}).websites[0]
    record = parse_html_page(HtmlPage(pages[0][0], same, "text/html", datetime.now(timezone.utc)), website, model)
    assert "explains tomatoes" in record["content"]


def test_neighbouring_near_duplicates_keep_their_shared_text():
    pages = [(f"http://127.0.0.1:8000/{t}.html", site_page(t, i)) for i, t in enumerate(TOPICS)]
    draft = site_page("bees", 3).replace(b"in detail", b"at length")
    pages.insert(4, ("http://127.0.0.1:8000/bees-draft.html", draft))
    model = learn_boilerplate(pages, workers=1)
    website = parse_registry({"websites": [{"name": "s", "url": "http://127.0.0.1:8000/", "markup": "body"}]}).websites[0]
    record = parse_html_page(HtmlPage(pages[3][0], pages[3][1], "text/html", datetime.now(timezone.utc)), website, model)
    assert "never dared to ask the committee" in record["content"]
    assert "cookies" not in record["content"]


def test_the_automatic_extractor_reads_pages_without_their_template():
    promotion = b"<p>Members get ten percent off every packet of seeds at the spring fair, each Saturday in April.</p>"
    pages = [
        (f"http://127.0.0.1:8000/{t}.html", site_page(t, i).replace(b'<div class="footer">', promotion + b'<div class="footer">'))
        for i, t in enumerate(TOPICS)
    ]
    model = learn_boilerplate(pages, workers=1)
    website = parse_registry({"websites": [{"name": "s", "url": "http://127.0.0.1:8000/"}]}).websites[0]
    page = HtmlPage(pages[3][0], pages[3][1], "text/html", datetime.now(timezone.utc))
    with_model, without = parse_html_page(page, website, model), parse_html_page(page, website, None)
    assert "page number 3 explains bees" in with_model["content"]
    assert "spring fair" not in with_model["content"]
    assert "spring fair" in without["content"], "the model is what removes it"
