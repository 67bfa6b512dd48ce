"""The main job on the lab: optimize on soho must make SMB and NFS significantly faster, and
leave a report, a plan and both result files."""

from __future__ import annotations

import json

from tests.lab.conftest import nastune


def test_optimize_soho_makes_smb_and_nfs_significantly_faster(lab_dir, tmp_path):
    out = tmp_path / "optimize"
    proc = nastune(lab_dir, "optimize", "--yes", "-w", "aged-read", "-w", "seq-write", "--size", "32M",
                   "--repeats", "5", "--out", str(out))
    assert "Report:" in proc.stdout
    rows = json.loads((out / "compare.json").read_text())["rows"]
    verdicts = {(r["workload"], r["target"].split(":")[0]): r["verdict"] for r in rows}
    assert verdicts[("aged-read", "smb")] == "better" and verdicts[("aged-read", "nfs")] == "better"
    assert not [k for k, v in verdicts.items() if v == "worse" and k[1] in ("smb", "nfs", "ftp")]
    after = json.loads((out / "after.json").read_text())["results"]
    assert all(r["target"]["mtu"] == 9000 for r in after if r["target"]["kind"] != "path")  # re-resolved after tuning
    assert not [f for r in after for m in r["metrics"].values() for f in m["flags"] if "goodput" in f]
    for name in ("before.json", "after.json", "plan.json", "findings.json", "facts.json", "report.html", "report.csv"):
        assert (out / name).exists(), name
    plan = json.loads((out / "plan.json").read_text())
    assert {"xfs_fsr", "ganesha_export", "samba"} <= {c["knob"] for c in plan["changes"]}
    assert not any(c["target"].startswith("vm.") for c in plan["changes"])  # the host's kernel is left alone
    nastune(lab_dir, "rollback")
