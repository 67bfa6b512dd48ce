"""The plan as optimize shows it before asking: one line per setting (a long name folds), a count
and how many settings a reboot loses in the title, each setting's rule where the screen is wide."""

from __future__ import annotations

import io

from rich.console import Console

from nastune.report import tune_view
from nastune.tune.plan import load
from nastune.tune.review import Review
from tests.tune.conftest import CHANGES, write_plan


def shown(tmp_path, width: int) -> list[str]:
    changes = [CHANGES[0], CHANGES[7], CHANGES[9], {**CHANGES[12], "rule": "nfs-client-rsize-small"}]
    console = Console(width=width, record=True, file=io.StringIO())
    tune_view.review(console, Review.of(load(write_plan(tmp_path, changes)), []))
    return console.export_text().splitlines()


def test_a_line_a_setting_with_the_count_and_what_a_reboot_loses(tmp_path):
    lines = shown(tmp_path, 140)
    assert lines[0].strip() == "The plan: 4 settings, 2 lost at reboot unless persisted"
    rows = [line.split() for line in lines[2:6]]
    assert [(r[0], r[-2]) for r in rows] == [("1", "lost"), ("2", "lost"), ("3", "kept"), ("4", "kept")]
    assert rows[3][-1] == "nfs-client-rsize-small"
    assert "sysctl vm.dirty_ratio" in lines[2] and "(absent) -> 10" in lines[2]  # the plan says no "current"


def test_a_narrow_screen_keeps_the_settings_and_leaves_the_rules_out(tmp_path):
    lines = shown(tmp_path, 80)
    assert "rule" not in lines[1]
    assert not any("nfs-client-rsize-small" in line for line in lines)
    assert [line.split()[0] for line in lines[2:] if line[:1].isdigit()] == ["1", "2", "3", "4"]


def test_an_80_column_log_never_cuts_a_setting_s_name(tmp_path):
    """The main job's plan printed to a log cut net.ipv4.tcp_slow_start_after_idle into
    "...after_idl" and "e": a column is as wide as its longest word, and rows wrap between words."""
    changes: list[dict] = [
        {"knob": "sysctl", "target": "net.ipv4.tcp_slow_start_after_idle", "new": 0, "current": 1},
        {"knob": "sysctl", "target": "net.ipv4.tcp_rmem", "new": "4096 16384 6291456", "current": "4096 16384 65536"},
        {"knob": "mount_option", "target": "/var/lib/nastune/lab/mnt", "key": "noatime", "new": "noatime"},
    ]
    console = Console(width=80, record=True, file=io.StringIO())
    tune_view.review(console, Review.of(load(write_plan(tmp_path, changes)), []))
    words = {w for line in console.export_text().splitlines() for w in line.split()}
    assert {"net.ipv4.tcp_slow_start_after_idle", "/var/lib/nastune/lab/mnt", "6291456"} <= words
