"""The write cliff judged by optimize on a real kernel (the kernel lab's `kernel-cliff` scenario:
XFS on a data disk QEMU holds to 20 MB/s of writes, Debian's dirty-page defaults), as an operator
would run it: one `nastune bench -w sustained-write` run as the profile, then `nastune optimize
--lab --kernel --scenario kernel-cliff -w sustained-write --profile` of it. optimize sizes the
write from the NAS's dirty limit, its dirty-data rule sizes the limit from the disks' rate, and the
change is judged interleaved: a verdict with its interval on the sustained MB/s and on the slowest
5 s (where the stalls show); the report draws each run's course. Each A and B repeat's course is
summed up (burst, sustained rate, stalls, slowest 5 s) beside the verdicts, in
bench/results/kernel-cliff-optimize.json. Under software emulation the guest's CPU sets the
burst's rate: the course's shape is the kernel's, its rates emulation's.

    .venv/bin/python bench/kernel_cliff_optimize.py [--repeats 2] [--pairs 3]"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

from kernel_cliff import RULE, nastune
from record import RESULTS, write

from nastune.bench import results
from nastune.bench.cliff import course
from nastune.lab import scenario
from nastune.sites.lab.kernel import KernelLab

SCENARIO = "kernel-cliff"


def courses(path: Path) -> list[dict]:
    """Each repeat of a run's sustained write, summed up as the operator describes it."""
    found = []
    for rates in (course_ for r in results.load(path).results for course_ in r.course):
        c = course(rates)
        found.append({"burst_mb": c.burst_mb, "sustained": c.sustained_rate, "stalls": c.stalls, "worst": c.worst})
    return found


def optimized(env: dict[str, str], tmp: Path, repeats: int, pairs: int) -> dict:
    """optimize's summary, log and report, with the courses of its interleaved runs."""
    nastune(env, "bench", "--lab", "-w", "sustained-write", "--repeats", "1", "--out", str(tmp / "profile.json"))
    out = tmp / "out"
    argv = ["optimize", "--lab", "--kernel", "--scenario", SCENARIO, "-w", "sustained-write", "--only", RULE]
    argv += ["--profile", str(tmp / "profile.json"), "--yes", "--repeats", str(repeats), "--json", "--out", str(out)]
    summary = json.loads(nastune(env, *argv, "--min-pairs", str(pairs), "--max-pairs", str(pairs)))
    report = out / "report.html"
    page = report.read_text()
    return {
        "summary": summary["interleaved"],
        "finding": [f for f in json.loads((out / "findings.json").read_text()) if f["rule"] == RULE],
        "runs": {side: courses(out / "interleaved" / f"{side}.json") for side in ("a", "b")},
        "report": {"bytes": report.stat().st_size, "course_charts": page.count('id="course')},
        "profile": courses(tmp / "profile.json"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="kernel-cliff-optimize.")  # kept: optimize's report and runs, to read
    env = {**os.environ, "NASTUNE_KERNEL_LAB_DIR": f"{tmp}/lab", "NASTUNE_LAB_DIR": f"{tmp}/no-namespace-lab"}
    lab = KernelLab(Path(tmp) / "lab")
    try:
        lab.up(scenario.load(SCENARIO), log=print)
        found = optimized(env, Path(tmp), args.repeats, args.pairs)
    finally:
        lab.down(log=print)
        print(f"optimize's output: {tmp}/out", flush=True)
    for row in found["summary"]["rows"]:
        print(row["metric"], row["before_median"], "->", row["after_median"], row["change_ci"], row["verdict"])
    for side, runs in found["runs"].items():
        print(side, runs, flush=True)
    write("kernel-cliff-optimize", RESULTS / "kernel-cliff-optimize.json", **found)


if __name__ == "__main__":
    main()
