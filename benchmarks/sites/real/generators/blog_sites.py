"""Blogs with tag, category and date archives (issue 42): held out ("blind" in split.json), never tuned on.

Both are built offline from published packages, like the other static sites (``static_sites``), with other projects'
documents: each release of a Keep-a-Changelog CHANGELOG is a dated post (tags: the kinds of change it lists, "added",
"fixed"...; category: its series), each Markdown page of the project's docs is a page, and its README is the About
page. The truth of a document is its own Markdown rendered by ``truth.markdown_text`` (the title the theme shows as
the page's h1 first, then the body); MyST roles are made plain Markdown in the source of both the site and the truth.
Home pages, their pagination, tag, category and date archives and the tabs that index them are never truth.

- ``jekyll-chirpy``: Jekyll (Debian) with the theme Chirpy (``jekyll-theme-chirpy`` on npm: layouts, includes, Sass),
  jekyll-paginate (home page of 10 excerpts a page) and jekyll-archives (Debian's ``ruby-jekyll-archives``: tag and
  category archives with the theme's layouts, year and month archives with the theme's category layout titled by
  date); Markdown through jekyll-commonmark. Content: structlog's CHANGELOG and docs (PyPI sdist).
- ``hugo-blog``: Hugo (Debian) with a small blog theme written here (no Hugo blog theme is published on the
  registries this bench uses): a paginated home page with the posts' full text, taxonomies ``tags``, ``categories``
  and ``archives`` (year and month terms: Hugo has no date archives of its own) whose term pages list the posts'
  summaries (the month and year archives their titles), a sidebar of recent posts, categories and months, and
  Hugo's internal OpenGraph, schema.org and pagination templates. Content: attrs's CHANGELOG and docs (PyPI sdist).

Usage: python -m benchmarks.sites.real.generators.blog_sites --cache DIR [--sites NAME ...]
"""

from __future__ import annotations

import argparse
import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.sites.real.generators.python_docs import _plain_markdown
from benchmarks.sites.real.generators.static_sites import (
    HUGO_MARKUP,
    Doc,
    docs_from_folder,
    finish,
    releases,
    reuse,
    run,
    slug,
    staging,
    truth_text,
    write,
    yaml_front_matter,
)
from benchmarks.sites.real.model import BuiltSite, TruthPage, built_summary
from benchmarks.sites.real.sources import ensure_debian_packages, npm_package, pypi_sdist

# Content and theme, pinned so that a rebuild gives the same site.
STRUCTLOG = ("structlog", "26.1.0")
ATTRS = ("attrs", "26.1.0")
CHIRPY = "jekyll-theme-chirpy@5.3.21"

MYST_TARGET = re.compile(r"^\((?:[^()\s]+)\)=\s*$\n?", re.MULTILINE)
MYST_COMMENT = re.compile(r"^%.*$\n?", re.MULTILINE)
CHANGE_KIND = re.compile(r"^###\s+(.+?)\s*$", re.MULTILINE)
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def plain_myst(body: str, repo: str) -> str:
    """A MyST page as plain Markdown: roles as code spans or links, label targets and comments left out."""
    return _plain_markdown(MYST_COMMENT.sub("", MYST_TARGET.sub("", body)), repo)


def release_posts(sdist: Path, project: str, repo: str) -> list[Doc]:
    """Every release of the sdist's Keep-a-Changelog CHANGELOG.md as a dated post (its URL set by the builder)."""
    posts = releases(sdist / "CHANGELOG.md", project, "iso", limit=1000)
    for post in posts:
        post.body = plain_myst(post.body, repo)
    return posts


def post_tags(post: Doc) -> list[str]:
    """A release's tags: the kinds of change it lists ("added", "fixed", "backwards-incompatible changes")."""
    return sorted({kind.rstrip(":").strip().lower() for kind in CHANGE_KIND.findall(post.body)})


def post_category(project: str, post: Doc) -> str:
    """A release's category: its series, the first number of its version (the year: both projects use CalVer)."""
    version = post.title.rsplit(" ", 1)[-1]
    return f"{project} {version.split('.')[0]}"


def project_docs(sdist: Path, work: Path, repo: str, url_of: Callable[[str], str], skip: set[str]) -> list[Doc]:
    """The docs' Markdown pages (not those of ``skip``: includes of other files) made plain, links resolved."""
    source = work / "docs-source"
    for path in sorted((sdist / "docs").glob("*.md")):
        if path.name not in skip:
            write(source / path.name, plain_myst(path.read_text(encoding="utf-8"), repo))
    return docs_from_folder(source, url_of, lambda rel: "manual")


def readme_body(sdist: Path, repo: str) -> str:
    """The README without its title heading (the About page's title stands for it)."""
    readme = (sdist / "README.md").read_text(encoding="utf-8")
    return plain_myst(re.sub(r"\A\s*#\s+[^\n]*\n", "", readme, count=1), repo)


def month_index(posts: list[Doc]) -> str:
    """Markdown links to each year's and each month's archive (``/2025/``, ``/2025/03/``), newest first, with counts."""
    years: dict[int, dict[int, int]] = {}
    for post in posts:
        assert post.date is not None
        months = years.setdefault(post.date.year, {})
        months[post.date.month] = months.get(post.date.month, 0) + 1
    lines = []
    for year, months in sorted(years.items(), reverse=True):
        lines.append(f"- [{year}](/{year}/) ({sum(months.values())})")
        lines += [f"  - [{MONTHS[month - 1]} {year}](/{year}/{month:02d}/) ({count})"
                  for month, count in sorted(months.items(), reverse=True)]
    return "\n".join(lines) + "\n"


# -- Jekyll with Chirpy -----------------------------------------------------------------------------------------------

CHIRPY_CONFIG = """lang: en
timezone: UTC
title: structlog notes
tagline: Release notes and guides of structlog
description: >-
  The releases of structlog, structured logging for Python, and its guides.
url: ""
baseurl: ""
github:
  username: hynek
twitter:
  username: ""
social:
  name: structlog
  email: ""
  links: []
avatar: ""
toc: true
comments:
  active: ""
assets:
  self_host:
    enabled: false
pwa:
  enabled: false
paginate: 10
paginate_path: /page:num/
markdown: CommonMark
commonmark:
  options: ["UNSAFE"]
  extensions: ["table", "strikethrough", "autolink"]
collections:
  tabs:
    output: true
    sort_by: order
defaults:
  - scope:
      path: ""
      type: posts
    values:
      layout: post
      comments: false
      toc: true
  - scope:
      path: ""
      type: tabs
    values:
      layout: page
      permalink: /:title/
sass:
  style: compressed
compress_html:
  clippings: all
  comments: all
  endings: all
  profile: false
  blanklines: false
  ignore:
    envs: [development]
exclude: [Gemfile, Gemfile.lock, vendor, tools, README.md, CHANGELOG.md, LICENSE, gulpfile.js, node_modules,
          package.json, "*.gemspec", _javascript]
jekyll-archives:
  enabled: [categories, tags, year, month]
  layouts:
    category: category
    tag: tag
    year: date-archive
    month: date-archive
  permalinks:
    tag: /tags/:name/
    category: /categories/:name/
    year: /:year/
    month: /:year/:month/
plugins: [jekyll-paginate, jekyll-archives, jekyll-seo-tag, jekyll-sitemap, jekyll-redirect-from, jekyll-commonmark]
"""

# The year and month archives: the theme's category layout, titled by the archive's date.
CHIRPY_DATE_ARCHIVE = """---
layout: page
# The theme's Category layout for jekyll-archives' year and month archives
---

<div id="page-category">
  <h1 class="pl-lg-2">
    <i class="far fa-calendar fa-fw text-muted"></i>
    {% if page.type == "month" %}{{ page.date | date: "%B %Y" }}{% else %}{{ page.date | date: "%Y" }}{% endif %}
    <span class="lead text-muted pl-2">{{ page.posts | size }}</span>
  </h1>

  <ul class="post-content pl-0">
    {% for post in page.posts %}
    <li class="d-flex justify-content-between pl-md-3 pr-md-3">
      <a href="{{ post.url | relative_url }}">{{ post.title }}</a>
      <span class="dash flex-grow-1"></span>
      {% include datetime.html date=post.date wrap='span' class='text-muted small' %}
    </li>
    {% endfor %}
  </ul>
</div>
"""


def build_jekyll_chirpy(cache: Path) -> BuiltSite:
    """structlog's releases as posts, its docs as pages and its README as the About tab, on Jekyll with Chirpy."""
    # Its sitemap's locations are paths (the site's URL is not known when it is built): crawl mode only.
    site = BuiltSite(name="jekyll-chirpy", generator="jekyll", theme="chirpy", folder=cache / "jekyll-chirpy")
    if reuse(cache, site) is not None:
        return site
    ensure_debian_packages("jekyll", "ruby-jekyll-archives", "ruby-jekyll-paginate", "ruby-jekyll-seo-tag",
                           "ruby-jekyll-sitemap", "ruby-jekyll-redirect-from", "ruby-jekyll-commonmark")
    theme = npm_package(CHIRPY, cache)
    sdist = pypi_sdist(*STRUCTLOG, cache)
    repo = "hynek/structlog"
    work = staging(cache, site.name)
    project = work / "project"
    # The theme's files, less the sample site the package carries (its posts, its About tab, a git-log hook).
    shutil.copytree(theme, project, ignore=shutil.ignore_patterns("_posts", "_plugins", ".github", "about.md",
                                                                  "CHANGELOG.md", "README.md", "Gemfile", "*.gemspec",
                                                                  "package.json", "gulpfile.js", "tools",
                                                                  "_javascript"))
    # The site is in English; the other locales go (tr-TR.yml holds a Symbol, which Debian's Psych refuses to load).
    for locale in (project / "_data" / "locales").glob("*.yml"):
        if locale.name != "en.yml":
            locale.unlink()
    write(project / "_config.yml", CHIRPY_CONFIG)
    # The theme's files are the site's own here (no theme gem): its stylesheet imports the Sass by name.
    style = project / "assets" / "css" / "style.scss"
    style.write_text(style.read_text(encoding="utf-8").replace("{{ site.theme }}", "jekyll-theme-chirpy"))
    write(project / "_layouts" / "date-archive.html", CHIRPY_DATE_ARCHIVE)
    posts = release_posts(sdist, "structlog", repo)
    for post in posts:
        assert post.date is not None
        post.url = f"/{post.date:%Y/%m/%d}/{slug(post.title)}/"
        front = {"title": post.title, "date": f"{post.date:%Y-%m-%d} 12:00:00 +0000", "permalink": post.url,
                 "categories": [post_category("structlog", post)], "tags": post_tags(post),
                 "render_with_liquid": False}
        write(project / "_posts" / f"{post.date:%Y-%m-%d}-{slug(post.title)}.md", yaml_front_matter(front) + post.body)
    docs = project_docs(sdist, work, repo, lambda rel: f"/docs/{slug(rel[:-3])}/",
                        skip={"index.md", "license.md", "changelog.md"})
    for doc in docs:
        front = {"layout": "page", "title": doc.title, "permalink": doc.url, "render_with_liquid": False}
        write(project / "docs" / doc.rel, yaml_front_matter(front) + doc.body)
    about = Doc(rel="about.md", url="/about/", title="About", body=readme_body(sdist, repo), kind="page")
    write(project / "_tabs" / "about.md",
          yaml_front_matter({"title": "About", "icon": "fas fa-info-circle", "order": 5, "render_with_liquid": False})
          + about.body)
    # Chirpy links no year or month archive: a tab lists them, as a blog's archives widget does (a listing, not truth).
    write(project / "_tabs" / "months.md",
          yaml_front_matter({"title": "Months", "icon": "fas fa-calendar", "order": 3}) + month_index(posts))
    # A tab indexing the guides (a listing, not truth).
    write(project / "_tabs" / "guides.md",
          yaml_front_matter({"title": "Guides", "icon": "fas fa-book", "order": 4})
          + "\n".join(f"- [{doc.title}]({doc.url})" for doc in docs) + "\n")
    run(["jekyll", "build", "--quiet", "--destination", str(work / "public")], cwd=project,
        env={"JEKYLL_ENV": "production", "LANG": "C.UTF-8"})
    site.pages = [TruthPage(path=d.url, title=d.title, text=truth_text(d.title, d.body), kind=d.kind)
                  for d in [*posts, *docs, about]]
    return finish(site, work, work / "public")


# -- Hugo with a small blog theme -------------------------------------------------------------------------------------

HUGO_CONFIG = """baseURL = "/"
languageCode = "en-us"
title = "attrs changelog"
theme = "bench-blog"
paginate = 5
enableRobotsTXT = true

[params]
description = "The releases of attrs, classes without boilerplate for Python, and its documentation."

[taxonomies]
tag = "tags"
category = "categories"
archive = "archives"

[permalinks]
posts = "/:year/:month/:day/:slug/"
docs = "/docs/:slug/"

[[menu.main]]
name = "Posts"
url = "/posts/"
weight = 1
[[menu.main]]
name = "Docs"
url = "/docs/"
weight = 2
[[menu.main]]
name = "Categories"
url = "/categories/"
weight = 3
[[menu.main]]
name = "Tags"
url = "/tags/"
weight = 4
[[menu.main]]
name = "Archives"
url = "/archives/"
weight = 5
[[menu.main]]
name = "About"
url = "/about/"
weight = 6
""" + HUGO_MARKUP

HUGO_THEME: dict[str, str] = {
    "layouts/_default/baseof.html": """<!DOCTYPE html>
<html lang="{{ site.LanguageCode }}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ if .IsHome }}{{ site.Title }}{{ else }}{{ .Title }} | {{ site.Title }}{{ end }}</title>
<meta name="description" content="{{ with .Description }}{{ . }}{{ else }}{{ if .IsPage }}{{ .Summary | plainify | truncate 150 }}{{ else }}{{ site.Params.description }}{{ end }}{{ end }}">
<link rel="canonical" href="{{ .Permalink }}">
{{ with .OutputFormats.Get "rss" }}<link rel="alternate" type="application/rss+xml" href="{{ .RelPermalink }}" title="{{ site.Title }}">{{ end }}
{{ template "_internal/opengraph.html" . }}
{{ template "_internal/schema.html" . }}
<link rel="stylesheet" href="{{ "css/blog.css" | relURL }}">
</head>
<body class="kind-{{ .Kind }}{{ with .Section }} section-{{ . }}{{ end }}">
<header class="site-header">
  <a class="site-title" href="{{ "/" | relURL }}">{{ site.Title }}</a>
  <p class="site-description">{{ site.Params.description }}</p>
  <nav class="site-nav"><ul>
  {{- range site.Menus.main }}<li><a href="{{ .URL }}">{{ .Name }}</a></li>{{ end -}}
  </ul></nav>
</header>
<div class="wrapper">
<main id="main" class="content">
{{ block "main" . }}{{ end }}
</main>
<aside class="sidebar">
  {{ partial "sidebar.html" . }}
</aside>
</div>
<footer class="site-footer">
  <p>&copy; {{ site.Title }}. Built with Hugo.</p>
</footer>
</body>
</html>
""",
    "layouts/partials/sidebar.html": """<section class="widget recent-posts">
  <h2 class="widget-title">Recent posts</h2>
  <ul>{{ range first 5 (where site.RegularPages "Section" "posts") }}
    <li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}
  </ul>
</section>
<section class="widget categories">
  <h2 class="widget-title">Categories</h2>
  <ul>{{ range site.Taxonomies.categories.ByCount }}
    <li><a href="{{ .Page.RelPermalink }}">{{ .Page.Title }}</a> ({{ .Count }})</li>{{ end }}
  </ul>
</section>
<section class="widget tags">
  <h2 class="widget-title">Tags</h2>
  <p class="tag-cloud">{{ range site.Taxonomies.tags.Alphabetical }}
    <a href="{{ .Page.RelPermalink }}">{{ .Page.Title }}</a>{{ end }}
  </p>
</section>
<section class="widget archives">
  <h2 class="widget-title">Archives</h2>
  <ul>{{ $shown := 0 }}{{ range site.Taxonomies.archives.Alphabetical.Reverse }}{{ if and (in .Name "-") (lt $shown 12) }}
    <li><a href="{{ .Page.RelPermalink }}">{{ .Page.Title }}</a> ({{ .Count }})</li>{{ $shown = add $shown 1 }}{{ end }}{{ end }}
  </ul>
</section>
""",
    "layouts/partials/post-meta.html": """<p class="post-meta">
  <time datetime="{{ .Date.Format "2006-01-02T15:04:05Z07:00" }}">{{ .Date.Format "January 2, 2006" }}</time>
  {{- with .GetTerms "categories" }} &middot; in {{ range $i, $c := . }}{{ if $i }}, {{ end }}<a href="{{ $c.RelPermalink }}">{{ $c.LinkTitle }}</a>{{ end }}{{ end }}
  &middot; {{ .ReadingTime }} min read
</p>
""",
    "layouts/index.html": """{{ define "main" }}
{{ $paginator := .Paginate (where site.RegularPages "Section" "posts") }}
{{ range $paginator.Pages }}
<article class="post-entry">
  <header>
    <h2 class="post-title"><a href="{{ .RelPermalink }}">{{ .Title }}</a></h2>
    {{ partial "post-meta.html" . }}
  </header>
  <div class="post-content">{{ .Content }}</div>
</article>
{{ end }}
{{ template "_internal/pagination.html" . }}
{{ end }}
""",
    "layouts/_default/single.html": """{{ define "main" }}
<article class="post">
  <header class="post-header">
    <h1 class="post-title">{{ .Title }}</h1>
    {{ if eq .Section "posts" }}{{ partial "post-meta.html" . }}{{ end }}
  </header>
  <div class="post-content">
{{ .Content }}
  </div>
  {{ if eq .Section "posts" }}
  <footer class="post-footer">
    {{ with .GetTerms "tags" }}<ul class="post-tags">{{ range . }}<li><a href="{{ .RelPermalink }}">{{ .LinkTitle }}</a></li>{{ end }}</ul>{{ end }}
    <nav class="paginav">
      {{ with .NextInSection }}<a class="prev" href="{{ .RelPermalink }}">&laquo; {{ .Title }}</a>{{ end }}
      {{ with .PrevInSection }}<a class="next" href="{{ .RelPermalink }}">{{ .Title }} &raquo;</a>{{ end }}
    </nav>
  </footer>
  {{ end }}
</article>
{{ end }}
""",
    "layouts/_default/list.html": """{{ define "main" }}
<header class="page-header"><h1>{{ .Title }}</h1></header>
{{ $paginator := .Paginate .Pages }}
{{ range $paginator.Pages }}
<article class="post-entry">
  <h2 class="post-title"><a href="{{ .RelPermalink }}">{{ .Title }}</a></h2>
  {{ if eq .Section "posts" }}{{ partial "post-meta.html" . }}{{ end }}
  <div class="post-summary"><p>{{ .Summary | plainify | truncate 300 }}</p></div>
  <a class="read-more" href="{{ .RelPermalink }}">Read more &raquo;</a>
</article>
{{ end }}
{{ template "_internal/pagination.html" . }}
{{ end }}
""",
    "layouts/_default/term.html": """{{ define "main" }}
<header class="page-header"><h1>{{ .Title }}</h1>
<p class="archive-count">{{ len .Pages }} posts</p></header>
{{ $paginator := .Paginate .Pages 10 }}
{{ if eq .Data.Plural "archives" }}
<ul class="archive-list">
{{ range $paginator.Pages }}
  <li><time datetime="{{ .Date.Format "2006-01-02" }}">{{ .Date.Format "Jan 2" }}</time> <a href="{{ .RelPermalink }}">{{ .Title }}</a></li>
{{ end }}
</ul>
{{ else }}
{{ range $paginator.Pages }}
<article class="post-entry">
  <h2 class="post-title"><a href="{{ .RelPermalink }}">{{ .Title }}</a></h2>
  {{ partial "post-meta.html" . }}
  <div class="post-summary"><p>{{ .Summary }}</p></div>
  <a class="read-more" href="{{ .RelPermalink }}">Read more &raquo;</a>
</article>
{{ end }}
{{ end }}
{{ template "_internal/pagination.html" . }}
{{ end }}
""",
    "layouts/_default/taxonomy.html": """{{ define "main" }}
<header class="page-header"><h1>{{ .Title }}</h1></header>
<ul class="terms">
{{ range .Data.Terms.Alphabetical }}
  <li><a href="{{ .Page.RelPermalink }}">{{ .Page.Title }}</a> <span class="count">{{ .Count }}</span></li>
{{ end }}
</ul>
{{ end }}
""",
    "layouts/404.html": """{{ define "main" }}<h1>Page not found</h1><p><a href="{{ "/" | relURL }}">Home</a></p>{{ end }}
""",
    "static/css/blog.css": """body{font:16px/1.6 Georgia,serif;margin:0;color:#222}
.site-header{padding:1em 2em;border-bottom:1px solid #ddd}.site-title{font-size:1.6em;font-weight:bold}
.site-nav ul{list-style:none;padding:0}.site-nav li{display:inline;margin-right:1em}
.wrapper{display:flex;max-width:1100px;margin:auto}.content{flex:3;padding:1em 2em}.sidebar{flex:1;padding:1em;
font-size:.9em}.post-meta{color:#777;font-size:.9em}.post-tags li{display:inline;margin-right:.5em}
.site-footer{padding:1em 2em;border-top:1px solid #ddd;color:#777}pre{overflow:auto;background:#f6f6f6;padding:.5em}
""",
    "theme.toml": """name = "bench-blog"
license = "MIT"
description = "A small blog theme: paginated home page, taxonomy and date archives, a sidebar."
min_version = "0.100.0"
""",
}


def build_hugo_blog(cache: Path) -> BuiltSite:
    """attrs's releases as posts, its docs as pages and its README as the About page, on Hugo with a blog theme."""
    # Its sitemap's locations are paths (baseURL "/"): crawl mode only.
    site = BuiltSite(name="hugo-blog", generator="hugo", theme="bench-blog", folder=cache / "hugo-blog")
    if reuse(cache, site) is not None:
        return site
    ensure_debian_packages("hugo")
    sdist = pypi_sdist(*ATTRS, cache)
    repo = "python-attrs/attrs"
    work = staging(cache, site.name)
    project = work / "project"
    for name, text in HUGO_THEME.items():
        write(project / "themes" / site.theme / name, text)
    write(project / "config.toml", HUGO_CONFIG)
    content = project / "content"
    write(content / "posts" / "_index.md", yaml_front_matter({"title": "Posts"}))
    write(content / "docs" / "_index.md", yaml_front_matter({"title": "Documentation"}))
    posts = release_posts(sdist, "attrs", repo)
    months: set[tuple[int, int]] = set()
    for post in posts:
        assert post.date is not None
        name = slug(post.title)
        post.url = f"/{post.date:%Y/%m/%d}/{name}/"
        months.add((post.date.year, post.date.month))
        front = {"title": post.title, "date": f"{post.date:%Y-%m-%d}T12:00:00Z", "slug": name,
                 "categories": [post_category("attrs", post)], "tags": post_tags(post),
                 "archives": [f"{post.date:%Y}", f"{post.date:%Y-%m}"]}
        write(content / "posts" / f"{name}.md", yaml_front_matter(front) + post.body)
    # The date archives' titles: "2025" and "March 2025" (the term pages' front matter).
    write(content / "archives" / "_index.md", yaml_front_matter({"title": "Archives"}))
    for year, month in sorted(months):
        write(content / "archives" / f"{year}-{month:02d}" / "_index.md",
              yaml_front_matter({"title": f"{MONTHS[month - 1]} {year}"}))
    docs = project_docs(sdist, work, repo, lambda rel: f"/docs/{slug(rel[:-3])}/",
                        skip={"index.md", "license.md", "changelog.md"})
    for weight, doc in enumerate(docs, start=1):
        front = {"title": doc.title, "slug": slug(doc.rel[:-3]), "weight": weight}
        write(content / "docs" / doc.rel, yaml_front_matter(front) + doc.body)
    about = Doc(rel="about.md", url="/about/", title="About attrs", body=readme_body(sdist, repo), kind="page")
    write(content / "about.md", yaml_front_matter({"title": about.title, "url": about.url}) + about.body)
    run(["hugo", "--quiet", "--destination", str(work / "public")], cwd=project)
    site.pages = [TruthPage(path=d.url, title=d.title, text=truth_text(d.title, d.body), kind=d.kind)
                  for d in [*posts, *docs, about]]
    return finish(site, work, work / "public")


# -- the sites ----------------------------------------------------------------------------------------------------

BUILDERS: dict[str, Callable[[Path], BuiltSite]] = {"jekyll-chirpy": build_jekyll_chirpy, "hugo-blog": build_hugo_blog}


def build(cache: Path, names: set[str] | None = None) -> list[BuiltSite]:
    """Build (or reuse from ``cache``) the blogs of this module (or only those named)."""
    cache.mkdir(parents=True, exist_ok=True)
    return [builder(cache) for name, builder in BUILDERS.items() if not names or name in names]


def main() -> None:
    """Build (or reuse) the sites and print their truth pages and words."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--sites", nargs="*", choices=list(BUILDERS), help="only these sites (default: all)")
    args = parser.parse_args()
    for name in args.sites or BUILDERS:
        started = time.perf_counter()
        site = build(args.cache.resolve(), {name})[0]
        print(built_summary(site, time.perf_counter() - started), flush=True)


if __name__ == "__main__":
    main()
