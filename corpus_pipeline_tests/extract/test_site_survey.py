"""The website survey the pipeline runs before extraction: its boilerplate model on a multilingual site."""

from corpus_pipeline.extract.site_survey import survey_site
from corpus_pipeline_tests.extract.test_boilerplate import TOPICS, multilingual_site, parsed


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
