"""The Dagster assets, one module per pipeline stage: each reads its input partitions, calls the Dagster-free
folders and writes its output with metadata.

May import: core, crawl, extract, pdf, dedup, lm, quality, the top-level modules (resources, partitions), and Dagster.
"""

from corpus_pipeline.assets.canonical_url_groups import canonical_url_groups
from corpus_pipeline.assets.corpus import corpus
from corpus_pipeline.assets.corpus_quality import corpus_quality
from corpus_pipeline.assets.global_corpus import global_corpus
from corpus_pipeline.assets.parsed_pages import parsed_pages
from corpus_pipeline.assets.pdf_documents import pdf_documents
from corpus_pipeline.assets.raw_pages import raw_pages
from corpus_pipeline.assets.training_export import training_export

ALL_ASSETS = [raw_pages, parsed_pages, pdf_documents, canonical_url_groups, corpus]
TRAINING_SET_ASSETS = [corpus_quality, global_corpus, training_export]
