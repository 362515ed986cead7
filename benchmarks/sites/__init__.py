"""Real multi-page websites for sites_bench.py: built from Debian's documentation packages, scored against the text
of each template's main container."""
