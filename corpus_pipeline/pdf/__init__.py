"""PDF documents to text, Dagster-free: pypdf's text layer and outline sections, Tesseract OCR with image preparation.

May import: core, extract; not Dagster.
"""
