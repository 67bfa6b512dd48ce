"""On TrueNAS SCALE, a dataset's properties are its middleware's to set (its API validates them
and keeps its own view): the ZFS findings stay, their changes become advice naming the UI's place
and the `midclt` call, and a plan holds no `zfs set`. The tree is the kernel lab's ZFS guest as
captured, with the files that make a system TrueNAS SCALE to nastune."""

from __future__ import annotations

import json
import tarfile

from tests.conftest import ROOTS, cli_json


def test_zfs_findings_on_truenas_are_advice_with_the_midclt_call(tmp_path):
    with tarfile.open(ROOTS / "zfs-kernel-lab.tar.gz") as tar:
        tar.extractall(tmp_path, filter="data")
    added = {"/usr/bin/midclt": "#!/usr/bin/python3\n", "/etc/version": "25.04.2\n"}
    for path, text in added.items():
        (tmp_path / path[1:]).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path[1:]).write_text(text)
    errors = tmp_path / ".nastune/errors.json"  # the capture found them missing: no longer
    errors.write_text(json.dumps({k: v for k, v in json.loads(errors.read_text()).items() if k not in added}))
    found = cli_json("diagnose", "--root", str(tmp_path), "--json")["findings"]
    zfs = {(f["rule"], f["target"]): f for f in found if f["area"] == "zfs"}
    assert ("zfs-atime", "tank/home") in zfs and ("zfs-sync-always", "tank/home") in zfs
    for f in zfs.values():
        assert f["changes"] == [], f["rule"]
    assert 'midclt call pool.dataset.update tank/home \'{"atime": "OFF"}\'' in zfs[("zfs-atime", "tank/home")]["advice"]
    assert "Datasets > tank/home > Edit" in zfs[("zfs-sync-always", "tank/home")]["advice"]
