"""Quality gates: what a new version of a partition must show before it becomes current.

May import: core; not Dagster.
"""
