"""The website's chrome around a page, found by what elements say they are."""

from lxml import html

from corpus_pipeline.extract.page_chrome import chrome_detached, in_page_chrome
from corpus_pipeline_tests.support.page_chrome import without_page_chrome


def page(main: str) -> html.HtmlElement:
    return html.document_fromstring(f"""<html><body>
<header class="site-header"><a href="/">Riverside Garden</a><p class="tagline">since 2019</p></header>
<nav><a href="/">Home</a></nav><div class="sidebar"><p>Archives 2020</p></div>
<main>{main}</main>
<div id="footer"><p>© 2018 <time datetime="2018-01-01">2018</time></p></div>
</body></html>""")


def test_a_header_holding_the_page_title_is_the_page_own():
    hero = '<header class="header"><h1>Rainwater tanks</h1><p>Published on 3 March 2021</p></header>'
    document = page(hero + "<p>Tanks under every gutter.</p>")
    kept = without_page_chrome(document).text_content()
    assert "Published on 3 March 2021" in kept and "Tanks under every gutter." in kept
    for chrome in ("Riverside Garden", "since 2019", "Home", "Archives 2020", "© 2018"):
        assert chrome not in kept
    assert "Riverside Garden" in document.text_content(), "the page itself is left untouched"


def test_headers_and_footers_of_the_article_are_the_article_own():
    document = page('<article><header><time datetime="2021-03-03">3 March</time></header><p>Text.</p>'
                    '<footer>Posted in <a href="/tag/x">x</a> on <time datetime="2021-03-04">4 March</time></footer></article>')
    times = {node.get("datetime"): in_page_chrome(node) for node in document.iter("time")}
    assert times == {"2021-03-03": False, "2021-03-04": False, "2018-01-01": True}
    assert "Posted in" in without_page_chrome(document).text_content()


def test_chrome_is_found_whatever_the_case_of_its_names_and_roles():
    document = html.document_fromstring("""<html><body>
<div id="FOOTER"><p>Footer text</p></div><div role=" Banner "><p>Banner text</p></div>
<div class="Page SideBar"><p>Sidebar text</p></div><div class="sidebar-widget"><p>Widget text</p></div>
<div class="wrapper"><div class="Site-Header"><div class="navbar"><p>Nested chrome</p></div></div></div>
<main><div class="copyright"><p>The article's own line</p></div></main>
</body></html>""")
    kept = without_page_chrome(document).text_content()
    for chrome in ("Footer text", "Banner text", "Sidebar text", "Nested chrome"):
        assert chrome not in kept
    assert "Widget text" in kept, "a name that only contains a chrome word is not one"
    assert "The article's own line" in kept


def test_the_chrome_detached_for_a_while_is_what_the_copy_leaves_out_and_comes_back():
    document = page('<div class="sidebar">Note</div>tail one<p>Text.</p><aside>Aside</aside> tail two <nav>x</nav>')
    first = document.find("body")[0]
    source = html.tostring(document)
    with chrome_detached(document) as detached:
        assert detached is document
        assert html.tostring(document) == html.tostring(without_page_chrome(document))
        assert "Riverside Garden" not in document.text_content() and "tail one" in document.text_content()
    assert html.tostring(document) == source
    assert document.find("body")[0] is first, "the same elements are back"


def test_the_chrome_comes_back_when_the_reading_fails():
    document = page("<p>Text.</p>")
    source = html.tostring(document)
    try:
        with chrome_detached(document):
            raise RuntimeError("the reading failed")
    except RuntimeError:
        pass
    assert html.tostring(document) == source
