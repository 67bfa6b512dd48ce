"""The main job measured: optimize on the lab's soho scenario with the default workloads, then
print each gain ratio (after/before medians) and each tuned result's fraction of the link's
goodput (or, for local reads, of the device's rate), the interleaved verdicts of the plan's
settings alone, and how long each part took. Compare with the published studies' headline ratios
(Borikar and Palani 2011, section 2.7: +133% CIFS and +180% NFS writes on an aged NAS). Use 5
or more repeats: with fewer, no verdict can be significant.

    .venv/bin/python bench/optimize_soho.py [--size 256M] [--repeats 5]"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="256M")
    parser.add_argument("--repeats", default="5")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "optimize"
        start = time.monotonic()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "nastune",
                "optimize",
                "--lab",
                "--flow",
                "before-after",  # gain ratios need the whole plan measured before and after
                "--yes",
                "--allow",
                "xfs_fsr",
                "--size",
                args.size,
                "--repeats",
                args.repeats,
                "--out",
                str(out),
            ],
            check=True,
            capture_output=True,
        )
        took = time.monotonic() - start
        compared = json.loads((out / "compare.json").read_text())
        rows, mixed = compared["rows"], compared.get("interleaved")
        after = json.loads((out / "after.json").read_text())
    limits = {
        (r["workload"], r["target"]["url"], name): m.get("limit")
        for r in after["results"]
        for name, m in r["metrics"].items()
    }
    print(f"optimize on soho: {args.repeats} repeats of {args.size}")
    print(
        f"{'workload':10} {'target':32} {'metric':14} {'before':>9} {'after':>9} {'gain':>7} {'of limit':>11} verdict"
    )
    for r in rows:
        gain = r["after_median"] / r["before_median"]
        limit = limits.get((r["workload"], r["target"], r["metric"]))
        share = f"{r['after_median'] / limit:.1%}" if limit else "-"
        print(
            f"{r['workload']:10} {r['target']:32} {r['metric']:14} {r['before_median']:9.1f} {r['after_median']:9.1f} "
            f"{gain:6.2f}x {share:>11} {r['verdict']}"
        )
    if mixed:
        print(
            f"the settings alone, interleaved: {mixed['pairs']} pairs in {mixed['seconds']:.0f} s "
            f"({mixed['switch_seconds']:.0f} s switching){'; ' + mixed['stopped'] if mixed['stopped'] else ''}"
        )
        for r in mixed["rows"]:
            print(
                f"{r['workload']:10} {r['target']:32} {r['metric']:14} {r['before_median']:9.1f} "
                f"{r['after_median']:9.1f} {r['change']:+7.1%} {r['verdict']}"
            )
        for refused in mixed["refused"]:
            print(f"  A/A control refused a verdict: {refused}")
    minutes, seconds = divmod(round(took), 60)
    print(f"the main job took {minutes} min {seconds} s")


if __name__ == "__main__":
    main()
