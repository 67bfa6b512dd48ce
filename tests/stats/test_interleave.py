"""Why interleave: under drift, before/after measurement calls an A/A comparison a change, and
interleaved measurement does not (the same statistics functions, on seeded simulated runs)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from nastune.jobs.ab import _controls, reversible
from nastune.stats.compare import compare, settled
from nastune.tune.plan import Plan, PlannedChange


def _drifting(seed: int, n: int):
    """2n repeats of one unchanged system whose throughput falls 1% per repeat (a job starting)."""
    rng = np.random.default_rng(seed)
    return [100 * (1 - 0.01 * t) * (1 + rng.normal(0, 0.005)) for t in range(2 * n)]


@pytest.mark.parametrize("seed", range(10))
def test_drift_fools_before_after_but_not_interleaving(seed):
    values = _drifting(seed, 8)
    before_after = compare(values[:8], values[8:])  # all of A, then all of B
    order = random.Random(seed)
    a: list[float] = []
    b: list[float] = []
    for i in range(0, 16, 2):  # pairs in random order, as interleave.run does
        first, second = values[i], values[i + 1]
        (a, b)[order.random() < 0.5].append(first)
        (b if len(a) > len(b) else a).append(second)
    interleaved = compare(a, b)
    assert before_after.verdict == "worse"
    assert interleaved.verdict == "~"


def test_settled_means_a_verdict_an_interval_inside_the_noise_floor_or_a_small_change_known_to_it():
    assert settled(compare([100, 101, 99, 100, 100.5], [120, 121, 119, 120, 120.5]))
    same = compare([100, 100.2, 99.9, 100.1, 100.05, 99.95], [100.1, 99.9, 100, 100.2, 99.95, 100.05])
    assert same.verdict == "~"
    assert settled(same)
    noisy = compare([100, 80, 120], [90, 110, 100])
    assert not settled(noisy)
    a = [100, 100.4, 99.6, 100.2, 99.8, 100.1]
    near = compare(a, [v * 1.03 for v in reversed(a)])  # +3%, on the floor: neither side proven
    assert near.verdict == "~"
    assert 0 < near.change_ci[0] < 0.03 < near.change_ci[1]
    assert settled(near)
    wide = compare(a, [v * 1.03 + d for v, d in zip(a, (-6, 5, -4, 6, -5, 4))])  # the same, far noisier
    assert wide.verdict == "~"
    assert wide.change_ci[1] - wide.change_ci[0] > 0.06
    assert not settled(wide)
    clear = compare(a, [93, 92.8, 93.3, 93.1, 92.9, 100.3], alpha=0.01)  # -7%: clear of the floor, p = 0.04
    assert clear.verdict == "~"
    assert clear.change_ci[1] < -0.03
    assert not settled(clear)  # more repeats decide it


def test_one_off_actions_are_left_out_of_an_interleaved_run():
    plan = Plan(
        changes=[
            PlannedChange(id=1, knob="sysctl", target="vm.dirty_ratio", new=10),
            PlannedChange(id=2, knob="xfs_fsr", target="/srv"),
        ]
    )
    kept, left = reversible(plan)
    assert [c.knob for c in kept.changes] == ["sysctl"]
    assert "xfs_fsr /srv" in left[0]


def test_a_last_repeat_of_a_outside_its_earlier_range_refuses_the_verdict():
    from nastune.bench.targets import Target
    from nastune.bench.workloads import WORKLOADS

    w, t = WORKLOADS["network"], Target("iperf3", "iperf3://x", host="x")
    key = f"{w.name} @ {t.url}"
    rows = [{"upload MB/s": v, "download MB/s": v} for v in (100.0, 101.0, 99.0, 100.0)]
    calm = {key: rows + [{"upload MB/s": 100.5, "download MB/s": 100.5}]}
    assert _controls([(w, t)], {}, calm, 0.03) == {}
    drifted = {key: rows + [{"upload MB/s": 80.0, "download MB/s": 100.0}]}
    assert _controls([(w, t)], {}, drifted, 0.03) == {f"{key} upload MB/s": pytest.approx(0.2)}
    too_few = {key: [rows[0], {"upload MB/s": 10.0, "download MB/s": 10.0}]}  # one earlier repeat: no spread
    assert _controls([(w, t)], {}, too_few, 0.03) == {}


def test_an_unchanged_system_rarely_fails_its_a_a_control_and_a_moved_one_does():
    """Seeded: six repeats of A at 2% spread, then the control from the same system (at most 5%
    refused) or from a system that fell by 15% (refused nearly always)."""
    from nastune.stats.control import outside

    rng = np.random.default_rng(7)
    draws = [rng.normal(100, 2, 7) for _ in range(2000)]
    calm = np.mean([outside(list(d[:6]), d[6], 0.03) for d in draws])
    moved = np.mean([outside(list(d[:6]), d[6] * 0.85, 0.03) for d in draws])
    assert calm <= 0.05
    assert moved >= 0.9


def test_a_drift_of_a_refuses_only_the_changes_it_could_explain():
    """The A/A control of a real run: NFS seq-write's A went 35.6, 35.2 then 29.7 MB/s (16% off)
    while B gave about +180%; a +10% change beside the same drift stays refused."""
    from nastune.stats.control import drift, explained
    from nastune.wire import Comparison, Verdict

    def row(workload: str, low: float, high: float) -> Verdict:
        medians = {"before_median": 35.4, "before_ci": (35, 36), "after_median": 99.0, "after_ci": (98, 100)}
        result = Comparison(**medians, change=(low + high) / 2, change_ci=(low, high), p_value=0.01, verdict="better")
        return Verdict.of(workload, "nfs://nas/data", "MB/s", "MB/s", True, None, result)

    moved = drift([35.6, 35.2], 29.7)
    assert moved == pytest.approx(0.161, abs=0.001)
    drifted = {"big @ nfs://nas/data MB/s": moved, "small @ nfs://nas/data MB/s": moved, "gone @ x MB/s": 0.2}
    rows = [row("big", 1.5, 2.0), row("small", 0.02, 0.18)]
    assert explained(drifted, rows) == ["small @ nfs://nas/data MB/s", "gone @ x MB/s"]
    rows = [row("big", -0.8, -0.5)]  # as far beyond it downwards
    assert "big @ nfs://nas/data MB/s" not in explained(drifted, rows)
