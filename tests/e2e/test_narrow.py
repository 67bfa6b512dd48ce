"""On an 80-column terminal every table stays readable: nothing is cut down to an ellipsis (wide
tables are drawn one record at a time instead). The terminal is rich's TTY_COMPATIBLE (output
to a pipe or a file is a log, where lines are never wrapped), its styling codes stripped."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOTS, run_cli

TERMINAL = {"COLUMNS": "80", "TTY_COMPATIBLE": "1", "NO_COLOR": "1"}


def _shown(*args: str, check: bool = True) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", run_cli(*args, env=TERMINAL, check=check).stdout)


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (["inspect", "--root", str(ROOTS / "two-socket-numa.tar.gz")], "ens1f0"),
        (["inspect", "--root", str(ROOTS / "small-nas-raid5.tar.gz")], "enp1s0"),
        (["diagnose", "--root", str(ROOTS / "small-nas-raid5.tar.gz")], "smb-sync-always (data:sync always)"),
        (["explain"], "nfs-export-sync-mode"),
        (["bench", "list"], "seq-write"),
    ],
    ids=lambda a: "-".join(a[:1] + [a[-1].rsplit("/", 1)[-1]]) if isinstance(a, list) else "",
)
def test_tables_fit_80_columns_without_ellipses(args, shown):
    out = _shown(*args)
    assert "…" not in out
    assert max(len(line) for line in out.splitlines()) <= 80
    assert shown in out  # the table's content is there, not only its frame


def test_the_apply_diff_fits_80_columns(tmp_path):
    import tarfile

    root = tmp_path / "nas"
    with tarfile.open(ROOTS / "small-nas-raid5.tar.gz") as tar:
        tar.extractall(root, filter="data")
    plan = tmp_path / "plan.json"
    run_cli("plan", "--root", str(root), "--out", str(plan), env={"COLUMNS": "80"})
    out = _shown("apply", str(plan), "--root", str(root), "--dry-run", check=False)
    assert "…" not in out
    assert "stripe_cache_size" in out
    assert max(len(line) for line in out.splitlines()) <= 80
