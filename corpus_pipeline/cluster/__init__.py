"""Running the pipeline beyond one machine: which executor runs a job's steps (Celery workers on a team's
infrastructure). PostgreSQL and Redis on loopback, for tests and trials, are in ``corpus_pipeline_tests/support``.

May import: core, and Dagster.
"""
