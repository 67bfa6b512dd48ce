"""The benchstat export: every line is one of the Go benchmark format's kinds, every repeat comes
back with its unit and direction, and Go's own benchstat reads two exports and calls the change."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from nastune.report.benchfmt import export
from tests.conftest import run_cli
from tests.report.test_report import result_set

CONFIG = re.compile(r"[a-z][^\sA-Z]*: \S.*")  # golang.org/design/14313-benchmark-format
BENCH = re.compile(r"(Benchmark[^a-z\s]\S*) (\d+)((?: \S+ \S+)+)")
UNIT = re.compile(r"Unit (\S+) better=(higher|lower)")


def parse(text: str):
    """The format's reading: config, unit metadata, results; anything else must be a comment."""
    config: dict[str, str] = {}
    units: dict[str, str] = {}
    values: dict[tuple[str, str], list[float]] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        if m := UNIT.fullmatch(line):
            units[m[1]] = m[2]
        elif m := BENCH.fullmatch(line):
            pairs = m[3].split()
            for value, unit in zip(pairs[::2], pairs[1::2], strict=True):
                values.setdefault((m[1], unit), []).append(float(value))
        elif CONFIG.fullmatch(line):
            key, _, value = line.partition(": ")
            config[key] = value
        else:
            raise AssertionError(f"not a line of the benchmark format: {line!r}")
    return config, units, values


def test_every_repeat_comes_back_with_its_unit_and_direction():
    results = result_set("before", 1.0)
    config, units, values = parse(export(results))
    assert config["kernel"] == "6.1.0"
    assert "label" not in config  # the label would split benchstat's tables
    assert units == {"MB/s": "higher", "us": "lower", "GB/s": "higher"}
    seq = next(v for (name, unit), v in values.items() if name.startswith("BenchmarkSeqWrite/") and unit == "MB/s")
    assert seq == pytest.approx(results.results[0].metrics["MB/s"].values, rel=1e-5)
    latency = [k for k in values if "metric=write_64K_rec_4K_latency" in k[0]]
    assert latency
    assert latency[0][1] == "us"
    assert len(values) == sum(len(r.metrics) for r in results.results)  # one benchmark per metric


def test_the_cli_exports_a_result_file(tmp_path):
    path = tmp_path / "before.json"
    result_set("before", 1.0).save(path)
    proc = run_cli("export", "--format", "benchstat", str(path))
    assert parse(proc.stdout)[2]
    bad = run_cli("export", "--format", "benchstat", str(tmp_path / "none.json"), check=False)
    assert bad.returncode != 0
    assert "none.json" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_benchstat_reads_two_exports_and_calls_the_change(tmp_path):
    benchstat = shutil.which("benchstat") or next(
        (str(p) for p in (Path(__file__).parents[2] / ".venv/bin/benchstat",) if p.exists()), None
    )
    if not benchstat:
        pytest.skip("benchstat is not installed (scripts/setup installs it where Go is)")
    before, after = tmp_path / "before.txt", tmp_path / "after.txt"
    before.write_text(export(result_set("before", 1.0)))
    after.write_text(export(result_set("after", 0.9)))
    out = subprocess.run([benchstat, str(before), str(after)], capture_output=True, text=True, check=True).stdout
    seq = next(line for line in out.splitlines() if line.startswith("SeqWrite/"))
    assert "-10.00%" in seq
    assert "p=0.008 n=5" in seq


def test_benchstat_groups_by_the_whole_target(tmp_path):
    """A target URL's '/' would split the name: benchstat -row /target saw only 'smb:'."""
    benchstat = shutil.which("benchstat") or next(
        (str(p) for p in (Path(__file__).parents[2] / ".venv/bin/benchstat",) if p.exists()), None
    )
    text = export(result_set("before", 1.0))
    urls = {r.target.url for r in result_set("before", 1.0).results}
    names = [line.split()[0] for line in text.splitlines() if line.startswith("Benchmark")]
    for name in names:
        target = next(p for p in name.split("/") if p.startswith("target="))
        assert target.removeprefix("target=").replace("%2F", "/").replace("%25", "%") in urls
    if not benchstat:
        pytest.skip("benchstat is not installed (scripts/setup installs it where Go is)")
    (tmp_path / "a.txt").write_text(text)
    (tmp_path / "b.txt").write_text(export(result_set("after", 0.9)))
    argv = [benchstat, "-row", "/target", "-col", ".file", str(tmp_path / "a.txt"), str(tmp_path / "b.txt")]
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    for url in urls:
        assert url.replace("/", "%2F") in out, out
