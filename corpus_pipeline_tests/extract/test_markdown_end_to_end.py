"""The markdown column through Dagster (issue 45): a website registered with ``markdown_links`` and
``markdown_images`` gets absolute links and its figures, and a page that typesets TeX keeps it as ``$...$``."""

from __future__ import annotations

import dagster as dg
import pytest

from corpus_pipeline.assets import ALL_ASSETS
from corpus_pipeline.core.warehouse import Warehouse
from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse, WebsiteRegistry
from corpus_pipeline_tests.extract.markdown_reading import strip_markdown

_PROSE = (
    "The survey counted the birds of the valley every spring for twelve years, walking the same paths at dawn "
    "and writing down each call they heard, so that the numbers of one year can be set beside those of another."
)

_PAGE = """<!doctype html><html lang="en"><head><title>{title}</title>{head}</head><body>
<header><a href="/">Valley notes</a></header>
<main><article><h1>{title}</h1>{body}</article></main>
<footer>Written by the valley's volunteers.</footer></body></html>"""

_GUIDE = f"""<p>{_PROSE}</p>
<p>Read <a href="methods.html">how we count</a> before you start, and the <a href="/">list of walks</a>.</p>
<p><img alt="Map of the walks" src="img/map.png"></p>
<p>{_PROSE} The map above shows where each of the walks begins and where it ends.</p>"""

# MathJax 2's script form, KaTeX's rendered form with its TeX annotation, and TeX left in the text for MathJax.
_KATEX = (
    '<span class="katex"><span class="katex-mathml"><math><semantics><mrow><mi>n</mi></mrow>'
    '<annotation encoding="application/x-tex">\\bar{n}</annotation></semantics></math></span>'
    '<span class="katex-html" aria-hidden="true"><span class="mord">n</span></span></span>'
)
_METHODS = f"""<p>{_PROSE}</p>
<p>The mean count is <script type="math/tex">\\mu = \\frac{{1}}{{N}} \\sum_i c_i</script> over the walks,
its spread {_KATEX} per walk, and each walk's share is \\(c_i / N\\) of the year's total.</p>
<p>A year's change is $c_t - c_{{t-1}}$, which costs $5 and $10 of our printing budget to publish.</p>
<p>{_PROSE}</p>"""

_MATHJAX = '<script src="/js/mathjax/tex-chtml.js" id="MathJax-script" async></script>'


@pytest.fixture(scope="module")
def markdown_run(tmp_path_factory):
    from corpus_pipeline_demo.server import serve_site

    root = tmp_path_factory.mktemp("markdown_site")
    (root / "img").mkdir()
    (root / "index.html").write_text(_PAGE.format(
        title="Valley notes", head="",
        body=f'<p>{_PROSE}</p><ul><li><a href="guide.html">The guide</a></li><li><a href="methods.html">Methods</a>'
             "</li></ul>"))
    (root / "guide.html").write_text(_PAGE.format(title="The guide", head="", body=_GUIDE))
    (root / "methods.html").write_text(_PAGE.format(title="Methods", head=_MATHJAX, body=_METHODS))
    with serve_site(root) as base_url:
        registry = root.parent / "markdown_websites.yaml"
        # "demo" is a partition name the session's registry declares; this registry points it at this website.
        registry.write_text(f"websites:\n  - name: demo\n    url: {base_url}/\n    mode: crawl\n"
                            "    markdown_links: true\n    markdown_images: true\n")
        warehouse_dir = tmp_path_factory.mktemp("markdown_warehouse")
        resources = {
            "crawler_config": CrawlerConfig(min_delay_s=0.0),
            "websites": WebsiteRegistry(path=str(registry)),
            "warehouse": ParquetWarehouse(base_dir=str(warehouse_dir)),
        }
        assets = [a for a in ALL_ASSETS if a.key.to_user_string() in ("raw_pages", "parsed_pages")]
        assert dg.materialize(assets, partition_key="demo", resources=resources).success
        parsed = Warehouse(warehouse_dir).scan("parsed_pages", "demo").collect()
        yield base_url, {row["url"].rsplit("/", 1)[-1]: row for row in parsed.iter_rows(named=True)}


def test_links_are_absolute_and_a_figure_stays_with_the_options(markdown_run) -> None:
    base_url, rows = markdown_run
    guide = rows["guide.html"]
    markdown = guide["markdown"]
    assert f"Read [how we count]({base_url}/methods.html) before you start, and the [list of walks]({base_url}/)." \
        in markdown
    assert f"\n\n![Map of the walks]({base_url}/img/map.png)\n\n" in markdown
    assert strip_markdown(markdown) == guide["content"]
    assert "Read how we count before you start" in guide["content"] and "map.png" not in guide["content"]


def test_a_page_that_typesets_tex_keeps_it(markdown_run) -> None:
    _, rows = markdown_run
    methods = rows["methods.html"]
    markdown = methods["markdown"]
    assert "The mean count is $\\mu = \\frac{1}{N} \\sum_i c_i$ over the walks" in markdown
    assert "its spread $\\bar{n}$ per walk, and each walk's share is $c_i / N$ of the year's total." in markdown
    assert "A year's change is $c_t - c_{t-1}$, which costs \\$5 and \\$10 of our printing budget" in markdown
    assert strip_markdown(markdown) == methods["content"]
