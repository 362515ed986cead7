"""HTML pages to text and metadata, Dagster-free: trafilatura and a Resiliparse second opinion, the website's
template and content container, titles, dates, languages, page kinds; pages parsed on worker processes.

May import: core, crawl; not Dagster.
"""
