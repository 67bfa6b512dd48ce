"""optimize's interleaved measurement of a plan's settings, on a fixture root: the settings are
rolled back for A and applied for B by the tuning engine, each repeat is measured in the state
it claims, a failing interleaved run is reported without losing the before/after verdicts, the
settings end applied again, and an interrupt leaves A with the command that re-applies them.

The workload is a probe that reads the setting it is measured under (the fixture has no server
to measure), so every value shows which side was really in place."""

from __future__ import annotations

import io
import random
from dataclasses import dataclass
from pathlib import Path

import pytest

from nastune.bench.targets import Target
from nastune.bench.workload_base import Metric, Workload
from nastune.jobs.optimize import OptimizeError, OptimizeSpec, _interleave
from nastune.protocols.client import BenchError
from nastune.sites.live import LiveSite
from nastune.tune.plan import Plan, PlannedChange
from tests.conftest import need
from tests.jobs.conftest import Answers

SETTING = "proc/sys/vm/dirty_ratio"  # 40 in the fixture; the plan sets 10


class Probe(Workload):
    name = "probe"
    kinds = ("path",)

    def __init__(self, root, fail_at: int | None = None, interrupt_at: int | None = None, b: float = 110.0):
        self.root, self.fail_at, self.interrupt_at, self.calls, self.b = root, fail_at, interrupt_at, 0, b
        self.seen: list[int] = []

    def metrics(self, params):
        return {"MB/s": Metric("MB/s", throughput=True)}

    def once(self, target, params, state):
        self.calls += 1
        if self.fail_at and self.calls >= self.fail_at:  # for good: retries do not help
            raise BenchError("the probe's server went away")
        if self.calls == self.interrupt_at:
            raise KeyboardInterrupt
        value = int((self.root / SETTING).read_text())
        self.seen.append(value)
        state.course.append([float(value)])  # as a sustained write records its seconds: the setting it ran under
        return {"MB/s": 100.0 if value == 40 else self.b}


@dataclass
class ProbeSite(LiveSite):
    """The fixture root as a live site whose one workload is the probe."""

    probe: Workload | None = None

    def pairs(self, target, names):
        return [(self.probe, Target("path", str(self.target), share=str(self.target)))]


def _run(root, probe, tmp_path):
    site = ProbeSite(str(tmp_path), str(root), probe)
    tuner = site.tuner()
    plan = Plan(changes=[PlannedChange(id=1, knob="sysctl", target="vm.dirty_ratio", new=10)])
    with tuner.hold():  # as optimize holds the system's lock
        journal = need(tuner.apply(plan, frozenset(), lambda m: None))
        tuner.rollback(journal)  # A, as optimize starts its interleaving
        spec = OptimizeSpec(["probe"], {}, 5, tmp_path, pairs=(5, 5))
        return tuner, journal, _interleave(plan, tuner, site, spec, lambda m: None)


def test_each_repeat_is_measured_in_its_side_and_the_settings_end_applied(root, tmp_path):
    probe = Probe(root)
    tuner, first, (mixed, journal) = _run(root, probe, tmp_path)
    assert mixed is not None
    assert mixed.pairs == 5
    assert not mixed.stopped
    assert sorted(probe.seen) == [10] * 5 + [40] * 6  # A: warm-up and 5 repeats (its last is the control); B: 5
    (row,) = mixed.rows
    assert row.verdict == "better"
    assert row.sizes == (5, 5)
    assert mixed.withheld == []
    for side in mixed.runs:  # the first pair profiled on both sides: what limited A and B
        assert all(r.profile for r in side.results), side.label
    # each repeat's course in its own side's results (the report draws A's against B's)
    courses = {side.label: side.results[0].course for side in mixed.runs}
    assert courses == {"A": [[40.0]] * 5, "B": [[10.0]] * 5}  # the warm-up's course is no repeat's
    # each side's provenance read while it was in place: B's settings are B's
    read = {side.label: side.provenance.settings["sysctl"]["vm.dirty_ratio"] for side in mixed.runs}
    assert read == {"A": "40", "B": "10"}
    assert (root / SETTING).read_text().strip() == "10"
    assert need(journal) != first
    assert tuner.verify(need(journal)) == []
    assert (tmp_path / "settings.json").exists()


def test_settings_that_made_a_metric_worse_are_left_as_they_were(root, tmp_path):
    """optimize --help: a worse verdict exits 1 with nothing left changed."""
    _, _, (mixed, journal) = _run(root, Probe(root, b=90.0), tmp_path)
    assert mixed is not None
    (row,) = mixed.rows
    assert row.verdict == "worse"
    assert mixed.withheld == [f"probe @ {row.target} MB/s"]
    assert journal is None
    assert (root / SETTING).read_text().strip() == "40"
    assert (tmp_path / "settings.json").exists()  # what applies them all the same


def test_a_failing_interleaved_run_is_reported_and_the_settings_applied_again(root, tmp_path):
    probe = Probe(root, fail_at=4)
    _, _, (mixed, _) = _run(root, probe, tmp_path)
    assert mixed is not None
    assert not mixed.rows
    assert "the probe's server went away" in mixed.stopped
    assert (root / SETTING).read_text().strip() == "10"


def test_an_interrupt_while_interleaving_leaves_a_and_says_how_to_apply_again(root, tmp_path):
    probe = Probe(root, interrupt_at=4)
    with pytest.raises(OptimizeError) as stopped:
        _run(root, probe, tmp_path)
    assert stopped.value.interrupted
    assert "settings.json" in str(stopped.value)
    assert (root / SETTING).read_text().strip() == "40"


class Flat(Probe):
    """A workload the setting does not touch, too noisy (+-10%) to settle within the budget."""

    name = "flat"

    def once(self, target, params, state):
        self.calls += 1
        return {"MB/s": 100.0 * random.Random(self.calls).uniform(0.9, 1.1)}


@dataclass
class TwoProbes(ProbeSite):
    flat: Workload | None = None

    def pairs(self, target, names):
        (one,) = super().pairs(target, names)
        return [one, (self.flat, one[1])]


def test_a_settled_workload_is_measured_no_more_while_the_others_go_on(root, tmp_path):
    from nastune.jobs import ab

    probe, flat = Probe(root), Flat(root)
    site = TwoProbes(str(tmp_path), str(root), probe, flat)
    plan = Plan(changes=[PlannedChange(id=1, knob="sysctl", target="vm.dirty_ratio", new=10)])
    spec = ab.AbSpec(plan, ["probe", "flat"], {}, tmp_path / "ab", min_pairs=5, max_pairs=8)
    tuner = site.tuner()
    with tuner.hold("ab"):  # as ab's measure holds it
        done = ab.run(spec, site, tuner, log=lambda m: None)
    assert done.pairs == 8
    assert not done.decided  # the flat one never settled
    assert probe.seen.count(10) == 5  # B: settled at the first look, measured no more
    assert flat.calls == 1 + 8 * 2  # warm-up, both sides of every pair: no separate control pass
    a, b = done.runs
    assert [len(r.metrics["MB/s"].values) for r in b.results] == [5, 8]
    assert [len(r.metrics["MB/s"].values) for r in a.results] == [5, 8]
    assert (root / SETTING).read_text().strip() == "40"  # ends in A


def test_settings_that_change_nothing_are_not_interleaved(root, tmp_path):
    (root / SETTING).write_text("10\n")  # already as planned: B would be A
    probe = Probe(root)
    site = ProbeSite(str(tmp_path), str(root), probe)
    plan = Plan(changes=[PlannedChange(id=1, knob="sysctl", target="vm.dirty_ratio", new=10)])
    spec = OptimizeSpec(["probe"], {}, 5, tmp_path, pairs=(5, 5))
    tuner = site.tuner()
    with tuner.hold():
        assert _interleave(plan, tuner, site, spec, lambda m: None) == (None, None)
    assert len(probe.seen) <= 2  # the warm-up and at most one repeat of A before the first switch


@dataclass
class CountingSite(TwoProbes):
    """Counts how often the targets are found, and in which state of the setting."""

    found: list[str] | None = None

    def pairs(self, target, names):
        need(self.found).append(Path(self.root, SETTING).read_text().strip())
        return super().pairs(target, names)


def test_each_side_finds_its_targets_once_in_its_own_state(root, tmp_path):
    from nastune.jobs import ab

    site = CountingSite(str(tmp_path), str(root), Probe(root), Flat(root), [])
    plan = Plan(changes=[PlannedChange(id=1, knob="sysctl", target="vm.dirty_ratio", new=10)])
    spec = ab.AbSpec(plan, ["probe", "flat"], {}, tmp_path / "ab", min_pairs=5, max_pairs=8)
    tuner = site.tuner()
    with tuner.hold("ab"):  # as ab's measure holds it
        done = ab.run(spec, site, tuner, log=lambda m: None)
    assert done.pairs == 8  # 16 switches
    assert site.found == ["40", "10"]  # A's targets found in A, B's in B, once each


SCREENED = Plan(
    changes=[
        PlannedChange(id=1, knob="sysctl", target="vm.dirty_ratio", new=10, rule="dirty-ratio-high"),
        PlannedChange(
            id=2, knob="sysfs", target="/sys/block/sda/queue/read_ahead_kb", new=4096, rule="read-ahead-small"
        ),
    ]
)
READ_AHEAD = "sys/block/sda/queue/read_ahead_kb"  # 128 in the fixture; the other rule sets 4096


def _screened(root, tmp_path, keep_only: bool = False, answers: Answers | None = None):
    site = ProbeSite(str(tmp_path), str(root), Probe(root))
    tuner = site.tuner()
    spec = OptimizeSpec(["probe"], {}, 5, tmp_path, pairs=(5, 5), screen=True, keep_only=keep_only)
    with tuner.hold():
        mixed, journal = _interleave(SCREENED, tuner, site, spec, lambda m: None, answers)
    assert mixed is not None and journal is not None
    return mixed


def test_screening_measures_each_rule_s_settings_alone_on_what_the_plan_moved(root, tmp_path):
    """optimize --screen: the rule whose setting the probe reads bought the gain; the other, on its
    own, is shown to move nothing (the probe has no spread: its interval is a point); and all
    settings end applied (nobody to ask)."""
    mixed = _screened(root, tmp_path)
    screened = {s.rule: s for s in mixed.screened}
    assert set(screened) == {"dirty-ratio-high", "read-ahead-small"}
    assert [r.verdict for r in screened["dirty-ratio-high"].rows] == ["better"]
    assert [r.verdict for r in screened["read-ahead-small"].rows] == ["~"]
    from nastune.report.effects import effects

    said = effects(mixed)
    assert "read-ahead-small (1 change) on its own: at most +0.0% on every metric the plan moved (margin 3%)" in said
    assert not [line for line in mixed.notes if "on its own" in line]  # said once, in the closing lines
    assert (root / SETTING).read_text().strip() == "10"  # every setting applied again after the screening
    assert (root / READ_AHEAD).read_text().strip() == "4096"
    assert mixed.idle == ["read-ahead-small"] and not mixed.dropped
    design = need(mixed.design)  # one design of 8 runs served both rules: each run measured once
    assert design.rules == ["dirty-ratio-high", "read-ahead-small"] and sorted(design.order) == list(range(8))
    assert design.values["probe @ " + str(tmp_path) + " MB/s"] == [110.0 if r[0] > 0 else 100.0 for r in design.runs]
    assert design.pairs["probe @ " + str(tmp_path) + " MB/s"] == [[100.0] * 5, [110.0] * 5]  # fitted with the runs


@pytest.mark.parametrize("how", ["--keep-only", "yes", "no"])
def test_the_rule_that_changed_nothing_alone_is_left_off_when_the_operator_says_so(root, tmp_path, how):
    """keep.json holds the settings of the rules that helped; --keep-only or a yes applies only
    those, a no applies all; --keep-only asks nothing."""
    answers = Answers(keep=how == "yes")
    mixed = _screened(root, tmp_path, keep_only=how == "--keep-only", answers=answers)
    kept = Plan.model_validate_json((tmp_path / "keep.json").read_text())
    assert [c.rule for c in kept.changes] == ["dirty-ratio-high"]
    assert (root / SETTING).read_text().strip() == "10"
    assert (root / READ_AHEAD).read_text().strip() == ("4096" if how == "no" else "128")
    assert mixed.dropped is (how != "no")
    assert answers.asked == ([] if how == "--keep-only" else ["keep dirty-ratio-high; drop read-ahead-small"])


def test_a_rule_is_offered_for_removal_only_when_its_effect_is_shown_small():
    """Offered: its interval lies below the margin (3%) on every metric moved. Kept: better on a
    metric, no verdict, or not resolved either way (an interval that reaches above the margin:
    absence of evidence). None offered when every rule would be: the plan moved something."""
    from nastune.jobs.keeping import decide
    from nastune.outcomes.screen import Screened
    from nastune.report.effects import rule_lines
    from nastune.stats.compare import compare
    from nastune.wire import Verdict

    def rule(name: str, b: list[float]) -> Screened:
        row = Verdict.of("w", "t", "m", "MB/s", True, None, compare([100, 101, 99, 100.5, 99.5], b))
        return Screened(rule=name, changes=1, rows=[row])

    same, better = [100.2, 100.8, 99.1, 100.4, 99.6], [130.0, 131.0, 129.0, 130.5, 129.5]
    wide = [96.0, 111.0, 100.0, 106.0, 99.0]
    assert rule("a", same).standing == "small" and rule("d", wide).standing == "unresolved"
    assert decide([rule("a", same), rule("b", same)], []) == (["a", "b"], [])
    unknown = Screened(rule="c", changes=1, stopped="its settings already read as planned")
    assert decide([rule("a", same), rule("b", better), unknown, rule("d", wide)], []) == (["b", "c", "d"], ["a"])
    said = rule_lines(rule("d", wide))[0]
    assert "not resolved, could be anywhere from" in said and "kept" in said


def test_a_gain_the_rules_one_by_one_do_not_explain_keeps_every_rule_that_reaches_it():
    """The first main job: +8% on the network that no rule's own effect explained, and the MTU and
    TCP buffers offered for removal. A rule shown small whose settings reach such a metric stays."""
    from nastune.jobs.keeping import decide
    from nastune.outcomes.optimize import Interleaved
    from nastune.outcomes.screen import Screened, summed
    from nastune.report import effects
    from nastune.report.effects import rule_lines
    from nastune.stats.compare import compare
    from nastune.stats.factorial import Together
    from nastune.wire import Verdict

    def small(name: str) -> Screened:
        row = Verdict.of("network", "t", "upload MB/s", "MB/s", True, None, compare([100] * 5, [100] * 5))
        return Screened(rule=name, changes=1, rows=[row])

    network = Together(bundle=0.08, own=0.01, rest=0.07, rest_ci=(0.04, 0.10), p=0.001)
    sums = [summed("network @ t upload MB/s", network, ["mtu-jumbo-frames"])]
    screened = [
        small("mtu-jumbo-frames"),
        small("smb-aio-off"),
        Screened(rule="ganesha-io-size-small", changes=1, stopped="x"),
    ]
    kept, offered = decide(screened, sums)
    assert offered == ["smb-aio-off"] and "mtu-jumbo-frames" in kept
    assert "not explained by the rules one by one" in rule_lines(screened[0])[0]
    assert any(
        "of which their own effects explain +1%" in line for line in effects.effects(Interleaved(rows=[], sums=sums))
    )


@pytest.mark.parametrize("persist", [None, True, False])
def test_the_end_asks_whether_to_persist_unless_told(root, tmp_path, persist):
    """Neither --persist nor --no-persist: the operator is asked, and a yes writes sysctl.d;
    --persist persists at apply and --no-persist leaves it, neither asking."""
    from rich.console import Console

    from nastune.jobs.offer import Choices
    from nastune.jobs.optimize import run

    plan_file = tmp_path / "plan.json"
    plan_file.write_text(SCREENED.to_json())
    site = ProbeSite(str(tmp_path), str(root), Probe(root))
    spec = OptimizeSpec(["probe"], {}, 5, tmp_path / "out", pairs=(5, 5), choices=Choices(plan_file), persist=persist)
    answers = Answers(persist=True)
    done = run(spec, site, Console(file=io.StringIO()), answers, lambda m: None)
    assert answers.asked == (["persist 2"] if persist is None else [])
    conf = root / "etc/sysctl.d/90-nastune.conf"
    assert ("vm.dirty_ratio = 10" in conf.read_text()) if persist is not False else not conf.exists()
    assert done.persisted is (persist is not False)
    assert (done.persisting is None) is (persist is not False)


class StillThere(Probe):
    """The probe on two targets: the setting moves the first, the second ("still") never moves."""

    def once(self, target, params, state):
        return {"MB/s": 100.0} if target.url.endswith("still") else super().once(target, params, state)


@dataclass
class TwoTargets(LiveSite):
    probe: Workload | None = None

    def pairs(self, target, names):
        return [
            (self.probe, Target("path", f"{self.target}/{end}", share=str(self.target))) for end in ("moved", "still")
        ]


def test_the_screening_measures_only_the_targets_the_plan_moved(root, tmp_path):
    site = TwoTargets(str(tmp_path), str(root), StillThere(root))
    tuner = site.tuner()
    spec = OptimizeSpec(["probe"], {}, 5, tmp_path, pairs=(5, 5), screen=True)
    with tuner.hold():
        mixed, _ = _interleave(SCREENED, tuner, site, spec, lambda m: None, Answers())
    design = need(need(mixed).design)
    assert list(design.values) == [f"probe @ {tmp_path}/moved MB/s"]  # the same workload elsewhere: not moved
