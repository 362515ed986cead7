"""One static partition per website of the registry."""

import dagster as dg

from corpus_pipeline.core.registry import load_registry

# Read once when Dagster loads the code location: a website added to the registry is a partition after a reload.
website_partitions = dg.StaticPartitionsDefinition(load_registry().names)
