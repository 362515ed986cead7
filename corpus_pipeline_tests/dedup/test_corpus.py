import os
import random
import unicodedata
from datetime import UTC, datetime
from multiprocessing import resource_tracker

import polars as pl

from corpus_pipeline.dedup.corpus import _distinct_texts, _page_order, deduplicate
from corpus_pipeline.dedup.groups import build_canonical_url_groups
from corpus_pipeline.dedup.near import PARALLEL_FROM
from corpus_pipeline.dedup.normalize import normalize_content
from corpus_pipeline_tests.dedup.conftest import record, records_frame

WORDS = (
    "garden river compost tomato seed bicycle orchard water soil harvest neighbour spade shed market bee flower "
    "autumn winter spring summer rain cloud path fence gate tool basket carrot bean squash herb"
).split()


def prose(seed: int, paragraphs: int = 6) -> str:
    rng = random.Random(seed)
    return "\n\n".join(" ".join(rng.choice(WORDS) for _ in range(60)) for _ in range(paragraphs))


def run(rows, threshold=0.9):
    groups, _ = build_canonical_url_groups(records_frame(rows), urls_to_ignore=[])
    return deduplicate(groups, threshold=threshold, workers=1)


def absorbed_by(corpus):
    return {a["url"]: (kept, a["reason"]) for kept, items in zip(corpus["url"], corpus["absorbed"].to_list()) for a in items}


def test_exact_duplicates_across_unicode_forms_and_case_are_merged():
    text = "Café au lait, CRÈME brûlée and naïve piñata.\n\nSecond paragraph here."
    nfd = unicodedata.normalize("NFD", text.upper())
    corpus, counts = run([record("http://e.org/a", text), record("http://e.org/z", nfd)])
    assert corpus.height == 1 and counts["same_content"] == 1
    (dropped,) = {"http://e.org/a", "http://e.org/z"} - set(corpus["url"])
    assert absorbed_by(corpus)[dropped][1] == "same_content"


def test_texts_equal_character_for_character_are_keyed_once_and_a_null_reads_as_empty():
    contents = pl.Series("content", ["a b", "a  b", "a b", None, "", "A b", "a  b"])
    first_rows, number_of_row, digests = _distinct_texts(contents)
    assert len(set(digests)) == len(digests) == len(first_rows)
    assert first_rows == [0, 1, 3, 5]
    assert number_of_row == [0, 1, 0, 2, 2, 3, 1]


def test_non_latin_scripts_survive_normalization():
    assert normalize_content("数据 清洗  很重要") == "数据 清洗 很重要"
    assert normalize_content("Привет, МИР") == "привет, мир"
    assert normalize_content("हिन्दी") == unicodedata.normalize("NFC", "हिन्दी")
    corpus, _ = run([record("http://e.org/zh", "数据清洗很重要。"), record("http://e.org/ru", "Очистка данных важна.")])
    assert corpus.height == 2


def test_near_duplicates_far_apart_in_url_order_are_found_with_their_score():
    rows = [record(f"http://e.org/{i:04d}", prose(i)) for i in range(600)]
    original = rows[3]["content"]
    words = original.split(" ")
    for index in random.Random(1).sample(range(len(words)), len(words) // 50):
        words[index] = "zucchini"
    rows.append(record("http://e.org/9999-copy", " ".join(words)))
    corpus, counts = run(rows)
    assert counts["near_duplicate"] == 1
    (dropped,) = {"http://e.org/0003", "http://e.org/9999-copy"} - set(corpus["url"])
    assert absorbed_by(corpus)[dropped][1] == "near_duplicate"
    scores = [a["score"] for items in corpus["absorbed"].to_list() for a in items if a["reason"] == "near_duplicate"]
    assert scores and 0.9 <= scores[0] < 1.0


def test_reordered_paragraphs_are_near_duplicates():
    text = prose(7)
    shuffled = "\n\n".join(reversed(text.split("\n\n")))
    corpus, counts = run([record("http://e.org/a", text), record("http://e.org/b", shuffled)])
    assert corpus.height == 1 and counts["near_duplicate"] == 1


def test_pages_sharing_half_their_paragraphs_are_kept_apart():
    first = prose(11).split("\n\n")
    second = first[:3] + prose(12).split("\n\n")[:3]
    corpus, _ = run([record("http://e.org/a", "\n\n".join(first)), record("http://e.org/b", "\n\n".join(second))])
    assert corpus.height == 2


def test_threshold_one_disables_near_duplicates():
    text = prose(5)
    corpus, counts = run([record("http://e.org/a", text), record("http://e.org/b", text + " extra")], threshold=1.0)
    assert corpus.height == 2 and counts["near_duplicate"] == 0


def test_translations_are_kept_and_untranslated_copies_elect_the_honest_one():
    english, french = prose(21), "Le jardin partagé accueille les voisins chaque samedi matin pour le compost. " * 8
    alternates = [{"lang": "en", "url": "http://e.org/en/a"}, {"lang": "fr", "url": "http://e.org/fr/a"}]
    translated, _ = run([
        record("http://e.org/en/a", english, alternates=alternates),
        record("http://e.org/fr/a", french, lang="fr", alternates=alternates),
    ])
    assert translated.height == 2
    # The /fr/ copy declares fr (hreflang) but its text is English: the English original wins.
    copies, _ = run([
        record("http://e.org/fr/b", english, lang="en", alternates=[{"lang": "fr", "url": "http://e.org/fr/b"}],
               date=datetime(2026, 1, 1, tzinfo=UTC)),
        record("http://e.org/en/b", english, alternates=[{"lang": "en", "url": "http://e.org/en/b"}]),
    ])
    assert copies["url"].to_list() == ["http://e.org/en/b"]


def test_external_copies_lose_the_election():
    text = prose(31)
    corpus, _ = run([
        record("http://other.org/copy", text, category="external", date=datetime(2026, 1, 1, tzinfo=UTC)),
        record("http://e.org/original", text),
    ])
    assert corpus["url"].to_list() == ["http://e.org/original"]


def _children() -> set[int]:
    """This process's child processes, from /proc (the workers are started with subprocess)."""
    own = str(os.getpid())
    children = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[1] == own:
                    children.add(int(pid))
        except OSError:  # ended meanwhile
            continue
    return children


def test_workers_give_the_frame_of_one_process_and_are_gone_when_it_returns():
    rows = [record(f"http://e.org/{i:05d}", prose(i, paragraphs=2)) for i in range(PARALLEL_FROM + 60)]
    for n in range(0, 60, 6):  # exact and near copies far apart in URL order
        rows[n]["content"] = rows[PARALLEL_FROM + n]["content"]
        rows[n + 1]["content"] = rows[PARALLEL_FROM + n + 1]["content"].replace(" ", "  ", 1) + " zucchini"
    groups, _ = build_canonical_url_groups(records_frame(rows), urls_to_ignore=[])
    # multiprocessing's resource tracker, started with the first spawned worker, serves this process to its end.
    resource_tracker.ensure_running()
    before = _children()
    parallel, parallel_counts = deduplicate(groups, threshold=0.9, workers=2)
    assert _children() <= before  # the workers were closed (in the background) before the frame was returned
    serial, serial_counts = deduplicate(groups, threshold=0.9, workers=1)
    assert parallel.equals(serial) and parallel_counts == serial_counts
    assert serial_counts["same_content"] == 10 and serial_counts["near_duplicate"] >= 10


def test_page_order_puts_a_pages_copies_under_other_folders_together():
    urls = ["http://e.org/fr/b.html", "http://e.org/en/a.html", "http://e.org/en/b.html", "http://e.org/fr/a.html?x=1"]
    assert _page_order(urls) == [1, 3, 2, 0]


def test_the_dedup_tells_its_log_where_its_two_long_stages_stand():
    rows = [record(f"http://e.org/{i:04d}", prose(i)) for i in range(40)]
    rows += [record(f"http://e.org/copy-{i}", prose(i) + "\n\nOne more line.") for i in range(5)]
    lines: list[str] = []
    groups, _ = build_canonical_url_groups(records_frame(rows), urls_to_ignore=[])
    _, counts = deduplicate(groups, threshold=0.9, workers=1, log=lines.append)
    assert counts["near_duplicate"] == 5
    # Every stage ends with its total done: texts keyed, then candidate pairs verified.
    assert lines[0].startswith("dedup: keys and signatures: 45/45 texts (100%)"), lines
    assert any(line.startswith("dedup: near-duplicate candidates verified: ") and "(100%)" in line for line in lines)


def test_a_deduplication_from_last_nights_memo_equals_one_from_scratch():
    # Pages in several languages' copies and near copies: candidates to verify, groups to join. Last night's memo
    # knows most texts and pairs; tonight a few texts changed, one page is new, one is gone.
    from corpus_pipeline.dedup.reuse import DedupMemo

    base = [prose(i) for i in range(30)]
    rows = [record(f"http://e.org/{lang}/{i:03d}", base[i] + ("" if lang == "en" else f"\n\nNote {lang}."))
            for i in range(30) for lang in ("en", "fr", "de")]
    last = DedupMemo({}, {})
    first, _ = _run_with(rows, learned=last)
    assert last.keys and last.scores
    tonight = [r for r in rows if not r["url"].endswith("/029")]
    tonight[4] = record(tonight[4]["url"], base[1] + "\n\nA paragraph added tonight, which no other page has.")
    tonight.append(record("http://e.org/en/100", base[7] + "\n\nA new page close to an old one."))
    learned = DedupMemo({}, {})
    lines: list[str] = []
    kept, kept_counts = _run_with(tonight, memo=last, learned=learned, log=lines.append)
    # Only the edited and the new page's texts are keyed and signed.
    assert lines[0].startswith("dedup: keys and signatures: 2/2 texts"), lines
    scratch, scratch_counts = _run_with(tonight)
    assert kept.equals(scratch) and kept_counts == scratch_counts
    assert kept_counts["near_duplicate"] >= 20
    # What it learned is what a deduplication from scratch learns.
    fresh = DedupMemo({}, {})
    _run_with(tonight, learned=fresh)
    assert learned.keys.keys() == fresh.keys.keys()
    assert {pair for pair, score in learned.scores.items() if score >= 0.9} == {
        pair for pair, score in fresh.scores.items() if score >= 0.9}


def _run_with(rows, **memos):
    groups, _ = build_canonical_url_groups(records_frame(rows), urls_to_ignore=[])
    return deduplicate(groups, threshold=0.9, workers=1, **memos)
