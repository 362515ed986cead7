"""notebooks/explore_corpus.ipynb runs top to bottom on the demo website's Parquet, so it never goes stale."""

from pathlib import Path

import nbformat
from nbclient import NotebookClient

from corpus_pipeline.core.warehouse import DATA_DIR_ENV_VAR

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "explore_corpus.ipynb"
PLOTS = 5  # fetch outcomes, languages, text lengths, rules, duplicates


def test_the_notebook_runs_on_the_demo_website_and_draws_every_plot(training_set_run, monkeypatch):
    # The kernel inherits this process's environment: the data folder of the Dagster run, the demo website.
    monkeypatch.setenv(DATA_DIR_ENV_VAR, str(training_set_run.warehouse.root.parent))
    monkeypatch.setenv("EXPLORE_WEBSITE", "demo")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    assert not [output for output in outputs if output.output_type == "error"]
    images = [output for output in outputs if "image/png" in output.get("data", {})]
    assert len(images) == PLOTS
    printed = "".join(output.get("text", "") for output in outputs if output.output_type == "stream")
    assert printed.startswith("demo: ") and "corpus records" in printed
    assert "records exported" in printed, "the export section read the current export"
