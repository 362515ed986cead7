"""Build the bundled demo website: a static site with the traps real websites have.

Usage: ``python -m corpus_pipeline_demo.site <dest>``

The site lives in ``dest`` as static files. Absolute URLs (sitemaps, robots.txt,
hreflang) use the ``{{BASE_URL}}`` placeholder that the demo server replaces
with its own address, so the site works on any port.
"""

from __future__ import annotations

import gzip
import html
import json
import shutil
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path

from fpdf import FPDF
from PIL import Image, ImageDraw, ImageFont

from corpus_pipeline_demo.content import (
    DOCS,
    FRENCH_POSTS,
    POSTS,
    REPORT_SECTIONS,
    SCANNED_LETTER,
    SCANNED_WORDS,
    Article,
)

BASE_URL_PLACEHOLDER = "{{BASE_URL}}"
SITE_NAME = "Riverside Community Garden"
REPORT_PDF = "/files/annual-report.pdf"
SCANNED_PDF = "/files/letter-to-members.pdf"
EXACT_DUPLICATE = ("/blog/post-04.html", "/blog/post-04-reprint.html")
NEAR_DUPLICATE = ("/blog/post-05.html", "/blog/post-05-draft.html")
ARCHIVES = {
    "/tag/gardening.html": ("Posts tagged gardening", "gardening"),
    "/tag/cycling.html": ("Posts tagged cycling", "cycling"),
    "/category/news.html": ("News", "community"),
    "/author/claire.html": ("Posts by Claire", "water"),
}
DISALLOWED = ("/login/",)
NOINDEX = ("/volunteers-draft.html",)  # fetched, but its <meta name="robots" content="noindex"> keeps it out of the corpus

# How each dated post declares its date; the expected value is the last modification, in UTC.
DATE_MARKUP = {
    "post-01": ("ld+json", {"datePublished": "2026-03-14T09:30:00+01:00"}, datetime(2026, 3, 14, 8, 30, tzinfo=UTC)),
    "post-02": ("meta", {"article:published_time": "2026-04-02T18:00:00-04:00"}, datetime(2026, 4, 2, 22, 0, tzinfo=UTC)),
    "post-03": ("time", {"datetime": "2026-05-10T10:00:00Z"}, datetime(2026, 5, 10, 10, 0, tzinfo=UTC)),
    "post-04": (
        "ld+json",
        {"datePublished": "2026-05-20T08:00:00+02:00", "dateModified": "2026-06-01T12:00:00+02:00"},
        datetime(2026, 6, 1, 10, 0, tzinfo=UTC),
    ),
}
SITEMAP_LASTMOD = "2026-09-01"


@dataclass(frozen=True)
class DemoSiteFacts:
    """What the demo website contains, for tests and for the demo summary (site paths, not URLs)."""

    sitemap_pages: tuple[str, ...]
    french_pages: tuple[str, ...]
    archive_pages: tuple[str, ...]
    exact_duplicate: tuple[str, str]
    near_duplicate: tuple[str, str]
    outline_pdf: str
    outline_sections: tuple[tuple[str, int], ...]
    scanned_pdf: str
    scanned_words: tuple[str, ...]
    dated_pages: dict[str, datetime]
    disallowed_paths: tuple[str, ...]
    noindex_pages: tuple[str, ...] = NOINDEX


def build_demo_site(dest: Path) -> DemoSiteFacts:
    """Write the whole static site into ``dest`` (replacing it); deterministic."""
    dest = Path(dest)
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    files: dict[str, bytes] = {}

    posts = {post.slug: post for post in POSTS}
    for post in POSTS:
        files[f"/blog/{post.slug}.html"] = _post_page(post, f"/blog/{post.slug}.html").encode()
    french = {post.slug: post for post in FRENCH_POSTS}
    for post in FRENCH_POSTS:
        files[f"/fr/blog/{post.slug}.html"] = _post_page(post, f"/fr/blog/{post.slug}.html", lang="fr").encode()
    files[EXACT_DUPLICATE[1]] = _post_page(posts["post-04"], EXACT_DUPLICATE[1]).encode()
    files[NEAR_DUPLICATE[1]] = _post_page(_edited(posts["post-05"]), NEAR_DUPLICATE[1]).encode()
    for doc in DOCS:
        files[f"/docs/{doc.slug}.html"] = _doc_page(doc).encode()
    for path, (title, tag) in ARCHIVES.items():
        files[path] = _archive_page(title, [p for p in POSTS if tag in p.tags]).encode()
    files["/index.html"] = _home_page().encode()
    files["/blog/index.html"] = _archive_page("All posts", list(POSTS), lead="News and advice from the garden.").encode()
    files["/docs/index.html"] = _listing_page("Documents", [(f"/docs/{d.slug}.html", d.title) for d in DOCS]
                                              + [(REPORT_PDF, "Annual report (PDF)"), (SCANNED_PDF, "Letter to members (PDF)")]).encode()
    files["/about.html"] = _simple_page("About the association", (
        "The Riverside Community Garden association was founded by residents who wanted to grow food together on "
        "an abandoned strip of land along the river. Today it counts more than one hundred members.",
        "The association is run by volunteers and financed by membership fees, market sales and occasional grants.",
    )).encode()
    files["/contact.html"] = _simple_page("Contact", (
        "Write to the committee using the letterbox at the garden gate, or come to the open hour on the second "
        "Tuesday of each month, from six to seven in the evening.",
    )).encode()
    files[NOINDEX[0]] = _layout("Volunteers wanted (draft)", (
        "<article><h1>Volunteers wanted</h1>\n<p>Draft: we are looking for volunteers to water the shared plots "
        "during the summer holidays, two evenings a week, from July to the end of August.</p></article>"
    ), head='<meta name="robots" content="noindex">').encode()
    files["/login/index.html"] = _simple_page("Member login", ("This page is for committee members only.",)).encode()
    files[REPORT_PDF], outline = _report_pdf()
    files[SCANNED_PDF] = _scanned_pdf()

    blog_entries = ["/", "/blog/"] + [f"/blog/{p.slug}.html" for p in POSTS] + [EXACT_DUPLICATE[1], NEAR_DUPLICATE[1]]
    page_entries = ["/docs/", "/about.html", "/contact.html", *NOINDEX, *ARCHIVES, *(f"/docs/{d.slug}.html" for d in DOCS),
                    REPORT_PDF, SCANNED_PDF]
    files["/sitemap-blog.xml"] = _urlset(blog_entries, alternates={f"/blog/{s}.html": f"/fr/blog/{s}.html" for s in french}).encode()
    files["/sitemap-pages.xml.gz"] = gzip.compress(_urlset(page_entries).encode(), mtime=0)
    files["/sitemap.xml"] = _sitemap_index(["/sitemap-blog.xml", "/sitemap-pages.xml.gz"]).encode()
    files["/robots.txt"] = (
        "User-agent: *\n" + "".join(f"Disallow: {p}\n" for p in DISALLOWED) + f"\nSitemap: {BASE_URL_PLACEHOLDER}/sitemap.xml\n"
    ).encode()

    for path, content in files.items():
        target = dest / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)

    return DemoSiteFacts(
        sitemap_pages=tuple(blog_entries + page_entries),
        french_pages=tuple(f"/fr/blog/{s}.html" for s in french),
        archive_pages=tuple(ARCHIVES),
        exact_duplicate=EXACT_DUPLICATE,
        near_duplicate=NEAR_DUPLICATE,
        outline_pdf=REPORT_PDF,
        outline_sections=outline,
        scanned_pdf=SCANNED_PDF,
        scanned_words=SCANNED_WORDS,
        dated_pages={f"/blog/{slug}.html": expected for slug, (_, _, expected) in DATE_MARKUP.items()},
        disallowed_paths=DISALLOWED,
    )


def _edited(post: Article) -> Article:
    """A near duplicate: the same post with a handful of words changed (a draft left online)."""
    first, *rest = post.paragraphs
    first = first.replace("much faster", "far quicker").replace("large", "huge").replace("wet, smelly", "soggy, smelly")
    return Article(post.slug, post.title, (first, *rest), post.tags)


def _layout(title: str, body: str, *, lang: str = "en", head: str = "") -> str:
    """The site template: header, navigation, sidebar and footer around the main article."""
    nav = "".join(
        f'<li><a href="{href}">{label}</a></li>'
        for href, label in (("/", "Home"), ("/blog/", "Blog"), ("/docs/", "Documents"), ("/about.html", "About"),
                            ("/contact.html", "Contact"), ("/login/", "Members"))
    )
    recent = "".join(f'<li><a href="/blog/{p.slug}.html">{html.escape(p.title)}</a></li>' for p in POSTS[-4:])
    tags = "".join(f'<a class="tag" href="{path}">{html.escape(label)}</a> ' for path, (label, _) in ARCHIVES.items())
    return f"""<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<title>{html.escape(title)} | {SITE_NAME}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/static/style.css">
{head}
</head>
<body>
<header class="site-header"><a class="logo" href="/">{SITE_NAME}</a>
<p class="tagline">Growing food and friendship by the river since 2019</p></header>
<nav class="main-nav"><ul>{nav}</ul></nav>
<div class="layout">
<main id="content">
{body}
</main>
<aside class="sidebar">
<h3>Recent posts</h3><ul>{recent}</ul>
<h3>Topics</h3><p>{tags}</p>
<h3>Newsletter</h3><form action="/subscribe" method="post"><input name="email" placeholder="Your email"><button>Subscribe</button></form>
</aside>
</div>
<footer class="site-footer"><p>Riverside Community Garden association, 12 Quay Street. Open every day from dawn until dusk.</p>
<p><a href="/about.html">About</a> · <a href="/contact.html">Contact</a> · <a href="/docs/plot-rules.html">Rules</a></p>
<script>document.querySelectorAll('.tag').forEach(function (t) {{ t.title = t.textContent; }});</script>
</footer>
</body>
</html>
"""


def _post_page(post: Article, path: str, lang: str = "en") -> str:
    head, byline = "", ""
    style, values, _ = DATE_MARKUP.get(post.slug, (None, {}, None)) if lang == "en" else (None, {}, None)
    if style == "ld+json":
        data = {"@context": "https://schema.org", "@type": "BlogPosting", "headline": post.title, **values}
        head += f'<script type="application/ld+json">{json.dumps(data)}</script>\n'
    elif style == "meta":
        head += f'<meta property="article:published_time" content="{values["article:published_time"]}">\n'
    elif style == "time":
        byline = f'<p class="byline">Published <time datetime="{values["datetime"]}">10 May 2026</time></p>'
    head += f'<meta name="description" content="{html.escape(post.paragraphs[0][:150])}">\n'
    english, french = f"/blog/{post.slug}.html", f"/fr/blog/{post.slug}.html"
    if any(p.slug == post.slug for p in FRENCH_POSTS) and path in (english, french):
        head += (f'<link rel="alternate" hreflang="en" href="{BASE_URL_PLACEHOLDER}{english}">\n'
                 f'<link rel="alternate" hreflang="fr" href="{BASE_URL_PLACEHOLDER}{french}">\n')
    paragraphs = "\n".join(f"<p>{html.escape(p)}</p>" for p in post.paragraphs)
    reply = "Répondre" if lang == "fr" else "Reply"
    share = "Partager" if lang == "fr" else "Share"
    body = f"""<article class="post">
<h1>{html.escape(post.title)}</h1>
{byline}
<p class="toc"><a href="#comments">Comments</a></p>
{paragraphs}
<h2 id="comments">Comments</h2>
<p class="actions"><a href="{path}?replytocom=42#respond">{reply}</a> · <a href="{path}?utm_source=newsletter&amp;utm_medium=email">{share}</a> · <a href="{path}#top">Top</a></p>
</article>"""
    return _layout(post.title, body, lang=lang, head=head)


def _doc_page(doc: Article) -> str:
    paragraphs = "\n".join(f"<p>{html.escape(p)}</p>" for p in doc.paragraphs)
    body = f'<article class="doc"><h1>{html.escape(doc.title)}</h1>\n<h2>Details</h2>\n{paragraphs}\n<p><a href="/docs/">All documents</a></p></article>'
    return _layout(doc.title, body)


def _archive_page(title: str, posts: list[Article], lead: str = "") -> str:
    items = "\n".join(
        f'<li><h2><a href="/blog/{p.slug}.html">{html.escape(p.title)}</a></h2><p>{html.escape(p.paragraphs[0][:120])}…</p></li>'
        for p in posts
    )
    body = f'<h1>{html.escape(title)}</h1>\n<p>{html.escape(lead)}</p>\n<ul class="archive">{items}</ul>'
    return _layout(title, body)


def _listing_page(title: str, links: list[tuple[str, str]]) -> str:
    items = "\n".join(f'<li><a href="{href}">{html.escape(label)}</a></li>' for href, label in links)
    return _layout(title, f"<h1>{html.escape(title)}</h1>\n<ul>{items}</ul>")


def _simple_page(title: str, paragraphs: tuple[str, ...]) -> str:
    text = "\n".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return _layout(title, f"<article><h1>{html.escape(title)}</h1>\n{text}</article>")


def _home_page() -> str:
    posts = "\n".join(
        f'<li><a href="/blog/{p.slug}.html">{html.escape(p.title)}</a></li>' for p in POSTS
    )
    body = f"""<h1>Welcome to the Riverside Community Garden</h1>
<p>We are neighbours who grow vegetables, herbs and flowers together on shared plots along the river.
Everyone is welcome, whether you have a green thumb or have never held a spade.</p>
<h2>Latest news</h2><ul>{posts}</ul>
<h2>Practical information</h2><p>Read the <a href="/docs/">documents</a>, including the <a href="{REPORT_PDF}">annual report</a>.</p>"""
    return _layout("Home", body)


def _report_pdf() -> tuple[bytes, tuple[tuple[str, int], ...]]:
    """A text PDF with an outline: each paragraph of a section on its own page."""
    pdf = FPDF(format="A4")
    pdf.set_title("Annual report of the Riverside Community Garden")
    pdf.set_subject("Activities and accounts of the association for the past year")
    pdf.set_creation_date(datetime(2026, 2, 1, 9, 0, tzinfo=UTC))
    pdf.set_font("helvetica", size=12)
    outline: list[tuple[str, int]] = []
    for title, pages in REPORT_SECTIONS:
        for index, text in enumerate(pages):
            pdf.add_page()
            if index == 0:
                outline.append((title, pdf.page_no()))
                pdf.start_section(title)
                pdf.set_font("helvetica", style="B", size=16)
                pdf.cell(text=title, new_x="LMARGIN", new_y="NEXT")
                pdf.set_font("helvetica", size=12)
            pdf.multi_cell(w=0, text=text)
    return bytes(pdf.output()), tuple(outline)


def _scanned_pdf() -> bytes:
    """An image-only PDF: the letter rendered at 300 dpi, as a scanner would produce it."""
    width, height = 2480, 1200  # A4 width at 300 dpi, a short letter
    page = Image.new("L", (width, height), color=255)
    draw = ImageDraw.Draw(page)
    font = _font(58)
    for line_number, line in enumerate(SCANNED_LETTER):
        draw.text((180, 150 + line_number * 140), line, fill=0, font=font)
    buffer = BytesIO()
    page.save(buffer, format="PDF", resolution=300.0)
    return buffer.getvalue()


def _font(size: int) -> ImageFont.FreeTypeFont:
    for candidate in ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/dejavu/DejaVuSans.ttf"):
        if Path(candidate).exists():
            return ImageFont.truetype(candidate, size)
    return ImageFont.load_default(size=size)  # Pillow's bundled scalable font


def _urlset(paths: list[str], alternates: dict[str, str] | None = None) -> str:
    alternates = alternates or {}
    entries = []
    for path in paths:
        links = ""
        if path in alternates:
            links = (f'<xhtml:link rel="alternate" hreflang="en" href="{BASE_URL_PLACEHOLDER}{path}"/>'
                     f'<xhtml:link rel="alternate" hreflang="fr" href="{BASE_URL_PLACEHOLDER}{alternates[path]}"/>')
        entries.append(f"<url><loc>{BASE_URL_PLACEHOLDER}{path}</loc><lastmod>{SITEMAP_LASTMOD}</lastmod>{links}</url>")
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
            + "\n".join(entries) + "\n</urlset>\n")


def _sitemap_index(paths: list[str]) -> str:
    entries = "\n".join(f"<sitemap><loc>{BASE_URL_PLACEHOLDER}{p}</loc><lastmod>{SITEMAP_LASTMOD}</lastmod></sitemap>" for p in paths)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{entries}\n</sitemapindex>\n')


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "data/demo_site")
    facts = build_demo_site(target)
    print(f"==> Demo website built in {target} ({len(facts.sitemap_pages)} sitemap entries)")
