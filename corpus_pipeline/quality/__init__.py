"""Quality gates: what a new version of a partition must show before it becomes current."""
