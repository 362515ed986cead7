"""Running the pipeline beyond one machine: Postgres instance storage, Celery workers, local services for tests.

May import: core, and Dagster.
"""
