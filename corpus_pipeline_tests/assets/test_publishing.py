"""assets/publishing: distinct_vs_current's measure of a version is kept with it, for this code only."""

from corpus_pipeline.assets import publishing
from corpus_pipeline.core.schema import RECORD_SCHEMA
from corpus_pipeline.core.warehouse import Warehouse
from corpus_pipeline.quality.distinct import Distinctness


def test_a_versions_distinctness_is_known_the_next_night(tmp_path, monkeypatch):
    history = Warehouse(tmp_path).history("parsed_pages", "site")
    measures = [Distinctness("title", 3, 2, 2, "Home"), Distinctness("text", 3, 3, 1)]
    with history.lock():
        with history.new_version(RECORD_SCHEMA) as version:
            version.write({"url": "http://site.test/", "canonical_url": "http://site.test/", "content": "text", "h1": [], "h2": []})
        assert publishing.known_distinctness(history, version.version_id) is None
        publishing.remember_distinctness(history, version.version_id, measures)
    assert publishing.known_distinctness(history, version.version_id) == measures
    assert publishing.known_distinctness(history, None) is None
    monkeypatch.setattr(publishing, "DISTINCTNESS_CODE", "other code")
    assert publishing.known_distinctness(history, version.version_id) is None  # measured by other code: measured again
