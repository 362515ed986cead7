import random
import string
from datetime import UTC, datetime

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus_pipeline.dedup.near import PARALLEL_FROM, worker_pool
from corpus_pipeline.dedup.normalize import content_key
from corpus_pipeline.lm.global_dedup import content_keys, deduplicate_across_websites, kept_records, record_id
from corpus_pipeline.lm.schema import GLOBAL_CORPUS_SCHEMA
from corpus_pipeline_tests.lm.texts import GOOD_PROSE

ARTICLE = GOOD_PROSE
MIRRORED = "\n\n".join(
    f"Section {n}. The function reads the file named in its argument and returns its lines as a list of strings, "
    f"each without its end-of-line character, or raises an error when the file is missing ({n})."
    for n in range(12)
)


def quality_frame(website: str, rows: list[tuple[str, str, bool]], published: datetime | None = None) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "website": [website] * len(rows),
            "url": [f"http://{website}.test/{path}" for path, _, _ in rows],
            "canonical_url": [f"http://{website}.test/{path}" for path, _, _ in rows],
            "content": [text for _, text, _ in rows],
            "lang": ["en"] * len(rows),
            "published": [published] * len(rows),
            "chars": [len(text) for _, text, _ in rows],
            "keep": [keep for _, _, keep in rows],
        },
        schema_overrides={"published": pl.Datetime("us", "UTC"), "keep": pl.Boolean, "chars": pl.Int32},
    )


def test_syndicated_and_mirrored_texts_are_kept_once_with_their_provenance():
    early = datetime(2026, 1, 1, tzinfo=UTC)
    news = quality_frame("news", [("story", ARTICLE, True), ("docs/io", MIRRORED, True)], published=early)
    edited = MIRRORED.replace("returns its lines", "gives back its lines").replace("(3)", "(three)")
    mirror = quality_frame(
        "mirror", [("reprint", ARTICLE, True), ("io", edited, True), ("own", ARTICLE[::-1], True), ("bad", "x", False)]
    )
    merged, counts = deduplicate_across_websites(kept_records([news, mirror]), threshold=0.9)
    assert merged.columns == GLOBAL_CORPUS_SCHEMA.names
    assert counts == {
        "websites": 2, "records_in": 5, "same_content": 1, "near_duplicate": 1, "cross_website_merges": 2, "records_out": 3,
    }
    by_url = {row["url"]: row for row in merged.to_dicts()}
    # The first published copy (news) is kept; the mirror's copies are recorded on it.
    story = by_url["http://news.test/story"]
    assert story["merged_from"] == [
        {"website": "mirror", "url": "http://mirror.test/reprint", "reason": "same_content", "score": 1.0}
    ]
    (source,) = by_url["http://news.test/docs/io"]["merged_from"]
    assert source["website"] == "mirror" and source["reason"] == "near_duplicate" and 0.9 <= source["score"] < 1.0
    assert "http://mirror.test/own" in by_url and "http://mirror.test/bad" not in by_url
    assert story["id"] == record_id("news", "http://news.test/story")


def test_no_websites_give_an_empty_corpus():
    merged, counts = deduplicate_across_websites(kept_records([]))
    assert merged.height == 0 and counts["records_out"] == 0


@settings(max_examples=25)
@given(st.lists(st.sampled_from(["alpha beta gamma delta", "one two three four five", "red green blue"]), max_size=12))
def test_every_input_record_is_kept_or_listed_on_the_record_that_absorbed_it(texts):
    frame = quality_frame("a", [(f"p{i}", text, True) for i, text in enumerate(texts)])
    merged, counts = deduplicate_across_websites(kept_records([frame]))
    listed = {source["url"] for sources in merged["merged_from"].to_list() for source in sources}
    assert set(merged["url"]) | listed == set(frame["url"])
    assert merged.height == len(set(texts)) == counts["records_out"]


def test_content_keys_on_workers_are_the_keys_of_one_process():
    texts = pl.Series([f"Text  number {i % 700}\nÉté {i}" if i % 3 else None for i in range(PARALLEL_FROM + 5)])
    with worker_pool(2, len(texts)) as pool:
        keys = content_keys(texts, pool)
    assert keys == [content_key(text or "") for text in texts]
    assert len(set(keys)) < len(keys)


def test_pages_sharing_a_template_stay_apart_while_an_edited_copy_across_websites_is_merged():
    header = "Riverside Docs home guides reference download community search sign in products pricing support"
    footer = "Copyright 2026 Riverside Docs all rights reserved privacy policy terms of use contact us today"
    rng = random.Random(7)
    bodies = [" ".join("".join(rng.choices(string.ascii_lowercase, k=6)) for _ in range(25)) for _ in range(30)]
    pages = [(f"p{n}", f"{header}\n\n{body}\n\n{footer}", True) for n, body in enumerate(bodies)]
    copy = pages[0][1].replace("Riverside Docs home", "Riverside Docs start") + "\n\n" + MIRRORED
    original = pages[0][1] + "\n\n" + MIRRORED
    news = quality_frame("news", [*pages[1:], ("story", original, True)])
    mirror = quality_frame("mirror", [("story", copy, True)])
    merged, counts = deduplicate_across_websites(kept_records([news, mirror]), threshold=0.9)
    assert counts["near_duplicate"] == 1 and counts["cross_website_merges"] == 1
    assert merged.height == len(pages)  # 29 template pages and one story, each kept once
