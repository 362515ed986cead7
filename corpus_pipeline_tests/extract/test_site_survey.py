"""The website survey the pipeline runs before extraction: its boilerplate model on a multilingual site."""

from corpus_pipeline.extract.site_survey import PageFacts, listing_json, listing_of_json, survey_of_facts, survey_site
from corpus_pipeline_tests.extract.test_boilerplate import SITE, TOPICS, multilingual_site, parsed


def test_untranslated_copies_do_not_make_the_body_of_a_page_template():
    pages = multilingual_site(copy_declares="en")
    survey = survey_site(pages, workers=1)
    for url, hint, body in pages:
        record = parsed(url, body, survey.boilerplate, hint, markup=None)
        topic = url.rsplit("/", 1)[1].removesuffix(".html")
        untranslated = TOPICS.index(topic) % 2 == 1
        if "/en/" in url or untranslated:
            assert f"explains {topic} in detail" in record["content"], url
            assert f"know about {topic} but never dared" in record["content"], url
        assert "Copyright" not in record["content"] and "Urheberrecht" not in record["content"], url


def _blog_page(body_class: str, entries: list[tuple[str, str]]) -> bytes:
    """A WordPress-like page: the template around ``entries`` (title, paragraph), each in its own article."""
    articles = "".join(f'<article class="post"><h2 class="entry-title">{title}</h2>'
                       f'<div class="entry-content"><p>{text}</p></div></article>' for title, text in entries)
    return (f'<html lang="en"><body class="{body_class}"><div class="menu"><a href="/">Home</a> <a href="/about/">About'
            f'</a></div><main class="site-main">{articles}</main><footer><p>Copyright Riverside Garden. All rights '
            "reserved.</p></footer></body></html>").encode()


def test_archives_the_cms_declares_teach_no_template_so_a_post_keeps_the_teaser_they_show():
    # The teaser (the text before <!--more-->) stands on the month archive just before its post in URL order, and on
    # two neighbouring archives: two pairs of neighbours, which made it template on the post's own page.
    teaser = ("Opening day", "More than sixty neighbours came to the riverside plots to turn the first spadefuls.")

    def entries(name: str) -> list[tuple[str, str]]:
        return [(f"{name} {topic}", f"On the {name} page, a note about {topic} that no other page shows.")
                for topic in TOPICS[:4]]

    pages = [
        ("/2024/01/", _blog_page("archive date", [teaser, *entries("january")])),
        ("/2024/01/08/opening-day/", _blog_page("single single-post postid-1", [teaser, *entries("opening")])),
        *[(f"/2024/0{n}/0{n}/post-{topic}/", _blog_page(f"single single-post postid-{n + 1}", entries(topic)))
          for n, topic in enumerate(TOPICS[:6], start=2)],
        ("/author/editor/page/2/", _blog_page("archive author paged paged-2", [teaser, *entries("author")])),
        ("/category/diary/", _blog_page("archive category", [teaser, *entries("diary")])),
    ]
    pages = [(f"{SITE}{path}", None, body) for path, body in pages]
    survey = survey_site(pages, workers=1)
    post = parsed(pages[1][0], pages[1][2], survey.boilerplate, None, markup=None)["content"]
    assert teaser[1] in post
    assert "Copyright" not in post, "the posts still teach the template"


def test_a_survey_learned_again_from_its_pages_facts_and_a_kept_listing_is_the_survey():
    pages = multilingual_site(copy_declares="en")
    urls = "".join(f"<url><loc>{url}</loc><lastmod>2024-03-0{n % 9 + 1}T10:00:00+02:00</lastmod></url>"
                   for n, (url, _, _) in enumerate(pages))
    sitemap = f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'.encode()
    read: list[PageFacts] = []

    def keep_facts(read_page, items, workers):
        for facts in map(read_page, items):
            read.append(facts)
            yield facts

    survey = survey_site(pages, [(f"{SITE}/sitemap.xml", sitemap)], workers=1, map_facts=keep_facts)
    assert survey.boilerplate.templates and survey.listed.lastmods and survey.inlinks  # something to lose
    text = listing_json(survey.listed)
    assert text is not None
    kept = listing_of_json(text)
    assert kept == survey.listed
    assert survey_of_facts(read, kept) == survey
    assert survey_site(pages, [], workers=1, listed=kept) == survey
