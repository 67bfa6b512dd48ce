"""A failure nastune knows (bad input, a refused change) is one line naming what is wrong; anything
else is a bug in nastune: a one-line "internal error" that says to rerun with -v, and with -v its
traceback, so a genuine bug never hides behind a tidy message."""

from __future__ import annotations

from tests.conftest import ROOTS, run_cli

TREE = str(ROOTS / "small-nas-raid5.tar.gz")


def test_bad_input_is_one_line_naming_it_with_exit_2():
    done = run_cli("diagnose", "--root", TREE, "--only", "no-such-rule", check=False)
    assert done.returncode == 2
    assert done.stderr.startswith("error: unknown rule no-such-rule")
    assert "Traceback" not in done.stderr


def test_a_bug_is_an_internal_error_and_shows_its_traceback_with_v():
    bug = {"NASTUNE_RAISE_AT": "diagnose"}
    quiet = run_cli("diagnose", "--root", TREE, env=bug, check=False)
    assert quiet.returncode == 70
    assert "internal error: ValueError: not enough values to unpack (injected at diagnose)" in quiet.stderr
    assert "rerun with -v" in quiet.stderr
    assert "Traceback" not in quiet.stderr
    loud = run_cli("-v", "diagnose", "--root", TREE, env=bug, check=False)
    assert loud.returncode == 1
    assert "Traceback (most recent call last)" in loud.stderr
    assert "nastune/faults.py" in loud.stderr  # where it was raised


def test_commands_that_change_a_system_act_only_on_one_the_operator_named():
    """No default site: optimize and autotune without --lab, --live or --inventory build no lab and
    touch no host; they say what to name."""
    for command in ("optimize", "autotune"):
        done = run_cli(command, "--yes", check=False)
        assert done.returncode == 2, done.stderr
        assert "name the NAS: --inventory HOSTS.ini" in done.stderr, done.stderr


def test_ab_takes_an_inventory_like_optimize(tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text('{"schema": "nastune.plan/1", "changes": []}')
    done = run_cli("ab", str(plan), "--inventory", "/nonexistent/hosts.ini", "--yes", check=False)
    assert done.returncode == 2
    assert "/nonexistent/hosts.ini" in done.stderr
    assert "No such option" not in done.stderr


def test_optimize_refuses_a_profile_that_is_no_result_file_before_reading_anything(tmp_path):
    """--profile (a sustained write's run is the disks' rate the dirty-data rule sizes from): a bad
    file is named before the NAS is inspected or anything measured."""
    bad = tmp_path / "not-a-result.json"
    bad.write_text("{}")
    argv = ("optimize", "--live", "--target", str(tmp_path), "-w", "sustained-write", "--profile", str(bad), "--yes")
    done = run_cli(*argv, check=False)
    assert done.returncode == 2, done.stderr
    assert f"error: {bad}: not a nastune result file" in done.stderr
    assert "inspect:" not in done.stderr and "Traceback" not in done.stderr
