"""apply, verify and rollback on a temporary root: every file-based knob, kills at every
step, malformed plans, the durability opt-in, persistence."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from nastune.risks import RISKS
from nastune.root import Root
from nastune.tune import executor
from nastune.tune.knobs import KNOBS, norm
from nastune.tune.plan import Plan, load
from nastune.tune.system import System, TuneError
from tests.conftest import need, run_cli
from tests.tune.conftest import CHANGES, applied, make_plan, rolled_back, snapshot, write_plan

CONFIG_FILES = ("etc/samba/smb.conf", "etc/ganesha/ganesha.conf", "etc/exports", "etc/fstab")


def values(root, plan: Plan) -> dict:
    system = System(root=Root(root))
    return {(c.knob, c.target, c.key): KNOBS[c.knob].read(system, c) for c in plan.changes}


@pytest.mark.parametrize("change", CHANGES, ids=lambda c: f"{c['knob']}-{c.get('key') or c['target']}")
def test_each_applier_applies_reads_back_and_rolls_back(root, tmp_path, change):
    plan = load(write_plan(tmp_path, [change]))
    before_files, before = snapshot(root), values(root, plan)
    system = System(root=Root(root))
    journal = need(applied(plan, system, accept_risk=frozenset(RISKS), log=lambda m: None))
    (c,) = plan.changes
    assert norm(KNOBS[c.knob].read(system, c)) == norm(c.new)
    assert all(ok for *_, ok in executor.verify(journal, system))
    assert rolled_back(journal, system, log=lambda m: None).restored == 1
    assert values(root, plan) == before
    after_files = snapshot(root)
    for name in CONFIG_FILES:  # config files come back byte for byte
        assert after_files[name] == before_files[name]
    report = rolled_back(journal, system, log=lambda m: None)
    assert (report.restored, report.ok) == (0, True)  # idempotent


def test_failure_midway_rolls_back_everything_already_changed(root, tmp_path):
    bad = {"knob": "sysfs", "target": "/sys/block/sda/queue/scheduler", "new": "kyber"}  # not available
    plan = load(write_plan(tmp_path, CHANGES[:2] + [CHANGES[8], bad]))
    before = snapshot(root)
    with pytest.raises(
        TuneError, match=r"'kyber' is not one of mq-deadline, none.*rolled back 2 change.*1 already at their original"
    ):
        applied(plan, System(root=Root(root)), log=lambda m: None)
    after = snapshot(root)
    assert after["etc/samba/smb.conf"] == before["etc/samba/smb.conf"]
    assert after["proc/sys/vm/dirty_ratio"].strip() == b"40"


def test_a_reload_that_undoes_a_setting_fails_the_apply_and_rolls_it_back(root, tmp_path, monkeypatch):
    """Every setting is read again after the services reload (an interleaved switch to B counts
    on it, and reads nothing back itself): a daemon that rewrote its file undid the change."""
    from nastune.tune import services

    conf = root / "etc/samba/smb.conf"

    def rewritten(system, service, log=print):  # as a management agent restoring its own copy
        conf.write_text(conf.read_text().replace("aio read size = 1", "aio read size = 0"))
        return f"{service}: reloaded"

    monkeypatch.setattr(services, "reload", rewritten)
    plan = load(write_plan(tmp_path, [CHANGES[0], CHANGES[8]]))
    before = snapshot(root)
    with pytest.raises(TuneError, match=r"after reloading samba, .*aio read size.* reads '0' instead of the value"):
        applied(plan, System(root=Root(root)), log=lambda m: None)
    after = snapshot(root)
    assert after["etc/samba/smb.conf"] == before["etc/samba/smb.conf"]
    assert after["proc/sys/vm/dirty_ratio"].strip() == b"40"  # the setting the reload left alone, rolled back too


STEPS = [f"apply:{seq}:{phase}" for seq in range(1, 5) for phase in ("journaled", "written")]


@pytest.mark.parametrize("point", STEPS)
def test_sigkill_at_any_step_then_rollback_restores_every_original(root, tmp_path, point):
    changes = [CHANGES[0], CHANGES[8], CHANGES[10], CHANGES[12]]
    plan_file = write_plan(tmp_path, changes)
    plan = load(plan_file)
    before_values, before_files = values(root, plan), snapshot(root)
    killed = run_cli("apply", str(plan_file), "--root", str(root), "--yes", check=False, env={"NASTUNE_KILL_AT": point})
    assert killed.returncode == -signal.SIGKILL
    run_cli("rollback", "--root", str(root))
    assert values(root, plan) == before_values
    after_files = snapshot(root)
    for name in CONFIG_FILES:
        assert after_files[name] == before_files[name], name


@pytest.mark.parametrize(
    "content,message",
    [
        ("{not json", "not JSON"),
        ('{"schema": "other/1", "changes": []}', "not a nastune plan"),
        (
            json.dumps(make_plan([{"knob": "warp_drive", "target": "x", "new": 1}])),
            "changes[0].knob: unknown knob 'warp_drive'",
        ),
        (
            json.dumps(
                make_plan([{"knob": "sysfs", "target": "/sys/block/md0/md/stripe_cache_size", "new": 99999999}])
            ),
            "99999999 is out of range (17-32768)",
        ),
        (
            json.dumps(make_plan([{"knob": "sysctl", "target": "vm.dirty_ratio; rm -rf /", "new": 1}])),
            "is not a sysctl key",
        ),
        (json.dumps(make_plan([{"knob": "mtu", "target": "eth0", "new": "big"}])), "'big' is not a whole number"),
        (json.dumps({"schema": "nastune.plan/1", "changes": [{"knob": "mtu"}]}), "field changes[0].target"),
    ],
)
def test_malformed_plans_are_refused_and_change_nothing(root, tmp_path, content, message):
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(content)
    before = snapshot(root)
    proc = run_cli("apply", str(plan_file), "--root", str(root), "--yes", check=False)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr, proc.stderr
    assert snapshot(root) == before
    assert not (root / "var/lib/nastune/journal").exists()


def test_durability_trade_needs_explicit_opt_in(root, tmp_path):
    plan_file = write_plan(tmp_path, [CHANGES[11]])
    proc = run_cli("apply", str(plan_file), "--root", str(root), "--yes", check=False)
    assert proc.returncode != 0
    assert "refused without --accept-risk durability" in proc.stderr
    assert "(change 1)" in proc.stderr  # which change of the plan to take out, to apply the rest
    assert "can be lost" in proc.stderr
    assert b"(rw,sync" in (root / "etc/exports").read_bytes()
    run_cli("apply", str(plan_file), "--root", str(root), "--yes", "--accept-risk", "durability")
    assert b"async" in (root / "etc/exports").read_bytes()


def test_security_trade_needs_its_own_opt_in(root, tmp_path):
    plan_file = write_plan(tmp_path, [CHANGES[-1]])  # SMB signing no longer required
    for accepted in ([], ["--accept-risk", "durability"]):  # accepting one risk is not accepting another
        proc = run_cli("apply", str(plan_file), "--root", str(root), "--yes", *accepted, check=False)
        assert proc.returncode != 0
        assert "refused without --accept-risk security" in proc.stderr
        assert "man in the middle" in proc.stderr
        assert b"server signing" not in (root / "etc/samba/smb.conf").read_bytes()
    run_cli("apply", str(plan_file), "--root", str(root), "--yes", "--accept-risk", "security")
    assert b"server signing = disabled" in (root / "etc/samba/smb.conf").read_bytes()


def test_dry_run_shows_the_diff_and_changes_nothing(root, tmp_path):
    plan_file = write_plan(tmp_path, CHANGES[:3])
    before = snapshot(root)
    out = run_cli("apply", str(plan_file), "--root", str(root), "--dry-run").stdout
    assert "vm.dirty_ratio" in out
    assert "dry run: nothing changed" in out
    assert snapshot(root) == before


def test_persist_writes_boot_files_and_rollback_removes_them(root, tmp_path):
    plan_file = write_plan(tmp_path, [CHANGES[0], CHANGES[2]])
    run_cli("apply", str(plan_file), "--root", str(root), "--yes", "--persist")
    assert (root / "etc/sysctl.d/90-nastune.conf").read_text().endswith("vm.dirty_ratio = 10\n")
    unit = (root / "etc/systemd/system/nastune-reapply.service").read_text()
    assert "nastune apply /var/lib/nastune/persist/plan.json --yes --confirm-timeout 0" in unit
    assert "Environment=NASTUNE_STATE_DIR=/var/lib/nastune/at-boot" in unit  # never the newest journal
    wanted = root / "etc/systemd/system/multi-user.target.d/nastune-reapply.conf"
    assert "Wants=nastune-reapply.service" in wanted.read_text()  # started at boot, not only written
    persisted = json.loads((root / "var/lib/nastune/persist/plan.json").read_text())
    assert [c["knob"] for c in persisted["changes"]] == ["sysfs"]
    assert "ok" in run_cli("verify", "--root", str(root)).stdout
    run_cli("rollback", "--root", str(root))
    assert not (root / "etc/sysctl.d/90-nastune.conf").exists()
    assert not (root / "etc/systemd/system/nastune-reapply.service").exists()
    assert not wanted.exists()


def test_persist_keeps_a_static_interface_s_mtu_in_ifupdown_s_file(root, tmp_path):
    """As the NFS article keeps it: in the NAS's network configuration, not in a boot-time replay."""
    interfaces = root / "etc/network/interfaces"
    interfaces.parent.mkdir(parents=True)
    original = "auto eth0\niface eth0 inet static\n    address 10.0.0.2/24\n    mtu 1500\n\nauto eth1\n"
    interfaces.write_text(original)
    run_cli("apply", str(write_plan(tmp_path, [CHANGES[7], CHANGES[2]])), "--root", str(root), "--yes", "--persist")
    assert interfaces.read_text() == original.replace("mtu 1500", "mtu 9000")
    persisted = json.loads((root / "var/lib/nastune/persist/plan.json").read_text())
    assert [c["knob"] for c in persisted["changes"]] == ["sysfs"]  # the MTU is not replayed at boot
    run_cli("rollback", "--root", str(root))
    assert interfaces.read_text() == original


@pytest.mark.parametrize(
    ("config", "text", "written", "expected"),
    [
        (  # Ubuntu's netplan: a file of nastune's own, merged over the operator's definition
            "etc/netplan/01-netcfg.yaml",
            "network:\n  version: 2\n  ethernets:\n    eth0:\n      addresses: [10.0.0.2/24]\n",
            "etc/netplan/90-nastune-eth0.yaml",
            "network:\n  version: 2\n  ethernets:\n    eth0:\n      mtu: 9000\n",
        ),
        (  # systemd-networkd: a drop-in of the .network file that matches the interface
            "etc/systemd/network/10-lan.network",
            "[Match]\nName=en* eth0\n\n[Network]\nAddress=10.0.0.2/24\n",
            "etc/systemd/network/10-lan.network.d/90-nastune-mtu.conf",
            "[Link]\nMTUBytes=9000\n",
        ),
    ],
)
def test_persist_keeps_an_mtu_where_netplan_or_networkd_configures_the_interface(
    root, tmp_path, config, text, written, expected
):
    (root / config).parent.mkdir(parents=True)
    (root / config).write_text(text)
    run_cli("apply", str(write_plan(tmp_path, [CHANGES[7]])), "--root", str(root), "--yes", "--persist")
    assert (root / written).read_text().endswith(expected)
    assert (root / config).read_text() == text  # the operator's own file untouched
    assert not (root / "var/lib/nastune/persist/plan.json").exists()  # nothing left to replay at boot
    run_cli("rollback", "--root", str(root))
    assert not (root / written).exists()


def test_persist_keeps_nfsd_s_threads_in_nfs_conf_where_nfs_server_reads_them(root, tmp_path):
    (root / "etc/nfs.conf").write_text("[nfsd]\nthreads=8\n")
    run_cli("apply", str(write_plan(tmp_path, [CHANGES[6]])), "--root", str(root), "--yes", "--persist")
    assert (root / "etc/nfs.conf").read_text() == "[nfsd]\nthreads=32\n"
    assert not (root / "var/lib/nastune/persist/plan.json").exists()  # nothing left to replay at boot
    run_cli("rollback", "--root", str(root))
    assert (root / "etc/nfs.conf").read_text() == "[nfsd]\nthreads=8\n"


def test_persist_after_the_fact_keeps_what_an_apply_left_and_rollback_removes_it(root, tmp_path):
    """optimize leaves its settings applied but not persisted: `nastune persist` persists the
    settings the journal holds, in a journal of its own; apply --persist of a plan already as
    planned does the same."""
    run_cli("apply", str(write_plan(tmp_path, [CHANGES[0], CHANGES[2]])), "--root", str(root), "--yes")
    applied = "/var/lib/nastune/journal/" + next((root / "var/lib/nastune/journal").glob("*.jsonl")).name
    done = run_cli("persist", "--root", str(root)).stdout
    assert "persisted the settings of" in done
    assert (root / "etc/sysctl.d/90-nastune.conf").read_text().endswith("vm.dirty_ratio = 10\n")
    again = run_cli("persist", "--root", str(root), check=False)  # the newest journal is the persistence
    assert again.returncode == 1
    assert "holds what `persist` wrote" in again.stderr
    assert "already survive a reboot" in run_cli("persist", "--root", str(root), "--journal", applied).stdout
    run_cli("rollback", "--root", str(root))  # the newest journal: the persistence alone
    assert not (root / "etc/sysctl.d/90-nastune.conf").exists()
    assert (root / "proc/sys/vm/dirty_ratio").read_text().strip() == "10"
    (root / "proc/sys/vm/dirty_ratio").write_text("33\n")
    refused = run_cli("persist", "--root", str(root), "--journal", applied, check=False)
    assert refused.returncode == 1
    assert "no longer read as applied" in refused.stderr


def test_verify_reports_drift_with_exit_1(root, tmp_path):
    run_cli("apply", str(write_plan(tmp_path, [CHANGES[0]])), "--root", str(root), "--yes")
    (root / "proc/sys/vm/dirty_ratio").write_text("33\n")
    proc = run_cli("verify", "--root", str(root), check=False)
    assert proc.returncode == 1
    assert "DRIFT" in proc.stdout
    assert "33" in proc.stdout
    data = json.loads(run_cli("verify", "--root", str(root), "--json", check=False).stdout)
    assert data["settings"] == [{"setting": "sysctl vm.dirty_ratio", "expected": "10", "actual": "33", "ok": False}]


def test_plan_from_a_fixture_system_is_loadable_and_names_its_rules(tmp_path):
    from tests.conftest import ROOTS

    out = tmp_path / "plan.json"
    run_cli("plan", "--root", str(ROOTS / "small-nas-raid5.tar.gz"), "--out", str(out))
    plan = load(out)
    rules = {c.rule for c in plan.changes}
    assert {"md-stripe-cache-small", "smb-aio-off", "page-allocation-failures"} <= rules
    assert any("durability" in c.risks for c in plan.changes)  # sync -> async offered, judged a trade


def test_unconfirmed_changes_are_reverted_and_confirmed_ones_kept(root, tmp_path):
    from nastune.tune.journal import Journal
    from nastune.tune.watchdog import revert_unless_confirmed

    system = System(root=Root(root))
    plan_file = write_plan(tmp_path, [{"knob": "mtu", "target": "eth0", "new": 9000}])
    run_cli("apply", str(plan_file), "--root", str(root), "--yes")
    report = revert_unless_confirmed(Journal.latest(system), 0)
    assert report is not None
    assert report.ok
    assert (root / "sys/class/net/eth0/mtu").read_text().strip() == "1500"
    run_cli("apply", str(plan_file), "--root", str(root), "--yes")
    run_cli("confirm", "--root", str(root))
    assert revert_unless_confirmed(Journal.latest(system), 0) is None
    assert (root / "sys/class/net/eth0/mtu").read_text().strip() == "9000"


def test_the_watchdog_outlives_its_caller_and_reverts_by_itself(root, tmp_path):
    """A detached process: the call returns at once, the revert comes later, the lock is free."""
    import time

    from nastune.tune import lock, watchdog
    from nastune.tune.journal import Journal

    system = System(root=Root(root))
    run_cli(
        "apply",
        str(write_plan(tmp_path, [{"knob": "mtu", "target": "eth0", "new": 9000}])),
        "--root",
        str(root),
        "--yes",
    )
    with lock.hold(system, "test"):  # the caller's lock is not inherited: the revert can take it later
        watchdog.start(Journal.latest(system), 1)
        assert (root / "sys/class/net/eth0/mtu").read_text().strip() == "9000"
    for _ in range(300):  # up to 30 s on a busy machine; it takes about one
        if (root / "sys/class/net/eth0/mtu").read_text().strip() == "1500":
            break
        time.sleep(0.1)
    assert (root / "sys/class/net/eth0/mtu").read_text().strip() == "1500"


def test_persist_skips_mounts_without_an_fstab_entry(root, tmp_path):
    from nastune.tune import persist

    plan = load(
        write_plan(tmp_path, [{"knob": "mount_option", "target": "/srv/handmade", "key": "noatime", "new": "noatime"}])
    )
    assert persist.changes(plan, plan.changes, System(root=Root(root))) == []


def test_a_torn_last_journal_line_is_ignored_and_a_corrupt_middle_one_is_reported(root, tmp_path):
    from nastune.tune.journal import Journal

    journal = Journal.create(System(root=Root(root)), {"plan": {}})
    journal.record({"type": "change", "seq": 1, "state": "started"})
    with open(journal.host, "a") as f:
        f.write('{"type": "change", "se')  # what a kill in the middle of a write leaves
    contents = journal.read()
    assert ([c["seq"] for c in contents.changes], contents.problems) == ([1], [])
    with open(journal.host, "a") as f:
        f.write('\n{"type": "confirm"}\n')
    contents = journal.read()
    assert len(contents.problems) == 1
    assert contents.problems[0].startswith("line 3: not JSON")
    assert journal.has("confirm")


def test_a_plan_on_standard_input_and_a_json_summary_as_a_coordinator_uses_them(root, tmp_path):
    """How optimize --inventory drives nastune on a NAS over SSH: the plan on stdin, the journal
    path back as JSON on stdout (the diff goes to stderr), confirm naming that journal."""
    text = json.dumps(make_plan([{"knob": "sysctl", "target": "vm.dirty_ratio", "new": 10}]))
    proc = run_cli("apply", "-", "--root", str(root), "--yes", "--json", input=text)
    done = json.loads(proc.stdout)
    assert done["changes"] == 1
    assert done["watchdog"] == 0  # a tree root: nothing to revert by itself
    assert "vm.dirty_ratio" in proc.stderr
    assert (root / "proc/sys/vm/dirty_ratio").read_text().strip() == "10"
    run_cli("confirm", "--root", str(root), "--journal", done["journal"])
    assert '"confirm"' in (root / done["journal"].lstrip("/")).read_text()
    bad = run_cli("apply", "-", "--root", str(root), "--yes", "--json", input="{not json", check=False)
    assert bad.returncode == 2
    assert "standard input: not JSON" in bad.stderr
    assert not bad.stdout


def test_a_log_whose_reader_is_gone_does_not_stop_the_tuning_engine():
    """A network change can cut the SSH session that reads apply's output: a half-made change
    must still be finished or rolled back, so the log swallows the broken pipe (rich's console
    meets one with SystemExit). A real console on a pipe whose reader is closed, in a process of
    its own, as rich points that process's stdout at /dev/null."""
    script = (
        "import os, sys\n"
        "from rich.console import Console\n"
        "from nastune.cli.common import lines_to\n"
        "r, w = os.pipe(); os.close(r)\n"
        "lines_to(Console(file=os.fdopen(w, 'w')))('applied')\n"
        "sys.stderr.write('the engine went on')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (0, "the engine went on"), done.stderr


def test_a_samba_edit_an_include_would_override_is_refused_before_any_write(root, tmp_path):
    """smbd reads an included file where the include stands: a parameter it sets after the
    main file's line wins, so editing the main file would change nothing smbd uses."""
    conf = root / "etc/samba/smb.conf"
    conf.write_text(
        conf.read_text().replace("aio read size = 0\n", "aio read size = 0\n   include = /etc/samba/t.conf\n")
    )
    (root / "etc/samba/t.conf").write_text("# tuning\naio read size = 0\n")
    aio = next(c for c in CHANGES if c.get("key") == "aio read size")
    plan = write_plan(tmp_path, [CHANGES[0], aio])  # a sysctl, then the overridden Samba parameter
    before = snapshot(root)
    done = run_cli("apply", str(plan), "--root", str(root), "--yes", check=False)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "[global] aio read size is set again in /etc/samba/t.conf line 2, which smbd reads last" in done.stderr
    assert snapshot(root) == before  # refused before the sysctl was written


def test_confirm_says_whether_it_kept_anything_and_when_it_is_too_late(root, tmp_path):
    """What the Ansible module reports as `changed`: a first confirm keeps the changes, a second
    changes nothing, and a confirm after the watchdog reverted is an error, not a silent success."""
    from nastune.tune.journal import Journal
    from nastune.tune.watchdog import revert_unless_confirmed

    plan_file = write_plan(tmp_path, [{"knob": "mtu", "target": "eth0", "new": 9000}])
    done = json.loads(run_cli("apply", str(plan_file), "--root", str(root), "--yes", "--json").stdout)
    assert [(s["setting"], s["current"], s["new"], s["change"]) for s in done["settings"]] == [
        ("mtu eth0", "1500", "9000", True)
    ]
    first = json.loads(run_cli("confirm", "--root", str(root), "--json").stdout)
    second = json.loads(run_cli("confirm", "--root", str(root), "--json").stdout)
    assert (first["confirmed"], second["confirmed"]) == (True, False)
    run_cli("rollback", "--root", str(root))
    run_cli("apply", str(plan_file), "--root", str(root), "--yes")
    journal = Journal.latest(System(root=Root(root)))
    journal.record({"type": "watchdog", "after": 0})  # as a live apply arms it
    assert revert_unless_confirmed(journal, 0) is not None
    late = run_cli("confirm", "--root", str(root), "--json", check=False)
    assert late.returncode != 0
    assert "too late" in late.stderr
    assert not late.stdout


KEYFILE = (
    "[connection]\nid=Wired connection 1\ntype=ethernet\ninterface-name=eth0\n\n"
    "[ethernet]\nmac-address-blacklist=\n\n[ipv4]\naddress1=10.0.0.2/24\nmethod=manual\n"
)


def test_persist_keeps_an_mtu_in_the_networkmanager_keyfile_bound_to_the_interface(root, tmp_path):
    """NetworkManager has no drop-ins: the keyfile's [ethernet] mtu= is set, its mode kept (a
    keyfile others can read is ignored), and rollback puts back its bytes."""
    keyfile = root / "etc/NetworkManager/system-connections/Wired connection 1.nmconnection"
    keyfile.parent.mkdir(parents=True)
    keyfile.write_text(KEYFILE)
    keyfile.chmod(0o600)
    run_cli("apply", str(write_plan(tmp_path, [CHANGES[7]])), "--root", str(root), "--yes", "--persist")
    assert keyfile.read_text() == KEYFILE.replace("mac-address-blacklist=\n", "mac-address-blacklist=\nmtu=9000\n")
    assert keyfile.stat().st_mode & 0o777 == 0o600
    assert not (root / "var/lib/nastune/persist/plan.json").exists()  # nothing left to replay at boot
    run_cli("rollback", "--root", str(root))
    assert keyfile.read_text() == KEYFILE


def test_a_keyfile_bound_by_mac_address_leaves_the_mtu_to_the_boot_unit(root, tmp_path):
    keyfile = root / "etc/NetworkManager/system-connections/lan.nmconnection"
    keyfile.parent.mkdir(parents=True)
    keyfile.write_text(KEYFILE.replace("interface-name=eth0\n", ""))
    run_cli("apply", str(write_plan(tmp_path, [CHANGES[7]])), "--root", str(root), "--yes", "--persist")
    assert "mtu=" not in keyfile.read_text()
    replayed = json.loads((root / "var/lib/nastune/persist/plan.json").read_text())
    assert [c["knob"] for c in replayed["changes"]] == ["mtu"]
