"""A small blog as static generators and CMSs lay one out (issue 42): posts under dated addresses, date, tag and
category archives showing the posts' excerpts or their full texts, a home page paginated three posts a page (full
texts), months that hold a single post. No body classes and no rel=canonical: the archives are told apart from the posts by what
their text shows of the posts, and by their title links.
"""

from __future__ import annotations

import html
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from corpus_pipeline_demo.content import DOCS, POSTS, Article

SITE_NAME = "Garden Notes"
PER_PAGE = 3
EXCERPT_WORDS = 40


@dataclass(frozen=True)
class BlogPost:
    article: Article
    path: str
    published: datetime
    category: str

    @property
    def text(self) -> str:
        return "\n\n".join(self.article.paragraphs)


@dataclass(frozen=True)
class BlogFacts:
    posts: tuple[BlogPost, ...]
    listings: tuple[str, ...]  # paths of every archive and home page


def _posts() -> list[BlogPost]:
    articles = [a for a in POSTS + DOCS if len(" ".join(a.paragraphs).split()) >= 40]
    posts = []
    for n, article in enumerate(articles):
        # Two posts a month in 2024's first months, then one: months with a single post are the hard case.
        month = n // 2 + 1 if n < 8 else n - 3
        day = 3 + (n % 2) * 12
        published = datetime(2024 + (month - 1) // 12, (month - 1) % 12 + 1, day, 9, 30, tzinfo=UTC)
        path = f"/{published:%Y/%m/%d}/{article.slug}/"
        posts.append(BlogPost(article, path, published, ("news", "guides")[n % 2]))
    return posts


def build_blog_site(root: Path) -> BlogFacts:
    """Write the blog's pages under ``root`` (``<path>/index.html``); the facts the tests check."""
    posts = sorted(_posts(), key=lambda p: p.published, reverse=True)
    files: dict[str, str] = {}
    for index, post in enumerate(posts):
        newer = posts[index - 1] if index else None
        older = posts[index + 1] if index + 1 < len(posts) else None
        files[post.path] = _post_page(post, posts, newer, older)

    listings: dict[str, tuple[str, list[BlogPost], bool]] = {}
    by_month: dict[str, list[BlogPost]] = defaultdict(list)
    by_year: dict[str, list[BlogPost]] = defaultdict(list)
    by_tag: dict[str, list[BlogPost]] = defaultdict(list)
    by_category: dict[str, list[BlogPost]] = defaultdict(list)
    for post in posts:
        by_month[f"/{post.published:%Y/%m}/"].append(post)
        by_year[f"/{post.published:%Y}/"].append(post)
        by_category[post.category].append(post)
        for tag in post.article.tags or ("notes",):
            by_tag[tag].append(post)
    # Date archives show excerpts, tag archives and the home page full texts. (Date archives showing full texts
    # stand next to their posts in URL order, and the boilerplate learner, extract/boilerplate.py, then reads the
    # post's paragraphs as the website's template: the post loses its text, a separate issue.)
    for path, members in by_month.items():
        listings[path] = (f"Month: {members[0].published:%B %Y}", members, False)  # excerpts
    for path, members in by_year.items():
        listings[path] = (f"Year: {path.strip('/')}", members, False)
    for tag, members in by_tag.items():
        listings[f"/topics/{tag}/"] = (f"Topic: {tag}", members, True)  # full texts
    for category, members in by_category.items():
        listings[f"/sections/{category}/"] = (f"Section: {category}", members, False)
    for path, (title, members, full) in listings.items():
        files[path] = _listing_page(title, members, posts, full=full)
    # Indexes of the archives, as Jekyll's Chirpy writes them: a tag cloud (each tag's count inside its link) and the
    # months (each month's count beside it). Their lines name the archives by their links, not by their titles.
    cloud = "".join(
        f'<li><a class="tag" href="/topics/{tag}/">{tag}<span class="count">{len(members)}</span></a></li>'
        for tag, members in sorted(by_tag.items())
    )
    months = "".join(
        f'<li><a href="{path}">{members[0].published:%B %Y}</a> ({len(members)})</li>' for path, members in by_month.items()
    )
    for path, title, entries in (("/topics/", "Topics", cloud), ("/months/", "Months", months)):
        files[path] = _layout(title, f'<h1 class="page-title">{title}</h1><ul class="index">{entries}</ul>', posts)
        listings[path] = (title, [], False)
    pages = [posts[i : i + PER_PAGE] for i in range(0, len(posts), PER_PAGE)]
    for number, members in enumerate(pages, start=1):
        path = "/" if number == 1 else f"/page/{number}/"
        previous = None if number == 1 else ("/" if number == 2 else f"/page/{number - 1}/")
        following = f"/page/{number + 1}/" if number < len(pages) else None
        files[path] = _listing_page(SITE_NAME, members, posts, full=True, previous=previous, following=following)
        listings[path] = (SITE_NAME, members, True)
    for path, page in files.items():
        target = root / path.strip("/") / "index.html" if path != "/" else root / "index.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page, encoding="utf-8")
    return BlogFacts(tuple(posts), tuple(sorted(listings)))


def _layout(title: str, main: str, posts: list[BlogPost], head: str = "") -> str:
    recent = "".join(f'<li><a href="{p.path}">{html.escape(p.article.title)}</a></li>' for p in posts[:5])
    months = sorted({f"/{p.published:%Y/%m}/" for p in posts} | {f"/{p.published:%Y}/" for p in posts}, reverse=True)
    archive_links = "".join(f'<li><a href="{m}">{m.strip("/")}</a></li>' for m in months)
    tags = sorted({t for p in posts for t in (p.article.tags or ("notes",))})
    cloud = " ".join(f'<a class="tag" href="/topics/{t}/">{t}</a>' for t in tags)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)} – {SITE_NAME}</title>{head}</head>
<body>
<header class="site-header"><a class="site-title" href="/">{SITE_NAME}</a>
<nav><a href="/">Home</a> <a href="/sections/news/">News</a> <a href="/sections/guides/">Guides</a>
<a href="/topics/">Topics</a> <a href="/months/">Months</a></nav></header>
<div class="wrap">
<main class="content">
{main}
</main>
<aside class="sidebar"><section><h3>Recent posts</h3><ul>{recent}</ul></section>
<section><h3>Archives</h3><ul>{archive_links}</ul></section><section><h3>Tags</h3><p>{cloud}</p></section></aside>
</div>
<footer class="site-footer"><p>{SITE_NAME} is written by the members of the Riverside plots.</p></footer>
</body></html>
"""


def _meta(post: BlogPost) -> str:
    return (
        f'<p class="entry-meta"><time class="published" datetime="{post.published.isoformat()}">'
        f"{post.published:%B} {post.published.day}, {post.published.year}</time> in "
        f'<a href="/sections/{post.category}/">{post.category}</a></p>'
    )


def _post_page(post: BlogPost, posts: list[BlogPost], newer: BlogPost | None, older: BlogPost | None) -> str:
    paragraphs = "\n".join(f"<p>{html.escape(p)}</p>" for p in post.article.paragraphs)
    tags = " ".join(f'<a href="/topics/{t}/">{t}</a>' for t in post.article.tags or ("notes",))
    navigation = "".join(
        f'<a rel="{rel}" href="{other.path}">{label}: {html.escape(other.article.title)}</a> '
        for rel, label, other in (("prev", "Older", older), ("next", "Newer", newer)) if other
    )
    head = f'<meta property="article:published_time" content="{post.published.isoformat()}">'
    main = f"""<article class="post">
<h1 class="entry-title">{html.escape(post.article.title)}</h1>
{_meta(post)}
<div class="entry-content">
{paragraphs}
</div>
<p class="entry-tags">Tags: {tags}</p>
</article>
<nav class="post-navigation">{navigation}</nav>"""
    return _layout(post.article.title, main, posts, head)


def _listing_page(
    title: str, members: list[BlogPost], posts: list[BlogPost], *, full: bool, previous: str | None = None,
    following: str | None = None,
) -> str:
    entries = []
    for post in members:
        if full:
            body = "\n".join(f"<p>{html.escape(p)}</p>" for p in post.article.paragraphs)
        else:
            words = post.text.split()[:EXCERPT_WORDS]
            body = f'<p>{html.escape(" ".join(words))} […]</p><p><a href="{post.path}">Continue reading</a></p>'
        entries.append(
            f'<article class="post"><h2 class="entry-title"><a href="{post.path}">{html.escape(post.article.title)}'
            f'</a></h2>{_meta(post)}<div class="entry-content">{body}</div></article>'
        )
    head = "".join(
        f'<link rel="{rel}" href="{href}">' for rel, href in (("prev", previous), ("next", following)) if href
    )
    pagination = "".join(
        f'<a href="{href}">{label}</a> ' for label, href in (("Newer posts", previous), ("Older posts", following))
        if href
    )
    heading = "" if title == SITE_NAME else f'<h1 class="page-title">{html.escape(title)}</h1>'
    main = f'{heading}\n{"".join(entries)}\n<nav class="pagination">{pagination}</nav>'
    return _layout(title, main, posts, head)
