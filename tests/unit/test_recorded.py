"""A figure the README states comes from a bench script's recorded output: the sentence is
checked against the record, so a rerun that moves the figure moves the README or fails here."""

from __future__ import annotations

import json
import re
from pathlib import Path

TOP = Path(__file__).parents[2]
README = (TOP / "README.md").read_text()


def test_the_agent_size_in_the_readme_is_the_recorded_one():
    record = json.loads((TOP / "bench" / "results" / "agent-size.json").read_text())
    stated = re.search(r"core (\d+) MB, controller (\d+) MB, (\d+)%", " ".join(README.split()))
    assert stated, "the README states the NAS-side install size"
    core, controller, share = map(int, stated.groups())
    assert core == round(record["core"]["bytes"] / 1e6)
    assert controller == round(record["controller"]["bytes"] / 1e6)
    assert share == round(record["ratio"] * 100)
    assert record["met"] and record["core"]["inspect_works"]
