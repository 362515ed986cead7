"""Jobs: the whole pipeline for one website, and a re-processing job without crawling."""

import dagster as dg

corpus_job = dg.define_asset_job(
    "corpus_job",
    selection=dg.AssetSelection.assets("raw_pages", "parsed_pages", "pdf_documents", "canonical_url_groups", "corpus"),
    description="Crawl one website and build its deduplicated corpus (all five assets).",
)

reprocess_job = dg.define_asset_job(
    "reprocess_job",
    selection=dg.AssetSelection.assets("parsed_pages", "pdf_documents", "canonical_url_groups", "corpus"),
    description="Rebuild a website's corpus from its stored raw_pages, without any network traffic.",
)

training_set_job = dg.define_asset_job(
    "training_set_job",
    selection=dg.AssetSelection.assets("global_corpus", "training_export"),
    description="Merge the kept records of every website (run after corpus_quality) and export the training set.",
)
