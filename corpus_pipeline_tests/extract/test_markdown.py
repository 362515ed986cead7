"""The Markdown rendering: the same text as the plain reading, with its structure (extract/markdown.py)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from corpus_pipeline.extract.html_tree import parse_html
from corpus_pipeline.extract.markdown import (
    MarkdownOptions,
    mapped_lines,
    markdown_of,
    plain_of,
    render_elements,
)
from corpus_pipeline.extract.markup import element_text
from corpus_pipeline.extract.text import line_key
from corpus_pipeline_tests.extract.markdown_reading import strip_markdown

# The generated HTML's strategy is built of lambdas, whose repr hypothesis warns is long.
pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")

# Text that exercises every escape: Markdown's inline and block syntax, HTML entities, spaces of all kinds.
_TEXT = st.text(alphabet="ab Z_*`[]$|\\<>#-+=.1!&;~()é\u00a0\t\n", min_size=0, max_size=12)
_INLINE = ("b", "strong", "em", "i", "code", "kbd", "a", "span")
_BLOCK = ("p", "div", "h1", "h3", "blockquote", "li", "dd", "dt", "section")


def _html_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _element(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    inline = st.builds(lambda tag, inner: f'<{tag} href="x y(1)">{inner}</{tag}>' if tag == "a"
                       else f"<{tag}>{inner}</{tag}>", st.sampled_from(_INLINE), children)
    block = st.builds(lambda tag, inner: f"<{tag}>{inner}</{tag}>", st.sampled_from(_BLOCK), children)
    listing = st.builds(lambda tag, items: f"<{tag}>" + "".join(f"<li>{i}</li>" for i in items) + f"</{tag}>",
                        st.sampled_from(("ul", "ol")), st.lists(children, min_size=1, max_size=3))
    row = st.lists(children, min_size=1, max_size=3)
    table = st.builds(lambda head, rows: "<table><tr>" + "".join(f"<th>{c}</th>" for c in head) + "</tr>"
                      + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows) + "</table>",
                      row, st.lists(row, max_size=3))
    code = st.builds(lambda lang, text: f'<pre><code class="language-{lang}">{_html_text(text)}</code></pre>',
                     st.sampled_from(("python", "x")), _TEXT)
    image = st.builds(lambda alt: f'<img alt="{_html_text(alt)}" src="i.png">', _TEXT)
    return st.one_of(inline, block, listing, table, code, image, st.just("<br>"))


_FRAGMENT = st.recursive(
    _TEXT.map(_html_text), lambda children: st.lists(st.one_of(_element(children), _TEXT.map(_html_text)),
                                                      max_size=4).map("".join),
    max_leaves=12,
)
_OPTIONS = st.builds(MarkdownOptions, links=st.booleans(), images=st.booleans(), base_url=st.just("https://e.org/a/"))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_FRAGMENT, _OPTIONS)
# Found by the search: an image's alt text in a table cell holding a pipe.
@example('<table><tr><th></th><th><img alt="|1" src="i.png"></th></tr></table>',
         MarkdownOptions(links=False, images=True, base_url="https://e.org/a/"))
# Found by the search: an empty code span after one closed inside bold joined the closed one; a header row of "---".
@example("<b><code><b>1</b></code></b><b></b><code></code>", MarkdownOptions())
@example("<table><tr><th>---</th><th></th></tr></table>", MarkdownOptions())
def test_markdown_holds_the_plain_text(fragment: str, options: MarkdownOptions) -> None:
    body = parse_html(f"<html><body><main>{fragment}</main></body></html>").find(".//main")
    lines = render_elements([body], options)
    markdown = markdown_of(lines)
    assert plain_of(lines) == element_text(body)
    assert strip_markdown(markdown) == plain_of(lines)
    # A reading's lines mapped back onto the rendering keep the same property.
    mapped = mapped_lines(element_text(body).replace("\n\n", "\n"), lines)
    assert strip_markdown(markdown_of(mapped)) == plain_of(mapped) == element_text(body)


def _markdown(source: str, **options) -> str:
    body = parse_html(f"<html><body><main>{source}</main></body></html>").find(".//main")
    return markdown_of(render_elements([body], MarkdownOptions(**options)))


def test_headings_lists_and_quotes() -> None:
    markdown = _markdown(
        "<h2>Setup</h2><ul><li>one</li><li>two<ol start='3'><li>three</li></ol></li></ul><blockquote>said</blockquote>"
    )
    assert markdown == "## Setup\n\n- one\n- two\n\n  3. three\n\n> said"  # "3." may not interrupt "two"


def test_a_data_table_with_its_header_row_and_escaped_cells() -> None:
    markdown = _markdown("<table><tr><th>Key</th><th>Value</th></tr><tr><td>a|b</td><td><code>x</code></td></tr></table>")
    assert markdown == "| Key | Value |\n| --- | --- |\n| a\\|b | `x` |"


def test_a_layout_table_is_read_as_text() -> None:
    markdown = _markdown("<table><tr><td><p>Left column</p><div>menu</div></td><td>Right</td></tr></table>")
    assert "|" not in markdown
    assert markdown == "Left column\n\nmenu\n\nRight"


def test_code_keeps_its_whitespace_and_its_language() -> None:
    source = '<div class="highlight-python"><pre><span>def f():</span>\n\n    return 1\n</pre></div>'
    assert _markdown(source) == "```python\ndef f():\n\n    return 1\n```"
    assert _markdown('<pre><code class="lang-js">a`b</code></pre>').startswith("```js\n")
    # Highlighters that name it in the class word after theirs: Pandoc (with line numbers), SyntaxHighlighter.
    pandoc = '<div class="sourceCode"><pre class="sourceCode numberSource haskell numberLines"><code>x</code></pre></div>'
    assert _markdown(pandoc) == "```haskell\nx\n```"
    assert _markdown('<pre class="brush: js; gutter: false">x</pre>') == "```js\nx\n```"
    assert _markdown('<div class="highlight notranslate"><pre>x</pre></div>') == "```\nx\n```", "no language named"


def test_inline_code_emphasis_and_links_by_option() -> None:
    source = '<p>Call <code>f()</code> <em>now</em>, see <a href="/docs/x">the docs</a>.</p>'
    assert _markdown(source) == "Call `f()` *now*, see the docs."
    linked = _markdown(source, links=True, base_url="https://e.org/a/")
    assert linked == "Call `f()` *now*, see [the docs](https://e.org/docs/x)."
    assert strip_markdown(linked) == "Call f() now, see the docs."


def test_images_only_with_the_option() -> None:
    source = '<p>A chart <img alt="sales [2024]" src="c.png"> here</p>'
    assert _markdown(source) == "A chart here"
    assert _markdown(source, images=True, base_url="https://e.org/") == "A chart ![sales \\[2024\\]](https://e.org/c.png) here"


def test_definition_lists_and_admonitions_read_as_text() -> None:
    source = '<dl><dt>Term</dt><dd>Meaning</dd></dl><div class="admonition warning"><p>Careful</p></div>'
    assert _markdown(source) == "**Term**\n\nMeaning\n\n> Careful"


def test_structures_the_generated_html_seldom_holds() -> None:
    # Two code spans side by side are one (written apart, they would read as one span with backticks inside).
    assert _markdown("<p>Run <code>a</code><code>`b</code> now</p>") == "Run ``a`b`` now"
    assert _markdown("<p><code>a</code><b></b><code>c</code> <code>d</code></p>") == "`ac` `d`", "an empty element between"
    # A caption is a line above its table; a cell spanning two columns leaves the second empty.
    table = "<table><caption>Sizes</caption><tr><th>k</th><th>v</th></tr><tr><td colspan='2'>wide</td><td>3</td></tr></table>"
    assert _markdown(table) == "Sizes\n\n| k | v |  |\n| --- | --- | --- |\n| wide |  | 3 |"
    # Code in a list item is indented under it; code in a quote is quoted, its blank line too.
    item = "<ul><li>Install:<pre><code>pip install x\n  --user</code></pre></li><li>next</li></ul>"
    assert _markdown(item) == "- Install:\n\n  ```\n  pip install x\n    --user\n  ```\n\n- next"
    assert _markdown("<blockquote><p>Run</p><pre>a\n\n  b</pre></blockquote>") == "> Run\n>\n> ```\n> a\n>\n>   b\n> ```"
    # Layout tables read as text: declared so, one column, text between the cells.
    for layout, text in (("<table role='presentation'><tr><td>menu</td><td>body</td></tr></table>", "menu\n\nbody"),
                         ("<table><tr><td>one</td></tr><tr><td>column</td></tr></table>", "one\n\ncolumn"),
                         ("<table><tr><td>a</td>, <td>b</td></tr></table>", "a\n\n,\n\nb")):
        assert _markdown(layout) == text
    # A cell's "<br>" in code or in its text is no line break (mkdocs-material's "hard breaks: <code><br></code>").
    breaks = "<table><tr><th>a<br>b</th><th>c</th></tr><tr><td>as <code>&lt;br&gt;</code></td><td>&lt;br&gt; x</td></tr></table>"
    assert _markdown(breaks) == "| a<br>b | c |\n| --- | --- |\n| as `<br>` | \\<br> x |"
    for source in (table, item, "<blockquote><p>Run</p><pre>a\n\n  b</pre></blockquote>", breaks):
        body = parse_html(f"<html><body><main>{source}</main></body></html>").find(".//main")
        lines = render_elements([body])
        assert strip_markdown(markdown_of(lines)) == plain_of(lines) == element_text(body)


def test_reader_lines_map_back_to_their_elements() -> None:
    body = parse_html(
        "<html><body><main><h2>Install</h2><ul><li>first</li></ul>"
        "<table><tr><th>a</th><th>b</th></tr></table><p>unrelated</p></main></body></html>"
    ).find(".//main")
    lines = render_elements([body])
    mapped = mapped_lines("Install\n- first\n| a | b |\n|---|---|\nfrom elsewhere *", lines)
    assert markdown_of(mapped) == "## Install\n\n- first\n\n| a | b |\n| --- | --- |\n\nfrom elsewhere \\*"
    assert plain_of(mapped) == "Install\n\nfirst\n\na\n\nb\n\nfrom elsewhere *"
    # A list item the page does not hold, written out by a reader, stays an item at the depth its indent gives.
    assert markdown_of(mapped_lines("- first\n  - a reader's own\n* another", lines)) == (
        "- first\n  - a reader's own\n- another"
    )


_DOC_PAGE = """<html><head><title>Install | Docs</title></head><body><nav><a href="/">Home</a></nav>
<article class="doc"><h1>Install</h1><p>The package installs with <code>pip</code> on every platform we support,
and it needs <strong>Python 3.11</strong> or newer to run its command line tool.</p>
<h2>Steps</h2><ol><li>Create a virtual environment for the project.</li><li>Install the package into it.</li></ol>
<pre><code class="language-bash">python -m venv .venv
.venv/bin/pip install corpus-pipeline
</code></pre>
<table><tr><th>Option</th><th>Default</th></tr><tr><td>workers</td><td>2</td></tr></table>
<p>That is all there is to it, and the rest of the guide explains the options one by one in detail.</p></article>
<footer>Copyright</footer></body></html>"""


@pytest.mark.parametrize("containers", [(), ("article.doc",)])
def test_a_parsed_page_carries_its_markdown(containers: tuple[str, ...]) -> None:
    from datetime import UTC, datetime

    from corpus_pipeline.core.registry import Website
    from corpus_pipeline.extract.boilerplate import BoilerplateModel
    from corpus_pipeline.extract.page import HtmlPage, parse_html_page

    page = HtmlPage("https://docs.example.org/install/", _DOC_PAGE.encode(), "text/html", datetime.now(UTC))
    model = BoilerplateModel(containers=containers)
    record = parse_html_page(page, Website(name="docs", url="https://docs.example.org/"), model)
    assert record["extraction"] == ("site_container" if containers else record["extraction"])
    markdown = record["markdown"]
    assert strip_markdown(markdown) == record["content"]
    assert "## Steps" in markdown
    assert "1. Create a virtual environment for the project.\n2. Install the package into it." in markdown
    assert "```bash\npython -m venv .venv\n.venv/bin/pip install corpus-pipeline\n```" in markdown
    assert "| Option | Default |\n| --- | --- |\n| workers | 2 |" in markdown
    assert "`pip`" in markdown and "**Python 3.11**" in markdown


def test_math_is_kept_as_its_tex() -> None:
    from corpus_pipeline.extract.markdown import mark_tex

    katex = (
        '<span class="katex"><span class="katex-mathml"><math><semantics><mi>x</mi>'
        '<annotation encoding="application/x-tex">x^2</annotation></semantics></math></span>'
        '<span class="katex-html" aria-hidden="true">x2</span></span>'
    )
    source = (
        f"<p>Area {katex} grows.</p>"
        '<p>Mean <span class="arithmatex">\\(\\bar{x}\\)</span> and</p><div class="arithmatex">\\[a|b\\]</div>'
        '<p>Old <script type="math/tex">y_1</script> MathJax.</p>'
    )
    document = parse_html(f"<html><body><main>{source}</main></body></html>")
    mark_tex(document)
    lines = render_elements([document.find(".//main")])
    assert markdown_of(lines) == "Area $x^2$ grows.\n\nMean $\\bar{x}$ and\n\n$$a|b$$\n\nOld $y_1$ MathJax."
    assert strip_markdown(markdown_of(lines)) == plain_of(lines) == "Area x^2 grows.\n\nMean \\bar{x} and\n\na|b\n\nOld y_1 MathJax."


def test_display_math_is_a_line_of_its_own() -> None:
    from corpus_pipeline.extract.markdown import mark_tex

    katex = (
        '<span class="katex-display"><span class="katex"><span class="katex-mathml"><math display="block"><semantics>'
        '<mi>x</mi><annotation encoding="application/x-tex">\\int f</annotation></semantics></math></span>'
        '<span class="katex-html" aria-hidden="true">∫f</span></span></span>'
    )
    source = (
        f'<p>So {katex} holds, <script type="math/tex; mode=display">a = b</script> too.</p>'
        '<table><tr><th>k</th><th>v</th></tr><tr><td><script type="math/tex">a|b</script></td><td>1</td></tr></table>'
    )
    for loader in ("", '<script src="/mathjax.js"></script>'):
        # On a typesetting page, a formula in an element's tail (after <b>) is math too.
        document = parse_html(f"<html><head>{loader}</head><body><main>{source}<p><b>Then</b> $y$.</p></main></body></html>")
        mark_tex(document)
        lines = render_elements([document.find(".//main")])
        markdown = markdown_of(lines)
        assert strip_markdown(markdown) == plain_of(lines)
        tail = "**Then** $y$." if loader else "**Then** \\$y\\$."
        assert markdown == f"So\n\n$$\\int f$$\n\nholds,\n\n$$a = b$$\n\ntoo.\n\n| k | v |\n| --- | --- |\n| $a\\|b$ | 1 |\n\n{tail}"


def test_prism_lines_keep_their_blank_lines() -> None:
    source = (
        '<pre class="language-js"><code><div class="token-line">a()<br></div>'
        '<div class="token-line"><span></span><br></div><div class="token-line">b()<br></div></code></pre>'
    )
    assert _markdown(source) == "```js\na()\n\nb()\n```"


def test_a_code_block_s_wordless_edges_come_back() -> None:
    from corpus_pipeline.extract.markdown import with_whole_code

    body = parse_html("<html><body><main><pre>if (x) {\n  run()\n}\n</pre></main></body></html>").find(".//main")
    rendering = render_elements([body])
    kept = mapped_lines("if (x) {\nrun()", rendering)  # a filter took the closing brace for template
    assert markdown_of(with_whole_code(kept, rendering)) == "```\nif (x) {\n  run()\n}\n```"


def test_a_written_out_row_is_its_cells() -> None:
    from corpus_pipeline.extract.markdown import cells_as_lines

    text = "Intro\n| Name | Value | \n|---|---|\n| a | * |\nOutro | with a pipe"
    assert cells_as_lines(text) == "Intro\nName\nValue\na\nOutro | with a pipe"


def test_a_line_that_is_an_inline_code_span_of_backticks_is_no_fence() -> None:
    # "``` `` ```" opens no code block: a backtick fence's info string holds no backtick (found by the property above).
    for source in ("<code>``</code>", "<code>a``b</code>", "<code>```</code>"):
        body = parse_html(f"<html><body><main>{source}</main></body></html>").find(".//main")
        lines = render_elements([body], MarkdownOptions())
        assert strip_markdown(markdown_of(lines)) == plain_of(lines) == element_text(body)


def test_a_lone_image_is_its_own_line_with_the_option() -> None:
    from corpus_pipeline.extract.markdown import with_images

    source = '<p>Before the chart.</p><p><img alt="Sales, 2024" src="/c.png"></p><p>After it.</p>'
    body = parse_html(f"<html><body><main>{source}</main></body></html>").find(".//main")
    rendering = render_elements([body], MarkdownOptions(images=True, base_url="https://e.org/a/"))
    kept = with_images(mapped_lines("Before the chart.\nAfter it.", rendering), rendering)
    assert markdown_of(kept) == "Before the chart.\n\n![Sales, 2024](https://e.org/c.png)\n\nAfter it."
    assert strip_markdown(markdown_of(kept)) == plain_of(kept) == "Before the chart.\n\nAfter it."
    # Without the option no line holds it; at the text's edge (a banner above it) it stays out.
    assert _markdown(source) == "Before the chart.\n\nAfter it."
    assert markdown_of(with_images(mapped_lines("After it.", rendering), rendering)) == "After it."


def test_a_typesetting_page_s_delimited_tex_is_math() -> None:
    from corpus_pipeline.extract.markdown import mark_tex

    source = (
        "<p>Euler: $e^{i\\pi} + 1 = 0$, and \\(a_1\\) too.</p><p>$$\\sum_i x_i$$</p>"
        "<p>It costs $5 and $10.</p><pre><code>echo $HOME$</code></pre>"
    )
    for loader in ('<script src="/js/mathjax/tex-chtml.js"></script>',
                   '<script defer src="https://cdn.example.org/katex@0.16/dist/contrib/auto-render.min.js"></script>'):
        document = parse_html(f"<html><head>{loader}</head><body><main>{source}</main></body></html>")
        text_before = element_text(document.find(".//main"))
        mark_tex(document)
        main = document.find(".//main")
        assert element_text(main) == text_before  # the readers' text is unchanged
        lines = render_elements([main])
        markdown = markdown_of(lines)
        assert markdown == (
            "Euler: $e^{i\\pi} + 1 = 0$, and $a_1$ too.\n\n$$\\sum_i x_i$$\n\nIt costs \\$5 and \\$10.\n\n"
            "```\necho $HOME$\n```"
        )
        assert strip_markdown(markdown) == plain_of(lines)
    # A page that typesets nothing: its dollars are text.
    document = parse_html(f"<html><body><main>{source}</main></body></html>")
    mark_tex(document)
    assert markdown_of(render_elements([document.find(".//main")])).startswith("Euler: \\$e^{i\\\\pi} + 1 = 0\\$")


def test_what_makes_a_page_typeset_its_tex() -> None:
    from corpus_pipeline.extract.markdown import mark_tex

    def typeset(head: str) -> bool:
        document = parse_html(f"<html><head>{head}</head><body><main><p>So $x_1$ is.</p></main></body></html>")
        mark_tex(document)
        return markdown_of(render_elements([document.find(".//main")])) == "So $x_1$ is."

    assert typeset('<script src="/js/MathJax/tex-chtml.js"></script>')  # the loader's name in any case
    assert typeset('<script src="/vendor/KaTeX/auto-render.min.js"></script>')
    assert typeset("<script>window.MathJax = {tex: {inlineMath: [['$', '$']]}};</script>")  # a configuration
    assert not typeset('<script src="/js/app.js"></script><script>var mathjax = 1;</script>')
    # A MathJax formula's own script (its TeX kept as a formula) loads nothing.
    assert not typeset('<script type="math/tex">MathJax</script>')


def test_a_tag_s_opening_before_an_element_s_text_is_escaped() -> None:
    # The "<" ends one text node and the link's text follows it: unescaped, "<RawServer>" would read as a tag.
    source = '<h5>Expression&lt;<a href="#raw">RawServer</a>&gt; &amp;<b>amp;</b></h5>'
    assert _markdown(source) == "##### Expression\\<RawServer> \\&**amp;**"
    assert strip_markdown(_markdown(source)) == "Expression<RawServer> &amp;"


_RELEASE_NOTES = [
    "The ferry timetable now lists the winter crossings to the northern islands as well as the summer ones.",
    "Tide tables for the outer harbour are printed a month ahead, with the heights at every quarter hour.",
    "A lost property desk opened beside the ticket office, where found items wait for their owners a season.",
    "Moorings on the east quay can be booked online for a week at a time instead of a single night only.",
    "The lighthouse keeper's cottage opens to visitors on Sundays, with its lamp room and its old logbooks.",
    "Pilots now board incoming cargo ships two miles further out, where the channel is deep enough for them.",
]


def _release(number: int) -> str:
    # Each release opens with the same "Added" heading: the template model counts it among the template's lines.
    notes = _RELEASE_NOTES
    return f"""<html><head><title>Release {number}.0 | Harbour news</title></head><body>
    <nav><a href="/">Home</a> <a href="/news/">All the harbour news of the season</a></nav>
    <article class="post"><h1>Release {number}.0</h1><p class="meta">By harbourmaster</p>
      <h3>Added</h3><ul><li>{notes[number % 6]} Item {number}.</li><li>{notes[(number + 1) % 6]} Item {number}b.</li></ul>
      <h3>Fixed</h3><ul><li>{notes[(number + 2) % 6]} Item {number}c.</li></ul></article>
    <footer><p>Harbour office, Quay Street 1. Open every day of the year except holidays.</p></footer>
    </body></html>"""


def test_a_repeated_heading_that_opens_the_document_s_own_text_stays() -> None:
    from datetime import UTC, datetime

    from corpus_pipeline.core.registry import Website
    from corpus_pipeline.extract.page import HtmlPage, parse_html_pages
    from corpus_pipeline.extract.site_survey import survey_site

    pages = [HtmlPage(f"http://127.0.0.1:9/news/{i}/", _release(i).encode(), "text/html", datetime.now(UTC))
             for i in range(12)]
    survey = survey_site((page.url, None, page.body) for page in pages)
    assert survey.boilerplate.containers
    website = Website(name="harbour", url="http://127.0.0.1:9/")
    for record in parse_html_pages(pages, website, survey.boilerplate, workers=1):
        assert record["extraction"] == "site_container"
        assert record["markdown"].startswith("### Added\n\n- "), record["markdown"][:80]
        assert "\n\n### Fixed\n\n- " in record["markdown"]
        assert "By harbourmaster" not in record["content"]  # the byline above it is still the template's
        assert strip_markdown(record["markdown"]) == record["content"]


def test_a_heading_in_a_list_item_is_both() -> None:
    source = "<ul><li><h6>set-cookie</h6><ul><li>A value</li></ul></li><li><p>Intro</p><h3>Then</h3></li></ul>"
    markdown = _markdown(source)
    assert markdown == "- ###### set-cookie\n  - A value\n- Intro\n\n  ### Then"
    assert strip_markdown(markdown) == "set-cookie\n\nA value\n\nIntro\n\nThen"


def _commonmark_html(fragment: str) -> str:
    """The fragment's Markdown as an independent CommonMark reader renders it."""
    body = parse_html(f"<html><body><main>{fragment}</main></body></html>").find(".//main")
    return MarkdownIt("commonmark").render(markdown_of(render_elements([body], MarkdownOptions())))


def test_a_heading_ending_in_hashes_keeps_them_under_commonmark() -> None:
    rendered = _commonmark_html("<h2>Learn C #</h2><h3>##</h3><h2>C#</h2>")
    assert "<h2>Learn C #</h2>" in rendered and "<h3>##</h3>" in rendered and "<h2>C#</h2>" in rendered


def test_a_nested_ordered_list_starting_past_one_stays_a_list_under_commonmark() -> None:
    rendered = _commonmark_html('<ol><li>a<ol start="2"><li>b</li><li>c</li></ol></li><li>d</li></ol>')
    assert '<ol start="2">\n<li>b</li>\n<li>c</li>\n</ol>' in rendered and "2. b" not in rendered


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="`a ", min_size=1, max_size=12).filter(lambda text: text.strip(" ")))
def test_code_of_backticks_reads_back_under_commonmark(code: str) -> None:
    # A span's and a block's fence is longer than the longest run of backticks inside (none: the shortest fence).
    span = _commonmark_html(f"<p>x <code>{code}</code> y</p>")
    assert f"<code>{' '.join(code.split())}</code>" in span  # the line's spaces collapsed, the span's moved out
    block = _commonmark_html(f"<pre><code>{code}\n{code}</code></pre>")
    assert f"<pre><code>{code}\n{code}\n</code></pre>" in block


def test_an_inline_element_s_spaces_go_outside_its_markup() -> None:
    assert _markdown("<p>a<em> b </em>c<strong>d </strong>e<code> f</code>g<em>h</em>i</p>") == "a *b* c**d** e `f`g*h*i"


def test_spaces_between_images_at_a_line_s_start_stay() -> None:
    # A line holding no text yet, but an image's Markdown: the spaces after it are the line's.
    source = '<p><img alt="a" src="a.png"> <img alt="b" src="b.png">\n<img alt="c" src="c.png"></p>'
    assert _markdown(source, images=True, base_url="https://e.org/") == (
        "![a](https://e.org/a.png) ![b](https://e.org/b.png)\n![c](https://e.org/c.png)"
    )


def test_a_reader_s_line_takes_the_next_rendered_line_of_its_words() -> None:
    body = parse_html("<html><body><p>Note:</p><p>a</p><p>note</p><p>b</p><p>Note:</p><p>NOTE</p></body></html>")
    lines = render_elements([body.find("body")], MarkdownOptions())
    mapped = mapped_lines("a\nnote!\nb\nnote!\nnote!\nnote!", lines)
    places = [next(i for i, rendered in enumerate(lines) if rendered is line) for line in mapped]
    assert places == [1, 2, 3, 4, 5, 0]  # the first after the last taken, else the first


_WORDED = st.lists(st.sampled_from(["Note:", "note", "NOTE!", "a b", "A, b", "ab", "b", "- b", "x", "(x)", "é"]),
                   max_size=12)


@settings(max_examples=300, deadline=None)
@given(_WORDED, _WORDED)
def test_reader_lines_map_to_the_rendered_line_of_the_same_text_else_words(rendered: list[str], read: list[str]) -> None:
    html = "".join(f"<p>{_html_text(text)}</p>" for text in rendered)
    lines = render_elements([parse_html(f"<html><body>{html}</body></html>").find("body")], MarkdownOptions())
    mapped = mapped_lines("\n".join(read), lines)
    last, expected = -1, []  # the rule: the same text, else the same words; the first after the last taken, else the first
    for text in read:
        places = [i for i, line in enumerate(lines) if line.plain == text] or [
            i for i, line in enumerate(lines) if line_key(line.plain) == line_key(text) and line_key(text)
        ]
        place = next((i for i in places if i > last), places[0] if places else None)
        if place is not None:
            last = max(last, place)
        expected.append(lines[place] if place is not None else None)
    assert len(mapped) == len(read)
    for line, found, text in zip(mapped, expected, read, strict=True):
        assert line is found if found is not None else line.plain == text.removeprefix("- ")
