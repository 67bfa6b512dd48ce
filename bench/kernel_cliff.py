"""The write cliff on a real kernel, before and after (the kernel lab's `kernel-cliff` scenario: XFS
on a data disk QEMU holds to 20 MB/s of writes, Debian's dirty-page defaults): `nastune bench -w
sustained-write` on the client's NFS mount with the NAS as it ships; `nastune diagnose --profile`
of that run, whose dirty-data rule (vm-dirty-writeback) reads the disks' sustained rate from it and
sizes the write-back limit to about 5 s of their writes; its changes applied through nastune; the
same workload again. Each repeat's course second by second, its burst, sustained rate, stalls and
slowest 5 seconds, and the rule's finding, recorded in bench/results/kernel-cliff.json. Under
software emulation the guest's CPU sets the burst's rate: the course's shape is the kernel's, its
rates emulation's.

    .venv/bin/python bench/kernel_cliff.py [--repeats 2]"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from record import RESULTS, TOP, write

from nastune.bench.cliff import course
from nastune.lab import scenario
from nastune.sites.lab.kernel import KernelLab
from nastune.units import size_bytes

RULE = "vm-dirty-writeback"


def nastune(env: dict[str, str], *argv: str) -> str:
    done = subprocess.run([sys.executable, "-m", "nastune", *argv], capture_output=True, text=True, env=env, cwd=TOP)
    if done.returncode not in (0, 1):
        raise SystemExit(f"nastune {' '.join(argv)} exited {done.returncode}: {done.stderr[-2000:]}")
    return done.stdout


def measured(env: dict[str, str], out: Path, repeats: int) -> list[dict]:
    """Each repeat's course and what it sums up to."""
    nastune(env, "bench", "--lab", "-w", "sustained-write", "--repeats", str(repeats), "--out", str(out))
    (result,) = json.loads(out.read_text())["results"]
    found = []
    for rates in result["course"]:
        c = course(rates)
        summary = {"burst_mb": c.burst_mb, "burst_rate": c.burst_rate, "sustained": c.sustained_rate}
        found.append({**summary, "stalls": c.stalls, "worst": c.worst, "cliff": c.cliff, "course": rates})
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    chosen = scenario.load("kernel-cliff")
    rate = size_bytes(chosen.limits.write_bps if chosen.limits and chosen.limits.write_bps else "20M")
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "NASTUNE_KERNEL_LAB_DIR": f"{tmp}/lab", "NASTUNE_LAB_DIR": f"{tmp}/no-namespace-lab"}
        lab = KernelLab(Path(tmp) / "lab")
        try:
            lab.up(chosen, log=print)
            before = measured(env, Path(tmp) / "before.json", args.repeats)
            found = json.loads(
                nastune(env, "diagnose", "--lab", "--only", RULE, "--profile", f"{tmp}/before.json", "--json")
            )["findings"]
            if not found:
                raise SystemExit(f"{RULE} did not fire on the measured run: nothing to apply")
            plan = Path(tmp) / "dirty.json"
            changes = [
                {"id": n, **{k: c[k] for k in ("knob", "target", "new")}} for n, c in enumerate(found[0]["changes"], 1)
            ]
            plan.write_text(json.dumps({"schema": "nastune.plan/1", "changes": changes}))
            nastune(env, "apply", str(plan), "--lab", "--yes")  # a lower limit trades nothing
            after = measured(env, Path(tmp) / "after.json", args.repeats)
        finally:
            lab.down(log=print)
    for side, runs in (("before", before), ("after", after)):
        for r in runs:
            print(side, {k: v for k, v in r.items() if k != "course"}, flush=True)
    finding = {k: found[0][k] for k in ("message", "evidence", "changes")}
    write(
        "kernel-cliff", RESULTS / "kernel-cliff.json", disk_write_bps=rate, finding=finding, before=before, after=after
    )


if __name__ == "__main__":
    main()
