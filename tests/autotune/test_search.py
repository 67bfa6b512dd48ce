"""autotune end to end on a captured system's tree, measured for real at a local directory:
trials that cannot be applied are recorded as failed and leave nothing applied; a killed search
resumes and first rolls back what its killed trial had applied; the tree ends as it began; the
trials' plans are plans `apply --dry-run` accepts; bad requests are refused before any trial."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from nastune.autotune.space import build
from nastune.facts import collect
from nastune.root import Root
from tests.conftest import check_schema, extracted, run_cli

TINY = ["-w", "path:seq-write", "--repeats", "2", "--size", "4M", "--yes"]


@pytest.fixture
def soho(tmp_path):
    root = extracted("lab-soho", tmp_path / "root")
    data = tmp_path / "data"
    data.mkdir()
    return root, data


def state(root) -> dict[str, str]:
    """Every file of the tree but nastune's journals, whitespace-normalized (a restored sysctl
    reads back with spaces where the capture had tabs)."""
    return {
        str(p.relative_to(root)): " ".join(p.read_bytes().decode(errors="replace").split())
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and not p.is_symlink()
        and "var/lib/nastune/journal" not in str(p)
        and "var/lib/nastune/lock" not in str(p)
    }


def autotune(root, data, out, *extra, check=True):
    return run_cli(
        "autotune", "--live", "--root", str(root), "--target", str(data), "--out", str(out), *TINY, *extra, check=check
    )


def test_failed_trials_are_recorded_and_nothing_stays_applied(soho, tmp_path):
    root, data = soho
    before = state(root)
    out = tmp_path / "out"
    # the capture lacks smb.conf: every trial that turns Samba's aio on cannot be applied
    done = autotune(root, data, out, "--knobs", "nfs-transfer-size", "--knobs", "smb-aio", "--budget", "4")
    summary = check_schema(json.loads((out / "autotune.json").read_text()))
    trials = {t["number"]: t for t in summary["trials"]}
    assert trials[0]["origin"] == "current settings"
    assert trials[0]["value"] == 1.0
    assert trials[1]["origin"] == "rule-based plan"
    assert trials[1]["config"]["smb-aio"] == "on"
    assert trials[1]["state"] == "FAIL"
    assert "smb.conf" in trials[1]["why"]
    assert "nothing was changed" in trials[1]["why"]
    assert sum(t["state"] != "PRUNED" or not t["why"] for t in trials.values()) >= 4
    assert state(root) == before  # every trial rolled back
    # each trial measured says what it cost: its seconds, and how many of them went to measuring
    timed = [t for t in trials.values() if t["state"] != "PRUNED" or not t["why"]]
    assert all(0 <= t["measuring_seconds"] <= t["seconds"] for t in timed), timed
    assert trials[1]["measuring_seconds"] == 0
    assert f"trial 1: {trials[1]['seconds']:.0f} s" in done.stderr
    assert f"{len(timed)} trials, " in done.stdout
    assert " s measuring; medians)" in done.stdout
    assert (out / "report.html").exists()
    assert "The search" in (out / "report.html").read_text()
    assert ("beats the base" in done.stdout) == (summary["plan"] is not None)
    best = max((t for t in trials.values() if t["state"] == "COMPLETE"), key=lambda t: t["value"])
    assert f"autotune: finalists, best so far {best['value']:.3f}x (trial {best['number']})" in done.stderr
    # every measured configuration is a plan `apply` accepts
    space, _ = build(collect(Root(str(root))), ["nfs-transfer-size"], shared_kernel=False, accept_risk=frozenset())
    for t in trials.values():
        if t["state"] == "COMPLETE" and t["config"]["smb-aio"] == "off":
            plan = tmp_path / f"plan-{t['number']}.json"
            plan.write_text(space.plan({"nfs-transfer-size": t["config"]["nfs-transfer-size"]}).to_json())
            run_cli("apply", str(plan), "--root", str(root), "--dry-run")
    if summary["plan"]:
        run_cli("apply", summary["plan"], "--root", str(root), "--dry-run")
    # a finished study is not overwritten, and is resumed only with the same space
    again = autotune(root, data, out, "--knobs", "nfs-transfer-size", "--budget", "4", check=False)
    assert again.returncode == 1
    assert "exists: continue it with --resume" in again.stderr
    other = autotune(root, data, out, "--knobs", "nfs-transfer-size", "--budget", "4", "--resume", check=False)
    assert other.returncode == 1
    assert "searched another space or objective" in other.stderr
    assert state(root) == before


def test_a_killed_search_resumes_after_rolling_back_its_killed_trial(soho, tmp_path):
    root, data = soho
    before = state(root)
    out = tmp_path / "out"
    args = ["--knobs", "nfs-transfer-size", "--knobs", "tcp-buffer-max", "--budget", "3"]
    argv = [
        sys.executable,
        "-m",
        "nastune",
        "autotune",
        "--live",
        "--root",
        str(root),
        "--target",
        str(data),
        "--out",
        str(out),
        *TINY,
        *args,
    ]
    proc = subprocess.Popen(
        argv,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        start_new_session=True,
    )
    for line in proc.stderr or ():  # the rule-based plan's trial has applied its changes and is measuring
        if "trial 1 (rule-based plan)" in line:
            break
    for line in proc.stderr or ():
        if "seq-write" in line or "ganesha: not reloaded" in line:
            break
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert state(root) != before  # killed with the trial applied
    resumed = autotune(root, data, out, *args, "--resume")
    assert "rolling back the killed trial's changes" in resumed.stderr
    trials = json.loads((out / "autotune.json").read_text())["trials"]
    killed = [t for t in trials if t["why"] == "killed while running; rolled back on resume"]
    assert len(killed) == 1
    assert killed[0]["state"] == "FAIL"
    assert sum(1 for t in trials if t["state"] in ("COMPLETE", "PRUNED", "FAIL")) >= 3
    assert state(root) == before


def test_without_a_proven_winner_the_rule_based_plan_stands_unless_it_measured_worse(soho, tmp_path):
    """At a directory Ganesha's transfer size changes nothing: the plan's trial measures about
    the base; a plan is written only when it did not measure worse (or a winner was proven)."""
    root, data = soho
    out = tmp_path / "out"
    done = autotune(root, data, out, "--knobs", "nfs-transfer-size", "--budget", "2")
    summary = json.loads((out / "autotune.json").read_text())
    rule = next(t for t in summary["trials"] if t["origin"] == "rule-based plan")
    assert rule["state"] == "COMPLETE"
    assert rule["config"] == {"nfs-transfer-size": 1 << 20}
    if "beats the base" not in done.stdout:
        assert (summary["plan"] is not None) == (rule["value"] >= 1.0)
        assert ("the rule-based plan (trial 1" in done.stdout) == (rule["value"] >= 1.0)
    if summary["plan"]:
        assert summary["best"] == {"nfs-transfer-size": 1 << 20}
        run_cli("apply", summary["plan"], "--root", str(root), "--dry-run")


def test_a_current_value_off_the_domain_s_steps_is_the_base_as_it_is(soho, tmp_path):
    """The capture's data device reads ahead 2560 KiB, between two powers of two: trial 0
    measures it as it is (nothing applied), not the nearest power of two that stands for it in
    the sampler's model; the others search around it, and the tree ends as it began."""
    root, data = soho
    before = state(root)
    out = tmp_path / "out"
    done = autotune(root, data, out, "--knobs", "read-ahead", "--budget", "3")
    trials = {t["number"]: t for t in json.loads((out / "autotune.json").read_text())["trials"]}
    assert trials[0]["config"] == {"read-ahead": 2560}
    assert trials[0]["state"] == "COMPLETE"
    assert "trial 0 (current settings): as it is" in done.stderr
    searched = [t["config"]["read-ahead"] for n, t in trials.items() if n > 0 and t["config"]]
    assert all(v & (v - 1) == 0 for v in searched if v != 2560), searched  # the search's own: powers of two
    assert state(root) == before


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--objective", "smb seq-write"], "cannot read 'smb seq-write'"),
        (["--objective", "path:seq-write where path:seq-write < 5"], "must name a metric"),
        (["--knobs", "raid-chunk"], "unknown tunable 'raid-chunk'"),
        (["--knobs", "dirty-ratio"], "trades durability (needs --accept-risk durability)"),
        (["--resume"], "no study in"),
    ],
)
def test_bad_requests_are_refused_before_any_trial(soho, tmp_path, extra, message):
    root, data = soho
    before = state(root)
    refused = autotune(root, data, tmp_path / "out", *extra, check=False)
    assert refused.returncode in (1, 2), refused.stderr
    assert message in " ".join(refused.stderr.split()), refused.stderr
    assert "Traceback" not in refused.stderr
    assert state(root) == before


def test_the_rule_based_plan_is_a_finalist_even_when_its_trial_ranked_lower():
    """The search's best displace the rule plan only by measuring better beside it."""
    from optuna.distributions import IntDistribution
    from optuna.trial import create_trial

    from nastune.autotune.trials import choose_finalists

    current, rule = {"x": 0}, {"x": 1}
    moves = lambda config: config != current

    def trial(number, value, config, origin="search"):
        made = create_trial(
            value=value,
            params={"x": config["x"]},
            distributions={"x": IntDistribution(0, 9)},
            user_attrs={"config": config, "origin": origin},
        )
        made.number = number
        return made

    done = [trial(1, 1.01, rule, "rule-based plan")] + [trial(n, 1.0 + n / 10, {"x": n}) for n in range(2, 6)]
    assert [t.number for t in choose_finalists(done, 3, moves)] == [5, 4, 3, 1]
    assert [t.number for t in choose_finalists(done, 5, moves)] == [5, 4, 3, 2, 1]
    # a rule plan that changes nothing is the base itself: it is not measured twice
    done[0] = trial(1, 1.01, current, "rule-based plan")
    assert [t.number for t in choose_finalists(done, 3, moves)] == [5, 4, 3]


def test_a_trial_whose_rollback_fails_stops_the_search_naming_the_system(soho, tmp_path):
    """Trial 1 (the rule-based plan) fails half-way and its automatic rollback cannot restore the
    first change: the search stops there, never measuring on from a base that is not the base."""
    import time

    root, data = soho
    out = tmp_path / "out"
    conf = root / "var/lib/nastune/lab/ganesha.conf"
    args = ["--knobs", "nfs-transfer-size", "--budget", "4"]
    resume = tmp_path / "resume"  # held until the file is broken, however busy the machine
    # the plan's five sysctls beside the search come first: change 7 is the export's second
    env = {"NASTUNE_PAUSE_AT": "apply:7:journaled:600", "NASTUNE_RESUME_FILE": str(resume)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "nastune", "autotune", "--live", "--root", str(root), "--target", str(data)]
        + ["--out", str(out), *TINY, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200", **env},
    )
    journals = root / "var/lib/nastune/journal"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and not any('"seq": 7' in j.read_text() for j in journals.glob("*.jsonl")):
        time.sleep(0.05)
    kept = conf.read_bytes()
    conf.unlink()
    conf.mkdir()  # change 7 cannot be written, nor change 6 put back
    resume.touch()
    stdout, stderr = proc.communicate(timeout=600)
    text = " ".join((stdout + stderr).split())
    assert proc.returncode == 1, text[-2000:]
    assert "Traceback" not in text, text[-2000:]
    assert "the search stops rather than go on from a changed base" in text
    assert "the tree" in text
    assert "NOT restored" in text
    assert "by hand" in text
    summary = out / "autotune.json"
    assert not summary.exists() or all(t["number"] <= 1 for t in json.loads(summary.read_text())["trials"])
    conf.rmdir()
    conf.write_bytes(kept)


def test_every_trial_but_the_base_makes_the_plan_s_changes_no_tunable_searches(soho, tmp_path):
    """Searching the transfer size alone, trial 1 is the whole rule-based plan (its dirty ratios
    journaled beside the export's sizes); the changes this tree cannot take (no smb.conf) are left
    out, named, rather than failing every trial; trial 0 stays the system as it is."""
    root, data = soho
    before = state(root)
    out = tmp_path / "out"
    done = autotune(root, data, out, "--knobs", "nfs-transfer-size", "--budget", "3")
    assert "every trial also makes: sysctl vm.dirty_ratio: 20 -> 5 (rule vm-dirty-writeback" in done.stderr
    assert "left out of every trial: samba global aio read size: cannot read" in done.stderr
    assert "trial 0 (current settings): as it is" in done.stderr
    assert "trial 1 (rule-based plan): nfs-transfer-size=1048576, the plan's 6 other changes" in done.stderr
    summary = json.loads((out / "autotune.json").read_text())
    trials = {t["number"]: t for t in summary["trials"]}
    assert trials[1]["state"] == "COMPLETE"
    assert "sysctl vm.dirty_ratio: 20 -> 5" in summary["beside"]
    assert len(summary["beside"]) == 6
    assert "on top of the plan's 6 changes no tunable searches" in done.stdout
    assert "no tunable searches: sysctl vm.dirty_ratio" in (out / "report.html").read_text()
    journals = sorted((root / "var/lib/nastune/journal").glob("*.jsonl"))
    first = journals[0].read_text()  # trial 1's: the base applies nothing
    assert "vm.dirty_ratio" in first
    assert "MaxRead" in first
    assert state(root) == before
