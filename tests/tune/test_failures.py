"""The tuning engine's failure paths (issue 23): two applies racing, a disk that fills at every
step, a rollback that cannot restore, a journal cut short or edited, and apply then rollback
byte for byte on every fixture tree."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

from tests.conftest import ROOTS, run_cli
from tests.tune.conftest import CHANGES, applied, rolled_back, snapshot, write_plan

# these tests change this host and take its tuning lock (/var/lib/nastune/lock): run one at a time
pytestmark = pytest.mark.host

FILE_CHANGES = [CHANGES[0], CHANGES[1], CHANGES[4], CHANGES[8], CHANGES[10], CHANGES[12]]  # sysctl x2, sysfs, files


def _journals(root: Path) -> list[Path]:
    return sorted((root / "var/lib/nastune/journal").glob("*.jsonl"))


def _leftovers(root: Path) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.name.endswith(".nastune-tmp") or ".nastune-check-" in p.name]


def _spawn(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "nastune", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "COLUMNS": "200", **(env or {})},
    )


def test_two_applies_racing_never_leave_a_rollback_that_restores_nothing(root, tmp_path):
    """The second apply waits for nothing: it reads the plan only under the lock, so it either
    is refused (the first holds the lock) or finds nothing to change and writes no journal."""
    before = snapshot(root)
    plan = write_plan(tmp_path, FILE_CHANGES[:3])
    for trial in range(6):
        env = {"NASTUNE_PAUSE_AT": f"apply:{1 + trial % 3}:written:0.3"}
        first = _spawn("apply", str(plan), "--root", str(root), "--yes", env=env)
        time.sleep(0.05 * trial)
        second = _spawn("apply", str(plan), "--root", str(root), "--yes")
        outs = [p.communicate(timeout=120) for p in (first, second)]
        codes = sorted(p.returncode for p in (first, second))
        assert codes in ([0, 0], [0, 1]), outs
        assert all("Traceback" not in o + e for o, e in outs)
        with_changes = [j for j in _journals(root) if '"state": "applied"' in j.read_text().replace('":"', '": "')]
        assert len(_journals(root)) == len(with_changes)  # no empty journal
        undone = run_cli("rollback", "--root", str(root))
        assert "rolled back 3 change(s)" in undone.stdout
        assert _journals(root)[-1].name in undone.stdout
        assert snapshot(root) == before


def test_rollback_says_so_when_the_journal_it_finds_restores_nothing_but_another_holds_changes(root, tmp_path):
    run_cli("apply", str(write_plan(tmp_path, FILE_CHANGES[:1])), "--root", str(root), "--yes")
    run_cli("apply", str(write_plan(tmp_path, FILE_CHANGES[1:2], "b.json")), "--root", str(root), "--yes")
    older, newer = _journals(root)
    run_cli("rollback", "--root", str(root), "--to", f"/var/lib/nastune/journal/{newer.name}")
    again = run_cli("rollback", "--root", str(root), check=False)
    assert again.returncode == 1
    assert newer.name in again.stdout
    assert f"{older.name} still holds applied changes" in " ".join(again.stderr.split())
    run_cli("rollback", "--root", str(root), "--to", f"/var/lib/nastune/journal/{older.name}")


def test_a_journal_cut_at_a_line_boundary_is_not_taken_for_a_complete_one(root, tmp_path):
    before = snapshot(root)
    run_cli("apply", str(write_plan(tmp_path, FILE_CHANGES[:3])), "--root", str(root), "--yes")
    (journal,) = _journals(root)
    lines = journal.read_text().splitlines(keepends=True)
    first_applied = next(i for i, line in enumerate(lines) if '"seq": 1' in line and '"applied"' in line)
    journal.write_text("".join(lines[: first_applied + 1]))  # changes 2 and 3 lost whole lines
    cut = run_cli("rollback", "--root", str(root), check=False)
    out = " ".join((cut.stdout + cut.stderr).split())
    assert cut.returncode == 1
    assert "Traceback" not in out
    assert "sysctl net.ipv4.tcp_rmem: NOT restored" in out or "sysctl net.ipv4.tcp_rmem (the journal ends" in out
    assert "cut short" in out
    assert "read_ahead_kb" in out
    after = snapshot(root)
    assert after["proc/sys/vm/dirty_ratio"] == before["proc/sys/vm/dirty_ratio"]  # what it knew, it restored


def test_a_journal_entry_may_only_name_the_files_of_its_own_change(root, tmp_path):
    run_cli("apply", str(write_plan(tmp_path, [CHANGES[8]])), "--root", str(root), "--yes")
    (journal,) = _journals(root)
    decoy = root / "srv/other/smb.conf"
    decoy.parent.mkdir(parents=True)
    decoy.write_text("untouched\n")
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    for entry in lines:
        if entry.get("before", {}).get("files"):
            entry["before"]["files"] = {"/srv/other/smb.conf": "pwned\n"}
    journal.write_text("".join(json.dumps(e) + "\n" for e in lines))
    refused = run_cli("rollback", "--root", str(root), check=False)
    assert refused.returncode == 1
    assert "this change does not edit: refused" in " ".join(refused.stdout.split())
    assert decoy.read_text() == "untouched\n"


def test_a_failed_apply_whose_rollback_fails_exits_3_naming_what_is_still_applied(root, tmp_path):
    plan = write_plan(tmp_path, [CHANGES[0], CHANGES[4]])  # the sysctl first, then read_ahead_kb
    resume = tmp_path / "resume"  # held until the files are broken, however busy the machine
    held = {"NASTUNE_PAUSE_AT": "apply:2:journaled:600", "NASTUNE_RESUME_FILE": str(resume)}
    applying = _spawn("apply", str(plan), "--root", str(root), "--yes", env=held)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any('"seq": 2' in j.read_text() for j in _journals(root)):
        time.sleep(0.05)
    for path in ("proc/sys/vm/dirty_ratio", "sys/block/sda/queue/read_ahead_kb"):  # neither can be written now
        (root / path).unlink()
        (root / path).mkdir()
    resume.touch()
    out, errors = applying.communicate(timeout=600)
    text = " ".join((out + errors).split())
    assert applying.returncode == 3, text
    assert "Traceback" not in text, text
    assert "could NOT restore everything" in text
    assert "sysctl vm.dirty_ratio" in text
    assert "by hand" in text
    assert "changes[1] (sysfs /sys/block/sda/queue/read_ahead_kb)" in text  # the change that failed, by index


def test_a_config_file_that_cannot_be_written_is_an_error_naming_the_change_and_the_file(root, tmp_path):
    before = snapshot(root)
    (root / "etc/ganesha").chmod(0o500)
    plan = write_plan(tmp_path, [CHANGES[0], CHANGES[10]])
    try:
        immutable = subprocess.run(["chattr", "+i", str(root / "etc/ganesha")], capture_output=True)
        if os.geteuid() == 0 and immutable.returncode:  # root writes through modes: it needs the flag
            pytest.skip("no chattr on this file system")
        failed = run_cli("apply", str(plan), "--root", str(root), "--yes", check=False)
    finally:
        subprocess.run(["chattr", "-i", str(root / "etc/ganesha")], capture_output=True)
        (root / "etc/ganesha").chmod(0o755)
    text = " ".join((failed.stdout + failed.stderr).split())
    assert failed.returncode == 1, text
    assert "Traceback" not in text, text
    assert "changes[1] (ganesha_export 1 MaxRead)" in text
    assert "every change was undone" in text
    assert snapshot(root) == before
    assert not _leftovers(root)


def _tmpfs(directory: Path, size: str) -> None:
    directory.mkdir(parents=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "nastune-test", str(directory)], check=True)


@pytest.fixture
def small_disk(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root")
    disk = tmp_path / "disk"
    _tmpfs(disk, "4m")
    yield disk
    subprocess.run(["umount", "-l", str(disk)], check=False)


def test_a_disk_that_fills_at_any_step_of_apply_leaves_every_original_restored(root, tmp_path, small_disk):
    shutil.copytree(root, small_disk / "root")
    tree = small_disk / "root"
    before = snapshot(tree)
    plan = write_plan(tmp_path, FILE_CHANGES)
    points = [f"apply:{n}:{where}" for n in range(1, len(FILE_CHANGES) + 1) for where in ("journaled", "written")]
    for point in points:
        env = {"NASTUNE_FILL_AT": f"{point}:{small_disk}"}
        done = run_cli("apply", str(plan), "--root", str(tree), "--yes", check=False, env=env)
        text = " ".join((done.stdout + done.stderr).split())
        (small_disk / ".nastune-fill").unlink(missing_ok=True)
        assert "Traceback" not in text, (point, text)
        if done.returncode == 0:  # the fill came after the last write that needed room
            run_cli("rollback", "--root", str(tree))
        else:
            assert done.returncode == 1, (point, text)
            assert "every change was undone" in text, (point, text)
        assert snapshot(tree) == before, point
        assert not _leftovers(tree), point
    # a disk already too full is refused before anything is written, naming the file system
    (small_disk / ".nastune-fill").write_bytes(b"\0" * (small_disk.stat().st_size or 0))
    with open(small_disk / ".nastune-fill", "ab") as filler:
        try:
            while True:
                filler.write(b"\0" * 65536)
                filler.flush()
        except OSError:
            pass
    refused = run_cli("apply", str(plan), "--root", str(tree), "--yes", check=False)
    assert refused.returncode == 1
    assert "nothing was changed" in refused.stderr
    assert "free" in refused.stderr
    assert snapshot(tree) == before


@pytest.mark.parametrize("name", sorted(p.name.removesuffix(".tar.gz") for p in ROOTS.glob("*.tar.gz")))
def test_apply_then_rollback_is_byte_identical_on_every_fixture_tree(name, tmp_path):
    tree = tmp_path / "root"
    with tarfile.open(ROOTS / f"{name}.tar.gz") as tar:
        tar.extractall(tree, filter="data")
    pristine = tmp_path / "pristine"
    shutil.copytree(tree, pristine, symlinks=True)
    plan_file = tmp_path / "plan.json"
    run_cli("plan", "--root", str(tree), "--out", str(plan_file))
    plan = json.loads(plan_file.read_text())
    from nastune.tune import executor
    from nastune.tune.plan import load
    from nastune.tune.system import for_root

    rows = executor.diff(load(plan_file), for_root(str(tree)))  # what a tree can take: no remounts, no ethtool
    plan["changes"] = [plan["changes"][r.index] for r in rows if not r.error]
    plan_file.write_text(json.dumps(plan))
    if not plan["changes"]:
        pytest.skip(f"{name}: no change a tree can take")
    run_cli("apply", str(plan_file), "--root", str(tree), "--yes", "--accept-risk", "durability")
    run_cli("rollback", "--root", str(tree))
    shutil.rmtree(tree / "var/lib/nastune")  # the journal and the lock: nastune's own
    for made in ("var/lib", "var"):  # the directories that held them, when nastune made them
        if not (pristine / made).exists() and not any((tree / made).iterdir()):
            (tree / made).rmdir()
    if (pristine / "var/lib/nastune").exists():
        shutil.copytree(pristine / "var/lib/nastune", tree / "var/lib/nastune", symlinks=True)
    diff = subprocess.run(["diff", "-r", "--no-dereference", str(pristine), str(tree)], capture_output=True, text=True)
    assert diff.returncode == 0, diff.stdout[-2000:]


@pytest.fixture
def xfs_mount(tmp_path):
    if os.geteuid() != 0 or not shutil.which("mkfs.xfs"):
        pytest.skip("a loop-mounted XFS needs root and xfsprogs")
    image, mnt = tmp_path / "xfs.img", tmp_path / "mnt"
    with open(image, "wb") as f:
        f.truncate(320 << 20)
    subprocess.run(["mkfs.xfs", "-q", str(image)], check=True)
    mnt.mkdir()
    subprocess.run(["mount", "-o", "loop,relatime", str(image), str(mnt)], check=True)
    yield mnt
    subprocess.run(["umount", str(mnt)], check=False)


def test_a_remounted_atime_option_is_restored_on_the_real_kernel(xfs_mount, tmp_path):
    """mount(8) merges a remount's options with the mount's own and the kernel lets noatime win,
    so `remount,relatime` alone left a noatime mount as it was (autotune's stranded trial)."""
    from nastune.root import Root
    from nastune.tune.journal import Journal
    from nastune.tune.plan import Plan
    from nastune.tune.system import System

    def atime() -> str:
        options = next(
            line.split()[3] for line in Path("/proc/self/mounts").read_text().splitlines() if str(xfs_mount) in line
        )
        return next((o for o in options.split(",") if o in ("noatime", "relatime")), "strictatime")

    system = System(root=Root("/"), state_dir=str(tmp_path / "state"))  # its journal in tmp_path, not /var/lib
    change = {"id": 1, "knob": "mount_option", "target": str(xfs_mount), "key": "noatime", "new": "noatime"}
    plan = Plan.model_validate({"schema": "nastune.plan/1", "lab": False, "changes": [change]})
    journal = applied(plan, system, log=lambda m: None)
    assert journal is not None
    assert atime() == "noatime"
    report = rolled_back(Journal.at(system, journal.path), system, log=lambda m: None)
    assert report.ok
    assert report.restored == 1
    assert atime() == "relatime"
