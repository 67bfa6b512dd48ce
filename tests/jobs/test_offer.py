"""The plan optimize offers an operator, on the captured soho lab: a one-off action only when
allowed by name or by answer (then bounded in time), the rules chosen with --only and --skip, an
edited plan used as it is, and a "no" that leaves every file of the system as it was."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from rich.console import Console

from nastune import rules
from nastune.facts import Reading
from nastune.jobs.offer import Choices, Declined, agreed, offered
from nastune.jobs.optimize import OptimizeSpec, run
from nastune.sites.live import LiveSite
from nastune.snapshot import open_root
from nastune.tune.plan import Plan, PlannedChange
from tests.conftest import ROOTS
from tests.jobs.conftest import Answers


@pytest.fixture(scope="module")
def soho(tmp_path_factory):
    """The captured soho lab, unpacked once, and its findings (fragmentation as recorded)."""
    with open_root(ROOTS / "lab-soho.tar.gz") as root:
        site = LiveSite(root=root.path)
        yield site, rules.evaluate(site.facts(Reading("exact")))


def kinds(plan: Plan) -> set[str]:
    return {c.knob for c in plan.changes}


def decided(choices: Choices, site, findings, answers: Answers) -> tuple[Plan, list[str]]:
    plan, left = offered(choices, site, findings, frozenset())
    return agreed(plan, left, 0, choices, answers)


def test_a_one_off_action_runs_only_when_allowed_and_for_the_time_allowed(soho):
    site, findings = soho
    plan, left = decided(Choices(), site, findings, Answers(action=False))
    assert "xfs_fsr" not in kinds(plan)
    assert any("--allow xfs_fsr" in why for why in left)
    allowed = Answers()
    plan, _ = decided(Choices(allow=["xfs_fsr"], action_seconds=600), site, findings, allowed)
    assert [c.new for c in plan.changes if c.knob == "xfs_fsr"] == [600]
    assert allowed.asked == []
    answered = Answers(action=True)
    plan, _ = decided(Choices(), site, findings, answered)
    assert "xfs_fsr" in kinds(plan)
    assert any(q.startswith("xfs_fsr ") for q in answered.asked)
    with pytest.raises(Declined):
        decided(Choices(), site, findings, Answers(plan=False))


def test_only_and_skip_choose_rules_and_say_what_was_left_out(soho):
    site, findings = soho
    plan, left = offered(Choices(only=["mtu-jumbo-frames"]), site, findings, frozenset())
    assert {c.rule for c in plan.changes} == {"mtu-jumbo-frames"}
    assert any("not chosen" in why for why in left)
    plan, _ = offered(Choices(skip=["mtu-jumbo-frames"]), site, findings, frozenset())
    assert plan.changes
    assert "mtu-jumbo-frames" not in {c.rule for c in plan.changes}
    with pytest.raises(ValueError, match="--only/--skip no-such-rule: no such rule"):
        offered(Choices(only=["no-such-rule"]), site, findings, frozenset())


def test_an_edited_plan_is_offered_as_it_is(soho, tmp_path):
    site, findings = soho
    edited = Plan(changes=[PlannedChange(id=1, knob="sysctl", target="net.ipv4.tcp_rmem", new="4096 87380 1048576")])
    path = tmp_path / "plan.json"
    path.write_text(edited.to_json())
    plan, _ = offered(Choices(plan_file=path), site, findings, frozenset())
    assert [(c.target, c.new) for c in plan.changes] == [("net.ipv4.tcp_rmem", "4096 87380 1048576")]


def tree_digest(top: Path) -> dict[str, str]:
    """Every file of the system but nastune's own lock (taken while the plan is made)."""
    files = [p for p in top.rglob("*") if p.is_file() and p.relative_to(top) != Path("var/lib/nastune/lock")]
    return {str(p.relative_to(top)): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


def test_no_to_the_plan_changes_nothing_and_keeps_the_plan(tmp_path):
    class Here(LiveSite):  # the tree measured at itself: nothing is measured before the answer
        def pairs(self, target, names):
            return []

    with open_root(ROOTS / "lab-soho.tar.gz") as root:
        before = tree_digest(Path(root.path))
        spec = OptimizeSpec(["seq-write"], {}, 3, tmp_path / "out", fragmentation="exact")
        answered = Answers(plan=False)
        with pytest.raises(Exception, match="nothing was changed; the plan is in"):
            run(spec, Here(target=root.path, root=root.path), Console(), answered)
        assert tree_digest(Path(root.path)) == before
    assert answered.asked
    assert json.loads((tmp_path / "out" / "plan.json").read_text())["changes"]
