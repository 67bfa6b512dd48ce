"""The Ansible collection against the lab's NAS over SSH, through the lab's own inventory (the
one `nastune bench --inventory` reads): check mode changes nothing; the README's role tunes, a
second run changes nothing, verify finds no drift, rollback restores (a second one changes
nothing), and the NAS's configuration ends byte for byte as it began."""

from __future__ import annotations

import json
import subprocess

from tests.ansible.test_collection import COLLECTION, _env, _tool
from tests.lab.conftest import nastune, sha256

ONLY = ["smb-sendfile-off", "nic-offloads-disabled"]  # the NAS's own: no machine-wide sysctl, no MTU


def _play(lab_dir, name: str, *extra: str) -> subprocess.CompletedProcess:
    variables = {"tune_only": ONLY, "tune_plan": str(lab_dir / "ansible-plan.json"), "collection": str(COLLECTION)}
    return subprocess.run(
        [
            _tool("ansible-playbook"),
            "-i",
            str(lab_dir / "inventory.ini"),
            str(COLLECTION.parents[2] / "tests" / "ansible" / name),
            "-e",
            json.dumps(variables),
            *extra,
        ],
        capture_output=True,
        text=True,
        env={**_env(), "NASTUNE_LAB_DIR": str(lab_dir)},
        timeout=900,
    )


def test_the_role_tunes_the_lab_nas_idempotently_and_rolls_back(lab_dir):
    nastune(lab_dir, "lab", "up", "--scenario", "modern")
    conf = lab_dir / "smb.conf"
    before = sha256(conf)
    dry = _play(lab_dir, "tune.yml", "--check")
    assert dry.returncode == 0, dry.stdout[-3000:] + dry.stderr[-2000:]
    assert "changed: [nas]" in dry.stdout
    assert sha256(conf) == before  # would change, changed nothing
    done = _play(lab_dir, "lab.yml")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "failed=0" in done.stdout
    assert "All assertions passed" in done.stdout
    assert sha256(conf) == before
