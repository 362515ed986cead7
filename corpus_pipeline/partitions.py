"""One static partition per website of the registry."""

import dagster as dg

from corpus_pipeline.core.registry import load_registry

# Read once when Dagster loads the code location: adding a website to the
# registry shows up as a new partition after a reload.
website_partitions = dg.StaticPartitionsDefinition(load_registry().names)
