"""Domain-level boilerplate learned from consecutive pages of one language of a generated website."""

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import html

from corpus_pipeline.core.registry import parse_registry
from corpus_pipeline.extract.boilerplate import (
    _LINE_BREAKING_TAGS,
    _collect_text,
    _compact,
    _joined,
    _keys_of_lines_like,
    _signed_elements,
    learn_boilerplate,
    parse_page,
    template_language,
    url_language,
)
from corpus_pipeline.extract.page import HtmlPage, parse_html_page
from corpus_pipeline.extract.text import line_key

TOPICS = ["tomatoes", "bicycles", "compost", "bees", "rainwater", "orchards", "seeds", "slugs"]
SITE = "http://127.0.0.1:8000"
NAV = {
    "en": ("Home", "News", "Shop", "Copyright Riverside Garden. All rights reserved. Privacy policy."),
    "de": ("Startseite", "Neuigkeiten", "Laden", "Urheberrecht Riverside Garten. Alle Rechte vorbehalten."),
    "fr": ("Accueil", "Actualités", "Boutique", "Droits d'auteur Jardin Riverside. Tous droits réservés."),
}


def site_page(topic: str, index: int, lang: str = "en", nav: str | None = None, declared: str | None = None) -> bytes:
    """A page of the garden website: ``lang`` is its text's language, ``nav`` the template's (default ``lang``)."""
    home, news, shop, footer = NAV[nav or lang]
    if lang == "en":
        content = (f"<h1>All about {topic}</h1>\n<p>This page number {index} explains {topic} in detail, with advice "
                   f"collected from many members over the years.</p>\n<p>Everything you wanted to know about {topic} "
                   "but never dared to ask the committee.</p>")
    else:
        content = (f"<h1>Alles über {topic} ({lang})</h1>\n<p>Diese Seite Nummer {index} erklärt {topic} ausführlich, "
                   f"mit Ratschlägen vieler Mitglieder ({lang}).</p>")
    return f"""<html lang="{declared or lang}"><body>
<div class="menu"><a href="/">{home}</a> <a href="/news">{news}</a> <a href="/shop">{shop}</a></div>
<div class="cookie">We use cookies to improve your experience. Accept all cookies?</div>
<div class="content">{content}</div>
<div class="footer">{footer}</div>
</body></html>""".encode()


def website(**options):
    return parse_registry({"websites": [{"name": "s", "url": f"{SITE}/", **options}]}).websites[0]


def parsed(url: str, body: bytes, model, hreflang: str | None = None, **options) -> dict:
    page = HtmlPage(url, body, "text/html", datetime.now(UTC), hreflang=hreflang)
    return parse_html_page(page, website(**({"markup": "body"} | options)), model)


def test_shared_navigation_and_footer_are_removed_and_unique_text_kept():
    pages = [(f"{SITE}/{t}.html", None, site_page(t, i)) for i, t in enumerate(TOPICS)]
    model = learn_boilerplate(pages, workers=2)
    record = parsed(pages[3][0], pages[3][2], model)
    assert "All about bees" in record["content"]
    assert "page number 3 explains bees" in record["content"]
    for boilerplate in ("cookies", "Copyright", "Home News Shop"):
        assert boilerplate not in record["content"]
    assert "cookies" in parsed(pages[3][0], pages[3][2], None)["content"], "the model is what removes it"


def test_identical_pages_are_not_emptied():
    same = site_page("tomatoes", 1)
    pages = [(f"{SITE}/copy-{i}.html", None, same) for i in range(4)]
    model = learn_boilerplate(pages, workers=1)
    assert "explains tomatoes" in parsed(pages[0][0], same, model)["content"]


def test_neighbouring_near_duplicates_keep_their_shared_text():
    pages = [(f"{SITE}/{t}.html", None, site_page(t, i)) for i, t in enumerate(TOPICS)]
    draft = site_page("bees", 3).replace(b"in detail", b"at length")
    pages.insert(4, (f"{SITE}/bees-draft.html", None, draft))
    model = learn_boilerplate(pages, workers=1)
    record = parsed(pages[3][0], pages[3][2], model)
    assert "never dared to ask the committee" in record["content"]
    assert "cookies" not in record["content"]


def test_the_automatic_extractor_reads_pages_without_their_template():
    promotion = b"<p>Members get ten percent off every packet of seeds at the spring fair, each Saturday in April.</p>"
    pages = [
        (f"{SITE}/{t}.html", None, site_page(t, i).replace(b'<div class="footer">', promotion + b'<div class="footer">'))
        for i, t in enumerate(TOPICS)
    ]
    model = learn_boilerplate(pages, workers=1)
    url, _, body = pages[3]
    with_model, without = parsed(url, body, model, markup=None), parsed(url, body, None, markup=None)
    assert "page number 3 explains bees" in with_model["content"]
    assert "spring fair" not in with_model["content"]
    assert "spring fair" in without["content"], "the model is what removes it"


def multilingual_site(copy_declares: str | None = None) -> list[tuple[str, str | None, bytes]]:
    """Pages as a crawl fetches them: each English page, then its German and French versions.

    Half the topics are translated; the others are untranslated copies of the English text under /de/ and /fr/,
    around which the site's template is translated (and whose <html lang> is ``copy_declares`` when given).
    """
    pages = []
    for index, topic in enumerate(TOPICS):
        pages.append((f"{SITE}/en/{topic}.html", "en", site_page(topic, index)))
        for lang in ("de", "fr"):
            translated = index % 2 == 0
            body = site_page(topic, index, lang) if translated else site_page(topic, index, "en", nav=lang, declared=copy_declares or lang)
            pages.append((f"{SITE}/{lang}/{topic}.html", lang, body))
    return pages


def test_untranslated_copies_under_other_languages_never_make_english_text_template():
    for copy_declares in (None, "en"):
        pages = multilingual_site(copy_declares)
        model = learn_boilerplate(pages, workers=1)
        for url, hint, body in pages:
            record = parsed(url, body, model, hint)
            if "/en/" in url:
                topic = url.rsplit("/", 1)[1].removesuffix(".html")
                assert f"All about {topic}" in record["content"], (copy_declares, url)
                assert f"explains {topic} in detail" in record["content"], (copy_declares, url)
                assert f"know about {topic} but never dared" in record["content"], (copy_declares, url)
            for template in ("cookies", "Copyright", "Urheberrecht", "Droits d'auteur", "Startseite"):
                assert template not in record["content"], (copy_declares, url, template)


def test_the_language_a_page_is_compared_in():
    english = parse_page(b'<html lang="en-GB"><body><p>x</p></body></html>')
    assert template_language(english, f"{SITE}/de/page.html") == "de", "the URL names the language first"
    assert template_language(english, f"{SITE}/docs/page.html") == "en"
    assert template_language(parse_page(b"<p>x</p>"), f"{SITE}/docs/page.html", "pt-BR") == "pt"
    assert template_language(parse_page(b"<p>x</p>"), f"{SITE}/docs/page.html") == ""
    assert url_language(f"{SITE}/pt-br/a") == "pt" and url_language(f"{SITE}/page?lang=fr") == "fr"
    assert url_language(f"{SITE}/doc/ch01.de.html") == "de" and url_language(f"{SITE}/doc/index.pt-br.html") == "pt"
    assert url_language(f"{SITE}/js/app") is None and url_language(f"{SITE}/about") is None
    assert url_language(f"{SITE}/lib/setup.py.html") is None and url_language(f"{SITE}/v1.2.html") is None


BLOCKS = [f"<p>block {i} of the site, with a few words</p>" for i in range(6)]
PAGE_SPECS = st.lists(
    st.tuples(st.sampled_from(["en", "de", "fr"]), st.lists(st.integers(0, len(BLOCKS) - 1), min_size=1, max_size=6)),
    min_size=2,
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(PAGE_SPECS)
def test_a_removed_block_is_on_another_page_of_the_same_language(specs):
    pages = [
        (f"{SITE}/{lang}/page-{n}.html", None, f"<html><body>{''.join(BLOCKS[i] for i in blocks)}</body></html>".encode())
        for n, (lang, blocks) in enumerate(specs)
    ]
    model = learn_boilerplate(pages, workers=1)
    for n, (url, _, body) in enumerate(pages):
        document = parse_page(body)
        removed = set(model.for_page(document, url).strip(document))
        others = [b for m, (lang, blocks) in enumerate(specs) if m != n and lang == specs[n][0] for b in blocks]
        others_text = {" ".join(BLOCKS[b].removeprefix("<p>").removesuffix("</p>").split()) for b in others}
        assert removed <= others_text, (url, removed - others_text)


def fragment_site() -> list[tuple[str, str | None, bytes]]:
    """Pages whose template holds a menu, a legend table and a footer; each page's body holds a popularity table
    whose middle cell ("I:0") repeats on every page, and the page at index 3 has lines equal to template text."""
    pages = []
    for index, topic in enumerate(TOPICS):
        own = "<p>Size.</p>\n<pre>Package: *\nPin: release a=testing</pre>" if index == 3 else ""
        body = f"""<html lang="en"><body>
<ul class="menu"><li>Home</li><li>Size</li><li>Package</li></ul>
<div class="content"><h1>All about {topic}</h1>
<p>This page number {index} explains {topic} in detail, with advice from many members.</p>
<table><tr><th>name</th><th>popcon</th><th>count</th></tr><tr><td>{topic}-tools</td><td>I:0</td><td>{index + 40}</td></tr></table>
{own}</div>
<div class="footer">Copyright Riverside Garden. All rights reserved.</div>
</body></html>"""
        pages.append((f"{SITE}/{topic}.html", None, body.encode()))
    return pages


def content_lines(record: dict) -> set[str]:
    """A record's lines without list markers, and each cell of its table rows (an extractor may put a row's cells on
    lines of their own)."""
    lines = set()
    for line in record["content"].split("\n"):
        line = " ".join(line.split()).removeprefix("- ")
        if line.startswith("|"):
            lines.update(cell.strip() for cell in line.strip("|").split("|") if cell.strip())
        if line:
            lines.add(line.strip("| "))
    return lines


def test_a_line_equal_to_a_fragment_of_the_template_stays():
    pages = fragment_site()
    model = learn_boilerplate(pages, workers=1)
    url, _, body = pages[3]
    for markup in ("body", None):
        record = parsed(url, body, model, markup=markup)
        assert "Home" not in record["content"] and "Copyright" not in record["content"], markup
        assert "Size." in content_lines(record), (markup, record["content"])
        assert "Package: *" in record["content"], markup


def test_a_table_row_keeps_its_repeated_cell():
    pages = fragment_site()
    model = learn_boilerplate(pages, workers=1)
    for index, (url, _, body) in enumerate(pages):
        content = " ".join(parsed(url, body, model)["content"].split())
        assert f"{TOPICS[index]}-tools I:0 {index + 40}" in content, url
        # The heading row repeats on every page, but a data table is one unit: it stays with its rows.
        assert "name popcon count" in " ".join(content.replace("|", " ").split()), url


def test_an_index_table_of_contents_is_not_the_sidebar_listing_the_same_headings():
    toc = "<ul>" + "".join(f"<li><a href='/{t}.html'>All about {t}</a></li>" for t in TOPICS) + "</ul>"
    pages = [
        (f"{SITE}/{t}.html", None, site_page(t, i).replace(b"<body>", f"<body><div class='sidebar'>{toc}</div>".encode()))
        for i, t in enumerate(TOPICS)
    ]
    index = f"""<html lang="en"><body><div class="content"><h1>The garden handbook</h1>
<p>Welcome to the handbook: every topic the garden club wrote about.</p>{toc}</div></body></html>""".encode()
    pages.insert(0, (f"{SITE}/a-index.html", None, index))
    model = learn_boilerplate(pages, workers=1)
    assert "All about tomatoes" in parsed(*pages[0][::2], model)["content"], "the index's own listing stays"
    assert parsed(*pages[2][::2], model)["content"].count("All about") == 1, "the sidebar's copy goes"


# Lines a page may hold: template text, fragments of it (cells of the template's legend row), and sentences.
LINE_POOL = ["Home", "Size", "Package", "Package: *", "Copyright Riverside Garden.", "I:0"] + [
    f"Line {n} of the garden's pages, on {topic}." for n, topic in enumerate(TOPICS)
]
SITE_PAGES = st.lists(
    st.tuples(
        st.sampled_from(["en", "de"]),
        st.lists(st.tuples(st.sampled_from(["p", "li", "row"]), st.integers(0, len(LINE_POOL) - 1)), max_size=5),
    ),
    min_size=3,
    max_size=8,
)


def _block(kind: str, line: str) -> str:
    if kind == "row":
        return f"<table><tr><td>{line}</td><td>I:0</td></tr></table>"
    return f"<ul><li>{line}</li></ul>" if kind == "li" else f"<p>{line}</p>"


def generated_site(specs) -> list[tuple[str, str | None, bytes]]:
    """Pages of SITE_PAGES: a menu, a legend table and a footer around a sentence of their own and pooled lines."""
    pages = []
    for n, (lang, blocks) in enumerate(specs):
        own = f"<p>Page {n} alone says this, in a sentence of its own.</p>" + "".join(_block(k, LINE_POOL[i]) for k, i in blocks)
        body = f"""<html lang="{lang}"><body><ul class="menu"><li>Home</li><li>News</li></ul>
<table class="legend"><tr><th>Package</th><th>Size</th></tr></table>
<div class="content">{own}</div><div class="footer">Copyright Riverside Garden.</div></body></html>"""
        pages.append((f"{SITE}/{lang}/page-{n}.html", None, body.encode()))
    return pages


@settings(max_examples=20, deadline=None)
@given(SITE_PAGES)
def test_a_line_on_exactly_one_page_of_its_language_is_never_removed(specs):
    pages = generated_site(specs)
    model = learn_boilerplate(pages, workers=1)
    # Automatic extraction: the lines the extractor reads back from the page's source are filtered too.
    for n, (url, _, body) in enumerate(pages):
        elsewhere = set().union(*(source_lines(pages[m][2]) for m in range(len(pages)) if m != n and specs[m][0] == specs[n][0]))
        # A table's "---|---" rule holds no word: it is no line of text.
        without = content_lines(parsed(url, body, None, markup=None))
        unique = {line for line in without if line_key(line) and line_key(line) not in elsewhere}
        assert unique <= content_lines(parsed(url, body, model, markup=None)), url


def _page_text(document, skipped) -> str:
    """The page's text with a line break around each line-breaking element, ``skipped`` elements read as dropped:
    what the template's one walk (``PageTemplate._elements_and_text``) collects, read on its own."""
    pieces: list[str] = []
    if document.text and isinstance(document.tag, str):
        pieces.append(document.text)
    for child in document:
        _collect_text(child, skipped, pieces)
    text = "".join(pieces)
    return f"\n{text}\n" if isinstance(document.tag, str) and document.tag in _LINE_BREAKING_TAGS else text


def page_line_keys(document) -> set[str]:
    """The keys of every line of a page's text, split where a browser or the page's source breaks lines."""
    return {key for key in map(line_key, _page_text(document, ()).split("\n")) if key}


def source_lines(body: bytes) -> set[str]:
    """Keys of a page's lines as a browser lays them out, a table row being one line, and each of its cells."""
    document = parse_page(body)
    return page_line_keys(document) | {line_key(" ".join(cell.text_content() for cell in row)) for row in document.iter("tr")}


@settings(max_examples=20, deadline=None)
@given(SITE_PAGES)
def test_the_model_takes_only_its_template_lines_out_of_the_automatic_reading(specs):
    pages = generated_site(specs)
    model = learn_boilerplate(pages, workers=1)
    for url, _, body in pages:
        document = parse_page(body)
        template = {line_key(line) for line in model.for_page(document, url).lines(document)}
        without = [line for line in parsed(url, body, None, markup=None)["content"].split("\n") if line.strip()]
        with_model = [line for line in parsed(url, body, model, markup=None)["content"].split("\n") if line.strip()]
        assert with_model == [line for line in without if line_key(line) not in template], url


@settings(max_examples=20, deadline=None)
@given(SITE_PAGES)
def test_template_lines_are_what_stripping_removes_and_the_page_is_left_as_it_was(specs):
    pages = generated_site(specs)
    model = learn_boilerplate(pages, workers=1)
    for url, _, body in pages:
        document, stripped = parse_page(body), parse_page(body)
        before = html.tostring(document)
        assert model.for_page(document, url).lines(document) == model.for_page(stripped, url).strip(stripped)
        assert html.tostring(document) == before


@settings(max_examples=30, deadline=None)
@given(SITE_PAGES)
def test_the_one_walk_finds_the_template_elements_and_the_text_without_them_as_the_two_walks_do(specs):
    # Pages with a shared aside holding a comment, a data table, a nested block and tails, next to their own text.
    aside = ("<div class='aside'>Related<!-- a comment --><p>Shared <b>note</b> of the aside</p>tail text"
             "<table><tr><td>size</td><td>42</td></tr></table><div><p>Deeper note</p></div></div>")
    extra = [
        (f"{SITE}/en/extra-{i}.html", None,
         (f"<html><head><title>Extra {i}</title></head><body>Lead {i}<main><h1>Extra {topic}</h1>"
          f"<p>Own text about {topic}<br>on two lines</p>{aside}</main><!-- end -->after {i}</body></html>").encode())
        for i, topic in enumerate(TOPICS[:4])
    ]
    pages = generated_site(specs) + extra
    model = learn_boilerplate(pages, workers=1)
    found = 0
    for url, _, body in pages:
        document = parse_page(body)
        template = model.for_page(document, url)
        if not template.signatures:
            continue
        elements, text = template._elements_and_text(document)
        assert elements == _outermost_template(template, _signed_elements(document)), url  # every element signed
        assert text == _page_text(document, set(elements)), url
        found += len(elements)
    assert found


def _outermost_template(template, signed):
    """The template elements among every signed element of a page (document order), outermost only: what the walk
    from the outside in must find."""
    outermost = []
    for node, signature in signed:
        if signature in template.signatures and not any(node in set(outer.iter()) for outer in outermost):
            outermost.append(node)
    return outermost


def test_a_page_nested_as_deep_as_the_depth_guard_allows_is_learned_and_read():
    # The template's walks recurse once per level: lxml builds trees at most 256 levels deep (no huge_tree), far
    # under Python's recursion limit, whatever the page's markup claims.
    deep = ("<html><body><div class='content'><p>Our orchard diary, kept by the members since the first harvest.</p>"
            + "<div>" * 990 + "<p>A sentence buried very deep inside the markup of this page.</p>" + "</div>" * 990
            + "</div></body></html>").encode()
    pages = [(f"{SITE}/p{i}", None, site_page(topic, i)) for i, topic in enumerate(TOPICS)]
    model = learn_boilerplate([*pages, (f"{SITE}/deep", None, deep)], workers=1)
    record = parsed(f"{SITE}/deep", deep, model, markup=None)
    assert record["error"] is None
    assert "Our orchard diary" in record["content"]
    assert line_key("Our orchard diary, kept by the members since the first harvest.") in page_line_keys(parse_page(deep))


@given(st.lists(st.text(alphabet=st.sampled_from("ab \n\t\u00a0\u3000\x1f"), max_size=12), max_size=8))
def test_compacted_texts_joined_are_the_compacted_concatenation(pieces):
    joined = _joined([_compact(piece) for piece in pieces])
    assert joined == _compact("".join(pieces))
    assert joined.strip(" ") == " ".join("".join(pieces).split())


# Words, separators that \w+ splits at (punctuation, spaces of several kinds, a regex metacharacter), cased letters
# whose lower case differs (final sigma, dotted I), and line breaks.
LINE_ALPHABET = st.sampled_from(["a", "B", "Σ", "İ", "7", "_", " ", ".", "*", "-", "\u00a0", "\n", "\t", "é", "ab"])


@given(st.lists(LINE_ALPHABET, max_size=40).map("".join), st.lists(st.lists(LINE_ALPHABET, max_size=8).map("".join)))
@settings(max_examples=300)
def test_the_keys_found_on_a_text_s_lines_are_those_of_keying_every_line(text, candidates):
    keys = {line_key(candidate) for candidate in candidates} | {line_key(line) for line in text.split("\n")[:2]}
    keys.discard("")
    every_line = {line_key(line) for line in text.split("\n")}
    assert _keys_of_lines_like(text.lower(), keys) == keys & every_line
