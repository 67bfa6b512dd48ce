"""A persisted sysctl that TuneD's active profile also sets: where TuneD applies /etc/sysctl.d
again after its own (reapply_sysctl, its default), sysctl.d keeps it; where it does not, a child
profile that includes the active one keeps it, made active; rollback puts every file back."""

from __future__ import annotations

from tests.conftest import run_cli
from tests.tune.conftest import CHANGES, snapshot, write_plan

PROFILE = "[main]\nsummary=Broadly applicable tuning for throughput\n\n[sysctl]\nvm.dirty_ratio = 40\n"
DIRTY, RMEM = CHANGES[0], CHANGES[1]  # vm.dirty_ratio, which the profile sets; tcp_rmem, which it does not


def _tuned(root, reapply: str | None) -> None:
    (root / "usr/lib/tuned/throughput-performance").mkdir(parents=True)
    (root / "usr/lib/tuned/throughput-performance/tuned.conf").write_text(PROFILE)
    (root / "etc/tuned").mkdir(parents=True, exist_ok=True)
    (root / "etc/tuned/active_profile").write_text("throughput-performance\n")
    (root / "etc/tuned/profile_mode").write_text("auto\n")
    if reapply is not None:
        (root / "etc/tuned/tuned-main.conf").write_text(f"daemon = 1\nreapply_sysctl = {reapply}\n")


def test_where_tuned_s_value_would_win_a_child_profile_keeps_it(root, tmp_path):
    assert DIRTY["target"] == "vm.dirty_ratio" and RMEM["target"] == "net.ipv4.tcp_rmem"
    _tuned(root, "0")
    before = snapshot(root)
    run_cli("apply", str(write_plan(tmp_path, [DIRTY, RMEM])), "--root", str(root), "--yes", "--persist")
    child = (root / "etc/tuned/nastune/tuned.conf").read_text()
    assert "include=throughput-performance\n" in child and "[sysctl]\nvm.dirty_ratio=10\n" in child
    assert "tcp_rmem" not in child  # TuneD does not set it: sysctl.d keeps it
    assert (root / "etc/sysctl.d/90-nastune.conf").read_text().endswith("net.ipv4.tcp_rmem = 4096 16384 6291456\n")
    assert (root / "etc/tuned/active_profile").read_text() == "nastune\n"
    assert (root / "etc/tuned/profile_mode").read_text() == "manual\n"  # else TuneD starts with its own pick
    run_cli("rollback", "--root", str(root))
    after = snapshot(root)
    assert {k: v for k, v in after.items() if not k.startswith("proc/")} == {
        k: v for k, v in before.items() if not k.startswith("proc/")
    }


def test_where_tuned_applies_sysctl_d_after_its_own_sysctl_d_keeps_it(root, tmp_path):
    _tuned(root, None)  # no tuned-main.conf: reapply_sysctl is on
    run_cli("apply", str(write_plan(tmp_path, [DIRTY])), "--root", str(root), "--yes", "--persist")
    assert (root / "etc/sysctl.d/90-nastune.conf").read_text().endswith("vm.dirty_ratio = 10\n")
    assert not (root / "etc/tuned/nastune").exists()
    assert (root / "etc/tuned/active_profile").read_text() == "throughput-performance\n"
