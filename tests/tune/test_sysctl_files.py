"""Persisting a sysctl where another boot-time file would override it is refused, by
sysctl.d(5)'s order: names sort across directories, /etc hides a same-named vendor file, and
/etc/sysctl.conf comes last."""

from __future__ import annotations

from nastune.root import Root
from nastune.tune.persist import SYSCTL
from nastune.tune.sysctl_files import files, overridden
from nastune.tune.system import System


def _system(tmp_path, tree: dict[str, str]) -> System:
    for path, text in tree.items():
        target = tmp_path / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return System(root=Root(str(tmp_path)))


def test_the_order_is_by_name_across_directories_with_etc_hiding_vendor_files(tmp_path):
    system = _system(
        tmp_path,
        {
            "/usr/lib/sysctl.d/50-default.conf": "net.core.rmem_max = 1\n",
            "/usr/lib/sysctl.d/95-vendor.conf": "net.core.rmem_max = 2\n",
            "/etc/sysctl.d/95-vendor.conf": "# masked by the admin\n",
            "/run/sysctl.d/10-early.conf": "",
            "/etc/sysctl.conf": "",
        },
    )
    assert files(system, SYSCTL) == [
        "/run/sysctl.d/10-early.conf",
        "/usr/lib/sysctl.d/50-default.conf",
        SYSCTL,
        "/etc/sysctl.d/95-vendor.conf",
        "/etc/sysctl.conf",
    ]
    assert overridden(system, SYSCTL, ["net.core.rmem_max"]) == []  # only an earlier file sets it


def test_a_later_file_or_sysctl_conf_that_sets_the_key_is_named(tmp_path):
    system = _system(
        tmp_path,
        {
            "/usr/lib/sysctl.d/99-tuned.conf": "-net/core/rmem_max=212992\n",
            "/etc/sysctl.conf": "; comment\n#vm.dirty_ratio = 5\nvm.dirty_ratio = 20\n",
        },
    )
    why = overridden(system, SYSCTL, ["net.core.rmem_max", "vm.dirty_ratio", "vm.swappiness"])
    assert why == [
        f"net.core.rmem_max: /usr/lib/sysctl.d/99-tuned.conf line 1 sets it to 212992 and is read after {SYSCTL} "
        "at boot",
        f"vm.dirty_ratio: /etc/sysctl.conf line 3 sets it to 20 and is read after {SYSCTL} at boot",
    ]


def test_apply_persist_refuses_a_sysctl_a_later_file_overrides_and_changes_nothing(root, tmp_path):
    from tests.conftest import run_cli
    from tests.tune.conftest import snapshot, write_plan

    (root / "etc/sysctl.conf").write_text("vm.dirty_ratio = 30\n")
    before = snapshot(root)
    plan = write_plan(tmp_path, [{"knob": "sysctl", "target": "vm.dirty_ratio", "new": 10}])
    refused = run_cli("apply", str(plan), "--root", str(root), "--yes", "--persist", check=False)
    assert refused.returncode != 0
    assert "Traceback" not in refused.stderr
    assert "/etc/sysctl.conf line 1 sets it to 30" in " ".join(refused.stderr.split())
    assert snapshot(root) == before
    run_cli("apply", str(plan), "--root", str(root), "--yes")  # without --persist it applies
    assert (root / "proc/sys/vm/dirty_ratio").read_text().strip() == "10"
