"""The demo website: deterministic, complete, and served like a real site."""

import gzip
import hashlib
from io import BytesIO

import requests
from lxml import etree
from pypdf import PdfReader

from corpus_pipeline_demo.server import serve_site
from corpus_pipeline_demo.site import build_demo_site


def digest(root):
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_build_is_deterministic_and_big_enough(tmp_path):
    facts = build_demo_site(tmp_path / "one")
    build_demo_site(tmp_path / "two")
    one, two = digest(tmp_path / "one"), digest(tmp_path / "two")
    unstable = {name for name in one if one[name] != two.get(name)}
    # The scanned letter embeds Pillow's creation time; everything else is byte-identical.
    assert unstable <= {facts.scanned_pdf.lstrip("/")}
    assert sum(name.endswith(".html") for name in one) >= 30


def test_every_sitemap_page_is_served_with_its_type_and_304_on_revalidation(tmp_path):
    facts = build_demo_site(tmp_path)
    with serve_site(tmp_path) as base_url:
        for path in facts.sitemap_pages:
            response = requests.get(base_url + path, timeout=5)
            assert response.status_code == 200, path
            expected = "application/pdf" if path.endswith(".pdf") else "text/html"
            assert response.headers["Content-Type"].startswith(expected), path
            again = requests.get(base_url + path, headers={"If-None-Match": response.headers["ETag"]}, timeout=5)
            assert again.status_code == 304 and not again.content
        assert "{{BASE_URL}}" not in requests.get(base_url + "/blog/post-01.html", timeout=5).text
        robots = requests.get(base_url + "/robots.txt", timeout=5).text
        assert f"Sitemap: {base_url}/sitemap.xml" in robots and "Disallow: /login/" in robots
        compressed = requests.get(base_url + "/sitemap-pages.xml.gz", timeout=5).content
        urls = etree.fromstring(gzip.decompress(compressed)).findall(".//{*}loc")
        assert urls and all(u.text.startswith(base_url) for u in urls)
        assert requests.get(base_url + "/../../etc/passwd", timeout=5).status_code == 404


def test_pdf_facts_match_the_files(tmp_path):
    facts = build_demo_site(tmp_path)
    report = PdfReader(tmp_path / facts.outline_pdf.lstrip("/"))
    outline = [(item.title, report.get_destination_page_number(item) + 1) for item in report.outline]
    assert tuple(outline) == facts.outline_sections
    assert facts.outline_sections[-1][1] == len(report.pages), "one section starts on the last page"
    scan = PdfReader(BytesIO((tmp_path / facts.scanned_pdf.lstrip("/")).read_bytes()))
    assert all(not (page.extract_text() or "").strip() for page in scan.pages), "image only"
