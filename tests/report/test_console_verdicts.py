"""The console's verdicts read at a glance: two lines a verdict when the table does not fit, an
interleaved run's sides called A and B, and a note that holds for many workloads said once."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from nastune.report import outcomes
from nastune.stats.runs import compare_runs
from tests.report.test_report import result_set


def _shown(rows, sides, width: int) -> str:
    out = io.StringIO()
    outcomes.verdicts(Console(file=out, width=width, color_system=None), rows, "ab", [], sides)
    return out.getvalue()


def test_a_narrow_console_gives_each_verdict_two_lines():
    rows, _ = compare_runs(result_set("before", 1.0), result_set("after", 1.2))
    shown = _shown(rows, ("A", "B"), 100).splitlines()
    assert len(shown) == 1 + 2 * len(rows)
    assert shown[1].startswith("- seq-write @ smb://nas/")
    assert " -> " in shown[1]
    assert shown[2].strip().startswith("+20.0% (")
    assert shown[2].rstrip().endswith(": better")


def test_a_wide_console_names_an_interleaved_run_s_sides_a_and_b():
    rows, _ = compare_runs(result_set("before", 1.0), result_set("after", 1.2))
    header = next(line for line in _shown(rows, ("A", "B"), 400).splitlines() if "workload" in line)
    assert " A " in header
    assert " B " in header
    assert "before" not in header


def test_a_link_limit_that_moved_for_every_workload_is_one_note():
    before, after = result_set("before", 1.0), result_set("after", 1.2)
    for rs, (limit, mtu) in ((before, (117.7, 1500)), (after, (123.8, 9000))):
        for r in rs.results:
            r.target.mtu = mtu
            for m in r.metrics.values():
                m.limit = limit
    _, notes = compare_runs(before, after)
    moved = [n for n in notes if "goodput limit moved" in n]
    assert moved == [
        f"the link's goodput limit moved 117.7 -> 123.8 MB/s with the MTU (1500 -> 9000) ({len(before.results)} workloads)"
    ]


def test_optimize_says_when_a_worse_verdict_left_the_settings_as_they_were(tmp_path):
    """Exit 1 (True) and no undo command: nothing is left applied but the plan's one-off actions."""
    from nastune.outcomes.optimize import Interleaved, OptimizeOutcome
    from nastune.tune.plan import Plan

    rows, _ = compare_runs(result_set("A", 1.0), result_set("B", 0.8))
    worse = [f"{r.workload} @ {r.target} {r.metric}" for r in rows if r.verdict == "worse"]
    assert worse
    mixed = Interleaved(rows=rows, pairs=5, withheld=worse)
    retry = f"nastune apply {tmp_path / 'settings.json'}"
    done = OptimizeOutcome(
        report=tmp_path / "report.html", plan=Plan(changes=[]), interleaved=mixed, withheld=worse, retry=retry
    )
    out = io.StringIO()
    assert outcomes.optimize(Console(file=out, width=200, color_system=None), done) is True
    shown = out.getvalue()
    assert f"Left as it was: the settings made {worse[0]}" in shown
    assert f"`{retry}` applies them all the same" in shown
    assert "Undo everything" not in shown


@pytest.mark.parametrize("dropped", [False, True])
def test_optimize_names_the_rules_shown_small_what_it_could_miss_and_how_to_leave_them_off(tmp_path, dropped):
    from nastune.jobs.keeping import Screened
    from nastune.outcomes.optimize import Interleaved, OptimizeOutcome
    from nastune.tune.plan import Plan
    from nastune.wire import Design

    rows, _ = compare_runs(result_set("A", 1.0), result_set("B", 1.2))
    mixed = Interleaved(rows=rows, pairs=5, idle=["read-ahead-small"], dropped=dropped)
    mixed.screened = [
        Screened(rule="dirty-ratio-high", changes=2, rows=rows),
        Screened(rule="read-ahead-small", changes=1, stopped="a reason"),
    ]
    mixed.design = Design(rules=["dirty-ratio-high", "read-ahead-small"], runs=[], order=[], values={})
    mixed.unseen, mixed.screen_runs = 0.094, 12
    keeping = "" if dropped else f"nastune rollback --journal J && nastune apply {tmp_path / 'keep.json'}"
    done = OptimizeOutcome(
        rows=rows, report=tmp_path / "report.html", plan=Plan(changes=[]), journal="J", undo="undo", interleaved=mixed
    )
    done.keeping = keeping
    out = io.StringIO()
    outcomes.optimize(Console(file=out, width=200, color_system=None), done)
    shown = out.getvalue().splitlines()
    said = "left off" if dropped else "kept, though shown below 3% on their own"
    assert f"Rules {said}: read-ahead-small" in shown
    assert "effects under 9% could go unseen here; --screen-runs 24 resolves smaller ones" in shown
    assert (f"Keep only what helped: {keeping}" in shown) is not dropped
    table = shown.index(next(line for line in shown if line.startswith("rule ")))
    assert shown[table + 1].startswith("dirty-ratio-high ") and "+20% seq-write smb" in shown[table + 1]
    assert "kept, no verdict: read-ahead-small" in shown


def test_a_transfer_below_the_link_with_no_limit_named_is_flagged_and_one_at_the_link_says_so():
    """After tuning, each throughput is at the link (said so) or has what limited it named; one
    that is neither is a gap the report owns up to."""

    from nastune.report import tables

    rows, _ = compare_runs(result_set("A", 1.0), result_set("B", 1.2))
    row = rows[0]
    key = f"{row.workload} @ {row.target}"
    at, below = (row.model_copy(update={"limit": row.after_median / share}) for share in (0.97, 0.7))
    assert tables.unexplained([at], {}) == []
    assert "at 97% of the link's goodput" in tables.moved([at])[0]
    (flagged,) = tables.unexplained([below], {})
    assert flagged.startswith(f"{key}: ") and "70% of the link's goodput, and nothing named" in flagged
    assert tables.unexplained([below], {key: ("", "the servers' CPU quota")}) == []


@pytest.mark.parametrize("persisting", ["nastune persist --journal J", None])
def test_settings_lost_at_reboot_get_the_command_that_keeps_them_or_why_there_is_none(tmp_path, persisting):
    from nastune.outcomes.optimize import OptimizeOutcome
    from nastune.tune.plan import Plan, PlannedChange

    change = PlannedChange(id=1, knob="sysctl", target="net.ipv4.tcp_slow_start_after_idle", current=1, new=0)
    done = OptimizeOutcome(
        report=tmp_path / "report.html", plan=Plan(changes=[change]), journal="J", undo="undo", site="the lab's NAS"
    )
    done.persisting = persisting
    out = io.StringIO()
    outcomes.closing(Console(file=out, width=300, color_system=None), done)
    shown = out.getvalue().splitlines()
    if persisting:
        assert f"Persist (1 settings are lost at reboot): {persisting}" in shown
    else:
        assert "Lost at reboot: 1 settings (the lab's NAS is gone at a reboot too)." in shown
    assert shown[-1] == "Undo everything: undo"


def test_the_answer_fits_30_lines_of_80_columns_without_a_word_cut(tmp_path):
    """A soho-sized run (every workload of the fixture moved, nine rules screened) reads in a
    minute: at most 30 lines, none wider than 80, every word whole (the long target names lose
    their host where one NAS serves them all)."""
    from nastune.jobs.keeping import Screened
    from nastune.outcomes.optimize import Interleaved, OptimizeOutcome
    from nastune.tune.plan import Plan

    rows, _ = compare_runs(result_set("A", 1.0), result_set("B", 1.2))
    rows = [r for r in rows if not r.workload.startswith("iozone")][:12]
    mixed = Interleaved(rows=rows, pairs=5, idle=["rule-3"], runs=[result_set("A", 1.0), result_set("B", 1.2)])
    alone = [Screened(rule=f"net-default-buffers-large-{n}", changes=2, rows=rows[:2]) for n in range(3)]
    unresolved = [Screened(rule=f"smb-socket-buffers-fixed-{n}", changes=1, stopped="no runs") for n in range(6)]
    mixed.screened, mixed.unseen, mixed.screen_runs = alone + unresolved, 0.094, 12
    undo = "nastune rollback --inventory /var/lib/nastune/lab/inventory.ini"
    once = rows[:3]  # the one-off actions' before and after (aged-read on soho)
    report = Path("nastune-optimize/report.html")  # as the main job names it: relative to where it runs
    done = OptimizeOutcome(rows=once, report=report, plan=Plan(changes=[]), journal="J", undo=undo, interleaved=mixed)
    out = io.StringIO()
    outcomes.optimize(Console(file=out, width=80, color_system=None), done)
    shown = out.getvalue().splitlines()
    assert len(shown) <= 30, "\n".join(shown)
    assert all(len(line) <= 80 for line in shown), max(shown, key=len)
    words = {w for line in shown for w in line.split()}
    assert "seq-write" in words and "smb" in words and "Undo" in words
    assert not any(len(w) > 3 and w[:-1] in words and w not in words for w in words)  # nothing like "bette"
