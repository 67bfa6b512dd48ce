"""Rollback never strands a system: it restores every entry it can, goes past the ones it
cannot (naming each with the command that restores it by hand), never restores a value read
from nowhere, writes only the files a change edits; apply refuses a plan it cannot finish on
this system before writing anything; one lock keeps two processes apart."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tarfile
import time

import pytest

from nastune.root import Root
from nastune.tune import lock
from nastune.tune.journal import Journal
from nastune.tune.knobs import KNOBS
from nastune.tune.knobs.base import Knob
from nastune.tune.plan import PlannedChange, load
from nastune.tune.rollback import _restore_value
from nastune.tune.system import System, TuneError
from tests.conftest import ROOTS, need, run_cli
from tests.tune.conftest import CHANGES, applied, rolled_back, snapshot, write_plan


def test_a_plan_with_a_change_this_system_cannot_make_is_refused_before_any_write(tmp_path):
    # The first version wrote 8 changes to this RAID5 NAS tree, failed at the remount, and
    # could restore none of them.
    root = tmp_path / "nas"
    with tarfile.open(ROOTS / "small-nas-raid5.tar.gz") as tar:
        tar.extractall(root, filter="data")
    plan = tmp_path / "plan.json"
    run_cli("plan", "--root", str(root), "--out", str(plan))
    assert any(c["knob"] == "mount_option" for c in json.loads(plan.read_text())["changes"])
    before = snapshot(root)
    refused = run_cli("apply", str(plan), "--root", str(root), "--yes", "--accept-risk", "durability", check=False)
    assert refused.returncode != 0
    assert "Traceback" not in refused.stderr
    assert "nothing was changed" in refused.stderr
    assert "mount_option /srv/data noatime: needs a live system" in " ".join(refused.stderr.split())
    assert "changes[" in refused.stderr
    assert snapshot(root) == before
    assert not (root / "var/lib/nastune/journal").exists() or not list((root / "var/lib/nastune/journal").iterdir())


def test_rollback_goes_past_an_entry_it_cannot_restore_and_names_it(root, tmp_path):
    changes = [CHANGES[0], CHANGES[4], CHANGES[8]]  # sysctl, read_ahead_kb, samba
    plan_file = write_plan(tmp_path, changes)
    before = snapshot(root)
    run_cli("apply", str(plan_file), "--root", str(root), "--yes")
    read_ahead = root / "sys/block/sda/queue/read_ahead_kb"
    read_ahead.unlink()
    read_ahead.mkdir()  # the restore target is now something rollback cannot write
    stuck = run_cli("rollback", "--root", str(root), check=False)
    assert stuck.returncode == 1
    assert "Traceback" not in stuck.stderr
    out = " ".join(stuck.stdout.split())
    assert "sysfs /sys/block/sda/queue/read_ahead_kb: NOT restored" in out
    # in a tree a kernel value is a file, journaled whole: it is put back by copying its backup
    assert re.search(r"by hand: cp \S+\.files/2-\w+-read_ahead_kb /sys/block/sda/queue/read_ahead_kb", out), out
    assert "is a directory" in out.lower()
    assert "Errno" not in out
    assert "None" not in out
    after = snapshot(root)  # the others were restored all the same, newest first, byte for byte
    assert after["proc/sys/vm/dirty_ratio"] == before["proc/sys/vm/dirty_ratio"]
    assert after["etc/samba/smb.conf"] == before["etc/samba/smb.conf"]
    read_ahead.rmdir()
    read_ahead.write_text("4096\n")  # repaired by hand: a second rollback finishes the job
    done = run_cli("rollback", "--root", str(root))
    assert "rolled back 1 change(s)" in done.stdout
    assert {k: v.strip() for k, v in snapshot(root).items()} == {k: v.strip() for k, v in before.items()}


def _journal(root, entries: list[dict]) -> Journal:
    journal = Journal.create(System(root=Root(root)), {"plan": {}, "root": str(root)})
    for entry in entries:
        journal.record(entry)
    return journal


def test_an_entry_without_a_real_original_is_reported_never_written(root):
    # What the first version journaled for a remount it could not read: "mixed: ".
    mixed = {
        "type": "change",
        "seq": 2,
        "state": "started",
        "before": {"value": "mixed: "},
        "change": {"id": 2, "knob": "sysfs", "target": "/sys/block/sda/queue/read_ahead_kb", "new": 4096},
    }
    nothing = {
        "type": "change",
        "seq": 3,
        "state": "started",
        "before": {"value": None},
        "change": {"id": 3, "knob": "sysfs", "target": "/sys/block/sda/queue/scheduler", "new": "none"},
    }
    sysctl = {
        "type": "change",
        "seq": 1,
        "state": "applied",
        "before": {"value": "40"},
        "change": {"id": 1, "knob": "sysctl", "target": "vm.dirty_ratio", "new": 10},
    }
    (root / "proc/sys/vm/dirty_ratio").write_text("10\n")
    journal = _journal(root, [sysctl, mixed, nothing])
    report = rolled_back(journal, System(root=Root(root)), log=lambda m: None)
    assert report.restored == 1
    assert (root / "proc/sys/vm/dirty_ratio").read_text().strip() == "40"
    failed = {f.what: f.reason for f in report.failures}
    assert set(failed) == {"sysfs /sys/block/sda/queue/read_ahead_kb", "sysfs /sys/block/sda/queue/scheduler"}
    assert "the recorded original 'mixed: ' is not a real value" in failed["sysfs /sys/block/sda/queue/read_ahead_kb"]
    assert (root / "sys/block/sda/queue/read_ahead_kb").read_text() == "128\n"
    assert failed["sysfs /sys/block/sda/queue/scheduler"] == "no original value was recorded for it"
    assert (root / "sys/block/sda/queue/scheduler").read_text() == "[mq-deadline] none\n"


def test_mount_options_that_differ_between_namespaces_are_refused_at_apply_time(tmp_path):
    tree = tmp_path / "t"
    (tree / "proc/self").mkdir(parents=True)
    (tree / "proc/77").mkdir(parents=True)
    (tree / "proc/self/mounts").write_text("/dev/loop0 /srv/data xfs rw,relatime 0 0\n")
    (tree / "proc/77/mounts").write_text("/dev/loop0 /srv/data xfs rw,noatime 0 0\n")
    plan = load(
        write_plan(tmp_path, [{"knob": "mount_option", "target": "/srv/data", "key": "noatime", "new": "noatime"}])
    )
    system = System(root=Root(tree), server_pids=[77])
    with pytest.raises(TuneError, match="differs between the mount namespaces"):
        KNOBS["mount_option"].read(system, plan.changes[0])


@pytest.mark.parametrize("path", ["/etc/passwd", "/../../outside.txt", "/etc/samba/../../etc/shadow"])
def test_a_journal_cannot_make_rollback_write_a_file_its_change_does_not_edit(root, tmp_path, path):
    (root / "etc/passwd").write_text("root:x:0:0\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("outside\n")
    entry = {
        "type": "change",
        "seq": 1,
        "state": "applied",
        "before": {"files": {path: "pwned\n"}},
        "change": {"id": 1, "knob": "samba", "target": "global", "key": "aio read size", "new": "1"},
    }
    journal = _journal(root, [entry])
    report = rolled_back(journal, System(root=Root(root)), log=lambda m: None)
    assert not report.ok
    assert "which this change does not edit: refused" in report.failures[0].reason
    assert (root / "etc/passwd").read_text() == "root:x:0:0\n"
    assert outside.read_text() == "outside\n"
    assert not (root / "etc/shadow").exists()


def _holding(root, plan_file, resume) -> subprocess.Popen:
    """An apply that holds the system's lock, paused after its first write until `resume` exists,
    once its record in the lock names it."""
    first = subprocess.Popen(
        [sys.executable, "-m", "nastune", "apply", str(plan_file), "--root", str(root), "--yes"],
        env={**__import__("os").environ, "NASTUNE_PAUSE_AT": "apply:1:written:600", "NASTUNE_RESUME_FILE": str(resume)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lockfile = root / "var/lib/nastune/lock"
    for _ in range(100):
        if lockfile.exists() and lockfile.read_text():
            break
        time.sleep(0.1)
    return first


def test_a_second_process_is_refused_while_one_holds_the_system(root, tmp_path):
    plan_file = write_plan(tmp_path, [CHANGES[0], CHANGES[4]])
    resume = tmp_path / "resume"  # the first holds the system until the test has met it, however busy the machine
    first = _holding(root, plan_file, resume)
    second = run_cli("apply", str(plan_file), "--root", str(root), "--yes", check=False)
    assert second.returncode != 0
    assert "Traceback" not in second.stderr
    assert f"another nastune is changing this system: pid {first.pid}" in " ".join(second.stderr.split())
    rolled = run_cli("rollback", "--root", str(root), check=False)
    assert rolled.returncode != 0
    assert f"pid {first.pid}" in rolled.stderr
    resume.touch()
    _, err = first.communicate(timeout=600)
    assert first.returncode == 0, err
    assert (root / "proc/sys/vm/dirty_ratio").read_text().strip() == "10"  # the first finished its work
    run_cli("rollback", "--root", str(root))  # and the lock is free again
    assert (root / "proc/sys/vm/dirty_ratio").read_text().strip() == "40"


def test_a_second_apply_waits_for_a_command_that_holds_the_system_a_moment(root, tmp_path):
    """Another nastune's command (an interleaved switch of another run on this kernel) holds the
    lock for seconds: apply waits for it, up to lock.COMMAND_WAIT, instead of refusing at once."""
    plan_file = write_plan(tmp_path, [CHANGES[0]])
    resume = tmp_path / "resume"
    first = _holding(root, plan_file, resume)
    argv = [sys.executable, "-m", "nastune", "apply", str(plan_file), "--root", str(root), "--yes"]
    second = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert second.stderr is not None
    said = second.stderr.readline()  # it says so once it waits (or why it stopped)
    assert f"waiting up to 30 s for pid {first.pid}" in said, said
    resume.touch()  # the first ends while the second waits
    assert first.wait(timeout=600) == 0
    _, err = second.communicate(timeout=600)
    assert second.returncode == 0, err
    assert "another nastune" not in err


def test_the_lock_is_taken_once_required_by_the_engine_and_freed_by_a_kill(root, tmp_path):
    system = System(root=Root(root))
    with lock.hold(system, "optimize"):
        lock.require(system)  # what the engine asks before it changes anything
        second = lock.hold(system, "apply")  # a second hold is a bug: the workflow takes it once
        with pytest.raises(RuntimeError, match="already held by this process"), second:
            pass
    with pytest.raises(RuntimeError, match="changed without holding"):
        lock.require(system)
    plan_file = write_plan(tmp_path, [CHANGES[0]])
    killed = run_cli(
        "apply", str(plan_file), "--root", str(root), "--yes", check=False, env={"NASTUNE_KILL_AT": "apply:1:written"}
    )
    assert killed.returncode < 0
    run_cli("rollback", "--root", str(root))  # a dead holder leaves no lock behind


def test_a_mount_point_with_a_space_is_read_from_the_escaped_mount_table(tmp_path):
    tree = tmp_path / "t"
    (tree / "proc/self").mkdir(parents=True)
    (tree / "proc/self/mounts").write_text("/dev/loop0 /srv/my\\040data xfs rw,noatime 0 0\n")
    plan = load(
        write_plan(tmp_path, [{"knob": "mount_option", "target": "/srv/my data", "key": "noatime", "new": "noatime"}])
    )
    assert KNOBS["mount_option"].read(System(root=Root(tree)), plan.changes[0]) == "noatime"


def test_lab_journal_commands_refuse_a_journal_that_is_not_the_labs(root, tmp_path):
    plan_file = write_plan(tmp_path, [CHANGES[0]])
    run_cli("apply", str(plan_file), "--root", str(root), "--yes")
    before = snapshot(root)
    env = {"NASTUNE_LAB_DIR": str(tmp_path / "no-lab")}
    (journal,) = (root / "var/lib/nastune/journal").glob("*.jsonl")  # the lab's journals are read on this host
    named = run_cli("rollback", "--to", str(journal), "--lab", check=False, env=env)
    assert named.returncode == 2
    assert "not a journal of the lab" in named.stderr
    assert "Traceback" not in named.stderr
    newest = run_cli("verify", "--lab", check=False, env=env)
    assert newest.returncode == 2
    assert "the lab is not up" in newest.stderr
    for command in (["verify"], ["rollback"], ["apply", str(plan_file), "--yes"]):  # which system? refused
        both = run_cli(*command, "--root", str(root), "--lab", check=False, env=env)
        assert both.returncode == 2, both.stderr
        assert f"--lab and --root {root} name two systems" in both.stderr, both.stderr
    assert snapshot(root) == before


def test_a_dry_run_rollback_counts_what_it_would_restore_and_changes_nothing(root, tmp_path):
    """Ansible's check mode on the rollback module: what a rollback would restore, nothing written."""
    run_cli("apply", str(write_plan(tmp_path, CHANGES[:3])), "--root", str(root), "--yes")
    before = snapshot(root)
    dry = json.loads(run_cli("rollback", "--root", str(root), "--dry-run", "--json").stdout)
    assert (dry["dry_run"], dry["restored"], dry["unchanged"]) == (True, 3, 0)
    assert snapshot(root) == before
    done = json.loads(run_cli("rollback", "--root", str(root), "--json").stdout)
    assert (done["dry_run"], done["restored"]) == (False, 3)
    again = json.loads(run_cli("rollback", "--root", str(root), "--dry-run", "--json").stdout)
    assert again["restored"] == 0


class _Split(Knob):
    """A setting kept in two places whose write fails in the second, as a remount fails in a
    server's mount namespace after it worked in this one."""

    kind = "split"

    def __init__(self, places: dict[str, str], second_takes: bool):
        self.places, self.second_takes = places, second_takes

    def read(self, system, change):
        values = set(self.places.values())
        if len(values) > 1:
            raise TuneError("differs between the places that hold it")
        return values.pop()

    def write(self, system, change, value):
        self.places["here"] = str(value)
        if self.second_takes:
            self.places["there"] = "half"  # the failure leaves it neither new nor original
        raise TuneError("the second place refused the change")


@pytest.mark.parametrize("second_takes", [False, True])
def test_a_restore_that_fails_where_nothing_had_changed_counts_by_what_reads_back(second_takes, tmp_path):
    # autotune on the lab: noatime took in this namespace, failed in a server's; restoring it
    # failed there again though that namespace had never changed, and it was reported NOT restored
    knob = _Split({"here": "noatime", "there": "relatime"}, second_takes)
    change = PlannedChange(id=1, knob="mount_option", target="/srv/data", key="noatime", new="noatime")
    system = System(root=Root(tmp_path))
    if second_takes:
        with pytest.raises(TuneError, match="refused"):
            _restore_value(system, knob, change, "relatime")
    else:
        assert _restore_value(system, knob, change, "relatime") is True
    assert knob.places["here"] == "relatime"


def test_persist_s_engine_asks_for_the_lock_its_workflow_takes(root, tmp_path):
    """As apply and rollback: the engine asks for the lock, jobs/persist (or optimize) takes it."""
    from nastune.jobs import persist
    from nastune.tune import persist_after

    system = System(root=Root(root))
    journal = need(applied(load(write_plan(tmp_path, [CHANGES[0]])), system, log=lambda m: None))
    with pytest.raises(RuntimeError, match="changed without holding"):
        persist_after.written(journal, log=lambda m: None)
    assert persist.run(journal, log=lambda m: None) is not None
    assert (root / "etc/sysctl.d/90-nastune.conf").exists()
