"""Writing a folder version (a dataset export) in tests, on any warehouse's folder history."""

from __future__ import annotations

from corpus_pipeline.core.folder_versions import FolderHistory, ObjectFolderHistory


def write_folder(history: FolderHistory | ObjectFolderHistory, files: dict[str, str]) -> str:
    """A new, unjudged folder version holding ``files`` (relative path -> text); returns its version id."""
    with history.new_folder(run_id="run") as version:
        for name, text in files.items():
            (version.path / name).parent.mkdir(parents=True, exist_ok=True)
            (version.path / name).write_text(text)
        version.rows = len(files)
    return version.version_id
