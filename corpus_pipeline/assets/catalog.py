"""How the assets present themselves in Dagster's catalog: their groups, owners and tags.

Dagster has no description field for an asset group, so each group's description travels as metadata on the
assets of the group (``group_description``), shown on every asset's page.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from corpus_pipeline.assets.reporting import column_schema

# The team answering for the corpus; a deployment puts its own team or e-mail addresses here.
OWNERS = ["team:corpus-pipeline"]

# ``network`` says which assets talk to websites: select ``tag:network=offline`` to rebuild without traffic.
CRAWLS_TAGS = {"network": "crawls"}
OFFLINE_TAGS = {"network": "offline"}


@dataclass(frozen=True)
class AssetGroup:
    """A stage of the pipeline as the UI groups it."""

    name: str
    description: str

    def asset_options(self, schema: pa.Schema, tags: Mapping[str, str] = OFFLINE_TAGS) -> dict[str, Any]:
        """The ``dg.asset`` arguments of an asset of the group writing ``schema``: its group, owners and tags, and as
        metadata the group's purpose and the columns (shown in the UI before the first materialization)."""
        return {"group_name": self.name, "kinds": {"python", "parquet"}, "owners": OWNERS, "tags": tags,
                "metadata": {"dagster/column_schema": column_schema(schema), "group_description": self.description}}


CRAWL = AssetGroup("crawl", "Fetches the website: the only stage that sends requests.")
EXTRACT = AssetGroup("extract", "Reads the stored pages and PDFs into text records, offline.")
DEDUP = AssetGroup("dedup", "Groups records by canonical URL and merges exact and near duplicates, offline.")
TRAINING_SET = AssetGroup(
    "training_set", "Quality signals per website, then one corpus across websites exported for model training, offline."
)
