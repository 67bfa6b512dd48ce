"""A figure the documents state comes from a bench script's record: bench/results_page.py renders
every `<!-- figures: NAME -->` block and docs/results.md's index from bench/results, and the
committed text must be that rendering, so a rerun that moves a figure moves the text."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

TOP = Path(__file__).parents[2]


def test_the_documents_figures_are_rendered_from_the_records():
    done = subprocess.run(
        [sys.executable, str(TOP / "bench" / "results_page.py"), "--check"], cwd=TOP, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr  # run bench/results_page.py and commit what it rewrote


def test_every_record_is_indexed_and_every_renderer_is_used():
    page = (TOP / "docs" / "results.md").read_text()
    assert all(f"[{p.stem}](../bench/results/{p.name})" in page for p in (TOP / "bench" / "results").glob("*.json"))
    sys.path.insert(0, str(TOP / "bench"))
    try:
        from figures import FIGURES
        from results_page import documents
    finally:
        sys.path.remove(str(TOP / "bench"))
    used = " ".join(p.read_text() for p in documents())
    assert [name for name in FIGURES if f"<!-- figures: {name} -->" not in used] == []


def test_a_stale_figure_is_named(tmp_path):
    """The check can fail: a figure edited by hand, in a copy of the documents, is named."""
    for part in ("bench", "docs", "src/nastune/rules/catalog"):
        shutil.copytree(TOP / part, tmp_path / part)
    shutil.copy(TOP / "CONTRIBUTING.md", tmp_path / "CONTRIBUTING.md")
    marker = "<!-- figures: main-job -->\n"
    (tmp_path / "README.md").write_text((TOP / "README.md").read_text().replace(marker, marker + "| edited |\n"))
    done = subprocess.run(
        [sys.executable, str(tmp_path / "bench" / "results_page.py"), "--check"], capture_output=True, text=True
    )
    assert done.returncode == 1, done.stderr
    assert "README.md" in done.stderr, done.stderr
    assert "docs" not in done.stderr, done.stderr
