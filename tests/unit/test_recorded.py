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


def test_the_main_job_figures_in_the_readme_are_the_recorded_ones():
    record = json.loads((TOP / "bench" / "results" / "main-speed.json").read_text())
    runs = {r["flow"]: r for r in record["runs"]}
    text = " ".join(README.split())
    stated = re.search(r"interleaved (\d+) s after set-up, before-after (\d+) s \(ratio ([\d.]+)", text)
    assert stated, "the README states both flows' times"
    new, old, ratio = stated.groups()
    assert int(new) == round(runs["interleaved"]["after_setup_s"])
    assert int(old) == round(runs["before-after"]["after_setup_s"])
    assert float(ratio) == round(record["result"]["time_ratio"], 2)
    assert ("the goal of a third is not met" in text) == (not record["result"]["met"])
    verdicts = re.search(r"(\d+) better vs (\d+), (\d+) worse, (\d+) refused", text)
    assert verdicts
    assert [int(v) for v in verdicts.groups()] == [
        runs["interleaved"]["better"],
        runs["before-after"]["better"],
        runs["interleaved"]["worse"],
        len(runs["interleaved"]["refused"]),
    ]


def test_the_start_up_figures_in_the_readme_are_the_recorded_ones():
    record = {r["command"]: r for r in json.loads((TOP / "bench" / "results" / "startup.json").read_text())["rows"]}
    text = " ".join(README.split())
    for command in ("nastune --help", "nastune explain"):
        stated = re.search(rf"`{command}` (\d+) ms \(([\d.]+)x", text)
        assert stated, command
        assert int(stated.group(1)) == round(record[command]["median_s"] * 1000)
        assert float(stated.group(2)) == record[command]["ratio"]
