"""Export: the global corpus as sharded Parquet and JSONL.gz that Hugging Face datasets loads directly."""

DEFAULT_SHARD_RECORDS = 50_000  # a shard of ~100-200 MB of text: the size the Hub's own Parquet conversion aims at
