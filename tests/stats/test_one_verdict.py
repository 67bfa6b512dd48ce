"""One verdict for one run: `compare` of an interleaved run's a.json and b.json judges them as the
run did (each B against its own pair's A, at the run's alpha and noise floor, without what its A/A
control refused), and a "~" whose interval excludes no change says so instead of "unchanged"."""

from __future__ import annotations

import json
from pathlib import Path

from nastune.bench.results import Interleaving, MetricResult, Provenance, ResultSet, WorkloadResult
from nastune.report.tables import tally
from nastune.stats.compare import compare
from nastune.wire import Verdict
from tests.conftest import run_cli

A = [100.0, 130.0, 90.0]  # three pairs far apart: a rank test on 3 + 3 cannot call anything
B = [110.0, 143.0, 99.0]  # each B 10% above its own pair's A


def _side(label: str, values: list[float], run: str | None, refused: list[str] | None = None) -> ResultSet:
    metric = MetricResult(unit="MB/s", higher_is_better=True, values=values)
    both = [
        WorkloadResult(
            workload=w, target={"url": "nfs://nas/data"}, params={}, started="", seconds=1, metrics={"MB/s": metric}
        )
        for w in ("seq-write", "seq-read")
    ]
    provenance = Provenance(nastune="1", kernel="6.1", command=["nastune"], tools={})
    interleaving = None
    if run:
        interleaving = Interleaving(run=run, side=label, alpha=0.00625, noise_floor=0.03, refused=refused or [])
    return ResultSet(
        created="2026-11-26T10:00:00", label=label, provenance=provenance, results=both, interleaving=interleaving
    )


def _compared(tmp_path: Path, a: ResultSet, b: ResultSet) -> dict:
    a.save(tmp_path / "a.json")
    b.save(tmp_path / "b.json")
    shown = run_cli("compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--json")
    return json.loads(shown.stdout)["comparisons"][0]


def test_compare_of_an_interleaved_run_gives_the_run_s_paired_verdict(tmp_path):
    done = _compared(tmp_path, _side("A", A, "run1"), _side("B", B, "run1"))
    assert [r["verdict"] for r in done["rows"]] == ["better", "better"]
    assert any("the A and B of one interleaved run" in n for n in done["notes"])


def test_the_same_numbers_from_two_runs_get_the_unpaired_verdict(tmp_path):
    for runs in ((None, None), ("run1", "run2")):
        done = _compared(tmp_path, _side("A", A, runs[0]), _side("B", B, runs[1]))
        assert [r["verdict"] for r in done["rows"]] == ["~", "~"]


def test_what_the_run_s_control_refused_stays_left_out(tmp_path):
    refused = ["seq-read @ nfs://nas/data MB/s"]
    done = _compared(tmp_path, _side("A", A, "run1", refused), _side("B", B, "run1", refused))
    assert [r["workload"] for r in done["rows"]] == ["seq-write"]
    assert any(n.startswith("seq-read @ nfs://nas/data MB/s: left out") for n in done["notes"])


def test_a_change_of_known_sign_within_the_noise_floor_is_small_not_unchanged():
    small = compare([100, 101, 99, 100.5, 99.5, 100.2, 99.8], [103, 105, 102.5, 104.5, 103, 104, 103.5])
    low, high = small.change_ci
    assert small.verdict == "~"
    assert 0 < low < 0.03 < high
    assert small.small()
    assert small.verdict_text() == "~ (small: above zero, not clearly beyond the noise floor)"
    same = compare([100, 101, 99, 100.5, 99.5], [100.2, 100.8, 99.1, 100.4, 99.6])
    assert not same.small()
    assert same.verdict_text().startswith("~ (no change larger than")
    rows = [Verdict.of("w", "t", "m", "MB/s", True, None, c) for c in (small, same)]
    assert (
        tally(rows) == "0 better, 0 worse, 1 small (a known sign, within the noise floor), 1 unchanged (within noise)"
    )
