from corpus_pipeline.core.columns import RAW_PAGES_COLUMN_DOCS, RECORD_COLUMN_DOCS
from corpus_pipeline.core.schema import CANONICAL_URL_GROUPS_SCHEMA, CORPUS_SCHEMA, RAW_PAGES_SCHEMA, RECORD_SCHEMA


def test_every_column_of_every_contract_is_described():
    assert set(RAW_PAGES_SCHEMA.names) <= set(RAW_PAGES_COLUMN_DOCS)
    for schema in (RECORD_SCHEMA, CANONICAL_URL_GROUPS_SCHEMA, CORPUS_SCHEMA):
        assert set(schema.names) <= set(RECORD_COLUMN_DOCS), set(schema.names) - set(RECORD_COLUMN_DOCS)
