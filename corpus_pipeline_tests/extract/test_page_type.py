"""Page types declared by structured data."""

import pytest
from lxml import html

from corpus_pipeline.extract.page_type import declared_page_type
from corpus_pipeline.extract.structured_data import structured_data


@pytest.mark.parametrize(
    ("head", "body", "expected"),
    [
        ('<meta property="og:type" content="article">', "", "article"),
        ('<meta property="og:type" content="product.item">', "", "product"),
        ('<script type="application/ld+json">{"@graph": [{"@type": ["WebPage"]}, {"@type": "NewsArticle"}]}</script>', "", "article"),
        ('<script type="application/ld+json">[{"@type": "https://schema.org/Product"}]</script>', "", "product"),
        ("", '<div itemscope itemtype="http://schema.org/DiscussionForumPosting">post</div>', "forum"),
        # a thread inside an article template is a thread
        ('<meta property="og:type" content="article"><script type="application/ld+json">{"@type": "QAPage"}</script>', "", "forum"),
        # a blog post whose comments carry schema.org Comment stays an article
        ('<script type="application/ld+json">{"@graph": [{"@type": "BlogPosting"}, {"@type": "Comment"}]}</script>', "", "article"),
        # a product page's FAQ section (FAQPage of Questions) is not a forum thread
        ('<script type="application/ld+json">[{"@type": "Product"}, {"@type": "FAQPage", "mainEntity": [{"@type": "Question"}]}]</script>', "", "product"),
        ('<script type="application/ld+json">{"@type": "Question"}</script>', "", "forum"),
        # a blog's index: an SEO plugin's og:type says article, the page's own data says list
        ('<meta property="og:type" content="article"><script type="application/ld+json">{"@type": "CollectionPage"}</script>', "", None),
        # a news story with a list of related stories stays a story
        ('<script type="application/ld+json">[{"@type": "NewsArticle"}, {"@type": "ItemList"}]</script>', "", "article"),
        # three stories declared on one page are a list of them
        ("", '<div itemscope itemtype="https://schema.org/BlogPosting">a</div>' * 3, None),
        ('<meta property="og:type" content="website">', "", None),
        ('<script type="application/ld+json">{not json</script>', "", None),
    ],
)
def test_declared_page_type(head, body, expected):
    document = html.document_fromstring(f"<html><head>{head}</head><body>{body}<p>text</p></body></html>")
    assert declared_page_type(document, structured_data(document).types) == expected
