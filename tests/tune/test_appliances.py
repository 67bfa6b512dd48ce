"""TrueNAS SCALE and OpenMediaVault write their file servers' configuration from their own
databases: nastune names the appliance, leaves each change to a file it owns to the advice (with
where its UI sets it), and refuses a plan that edits one whatever the plan says, nothing written.
The trees are the small NAS laid out as each appliance lays out its files (tests/fixtures/make_roots.py)."""

from __future__ import annotations

import json

import pytest

from nastune import rules
from nastune.facts import collect
from nastune.facts.appliance import APPLIANCES
from nastune.root import Root
from nastune.tune.knobs import KNOBS
from tests.conftest import extracted, need, run_cli
from tests.tune.conftest import write_plan

OWNED = {"samba", "nfs_export", "nfsd_threads"}  # what the small NAS's findings change that both appliances own


@pytest.fixture(params=["truenas-scale", "openmediavault"])
def appliance(request, tmp_path):
    return request.param, extracted(request.param, tmp_path / request.param)


def test_every_appliance_owns_knob_kinds_the_plans_know():
    kinds = set(KNOBS)
    for found in APPLIANCES.values():
        assert set(found.owns) <= kinds, found.name
        assert found.source


def test_inspect_names_the_appliance_and_its_version(appliance):
    name, root = appliance
    detected = need(need(collect(Root(str(root)), ["system"]).system).appliance)
    assert need(detected.value).name == name
    assert need(detected.value).version == {"truenas-scale": "24.10.2", "openmediavault": "7.4.17-1"}[name]
    shown = run_cli("inspect", "--root", str(root)).stdout
    assert APPLIANCES[name].title in shown


def test_a_plain_debian_nas_is_no_appliance(tmp_path):
    root = extracted("small-nas-raid5", tmp_path / "small")
    assert need(collect(Root(str(root)), ["system"]).system).appliance is None


def test_changes_to_the_appliance_s_files_become_advice_saying_where_its_ui_sets_them(appliance, tmp_path):
    name, root = appliance
    found = rules.evaluate(collect(Root(str(root))))
    plain = rules.evaluate(collect(Root(str(extracted("small-nas-raid5", tmp_path / "small")))))
    assert {c.knob for f in plain for c in f.changes} >= OWNED  # the same NAS without the appliance: planned
    assert not OWNED & {c.knob for f in found for c in f.changes}
    title = APPLIANCES[name].title
    advised = [f for f in found if f.advice and title in f.advice]
    assert {f.rule for f in advised} >= {"smb-aio-off", "smb-socket-buffers-fixed"}
    assert APPLIANCES[name].owns["samba"] in need(next(f.advice for f in advised if f.rule == "smb-aio-off"))
    assert any(c.knob == "sysctl" for f in found for c in f.changes)  # the kernel's own values stay planned


def test_a_plan_that_edits_an_appliance_s_file_is_refused_whole_whatever_it_says(appliance, tmp_path):
    name, root = appliance
    smb = root / ("etc/smb4.conf" if name == "truenas-scale" else "etc/samba/smb.conf")
    before = smb.read_bytes(), (root / "proc/sys/vm/swappiness").read_text()
    plan = write_plan(
        tmp_path,
        [
            {"knob": "sysctl", "target": "vm.swappiness", "new": 10},
            {"knob": "samba", "target": "global", "key": "aio read size", "new": "1", "security_risk": False},
        ],
    )
    proc = run_cli("apply", str(plan), "--root", str(root), "--yes", check=False)
    assert proc.returncode == 1, proc.stderr  # refused: nothing done
    assert f"{APPLIANCES[name].title} writes this from its own configuration database" in proc.stderr
    assert APPLIANCES[name].owns["samba"] in proc.stderr
    assert (smb.read_bytes(), (root / "proc/sys/vm/swappiness").read_text()) == before


def test_persist_goes_where_the_appliance_keeps_settings(appliance, tmp_path):
    """TrueNAS SCALE keeps a sysctl across reboots and updates only in its own tunables; the
    sysctl.d file nastune writes on OpenMediaVault is one OpenMediaVault leaves alone."""
    name, root = appliance
    plan = write_plan(tmp_path, [{"knob": "sysctl", "target": "vm.swappiness", "new": 10}])
    proc = run_cli("apply", str(plan), "--root", str(root), "--yes", "--persist", "--json", check=False)
    kept = root / "etc/sysctl.d/90-nastune.conf"
    if name == "truenas-scale":
        assert proc.returncode == 1, proc.stderr  # refused: nothing done
        assert "System Settings > Advanced > Sysctl" in proc.stderr
        assert not kept.exists()
        assert (root / "proc/sys/vm/swappiness").read_text().strip() == "60"
    else:
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["journal"]
        assert "vm.swappiness = 10" in kept.read_text()


def test_an_appliance_is_known_by_any_of_its_files_or_its_package(tmp_path):
    """OpenMediaVault by its configuration database alone, or by its package as dpkg installed it;
    TrueNAS by its middleware's database; each read by presence (config.xml holds the users)."""
    from nastune.facts import appliance
    from nastune.facts.context import Context
    from nastune.root import Root

    for path, name in (
        ("etc/openmediavault/config.xml", "openmediavault"),
        ("var/lib/dpkg/info/openmediavault.list", "openmediavault"),
        ("data/freenas-v1.db", "truenas-scale"),
    ):
        tree = tmp_path / name / path.replace("/", "_")
        (tree / path).parent.mkdir(parents=True)
        (tree / path).write_text("<config><users>secret</users></config>\n")
        found = appliance.collect(Context(Root(str(tree))))
        assert found is not None and found.value is not None and found.value.name == name, path
        assert found.source == "/" + path
    (tmp_path / "plain").mkdir()
    assert appliance.collect(Context(Root(str(tmp_path / "plain")))) is None
