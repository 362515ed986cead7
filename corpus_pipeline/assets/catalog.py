"""How the assets present themselves in Dagster's catalog: their groups, owners and tags.

Dagster has no description field for an asset group, so each group's description travels as metadata on the
assets of the group (``group_description``), shown on every asset's page.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AssetGroup:
    """A stage of the pipeline as the UI groups it."""

    name: str
    description: str

    def metadata(self) -> dict[str, str]:
        """Metadata that names the group's purpose on each of its assets."""
        return {"group_description": self.description}


CRAWL = AssetGroup("crawl", "Fetches the website: the only stage that sends requests.")
EXTRACT = AssetGroup("extract", "Reads the stored pages and PDFs into text records, offline.")
DEDUP = AssetGroup("dedup", "Groups records by canonical URL and merges exact and near duplicates, offline.")
TRAINING_SET = AssetGroup(
    "training_set", "Quality signals per website, then one corpus across websites exported for model training, offline."
)

# The team answering for the corpus; a deployment puts its own team or e-mail addresses here.
OWNERS = ["team:corpus-pipeline"]

# ``network`` says which assets talk to websites: select ``tag:network=offline`` to rebuild without traffic.
CRAWLS_TAGS = {"network": "crawls"}
OFFLINE_TAGS = {"network": "offline"}
