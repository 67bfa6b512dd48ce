"""What matching names by case buys in a big directory over SMB, on the lab's bigdir scenario (a
share with a directory of 50,000 files, Samba as it ships): `optimize -w big-dir` with only the
smb-case-big-dir rule and its compatibility trade accepted, so the share's `case sensitive` goes
from auto to yes, interleaved against auto. Prints each verdict (medians without and with it,
change and its interval) and the findings the scenario gave, and records them with every repeat
of both sides in bench/results/bigdir-case.json.

    .venv/bin/python bench/bigdir_case.py [--max-pairs 5]"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import RESULTS, write
from screen_soho import repeats

RULE = "smb-case-big-dir"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-pairs", default="5")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "NASTUNE_LAB_DIR": f"{tmp}/lab", "NASTUNE_LAB_PREFIX": "nbd"}
        out = Path(tmp) / "optimize"
        argv = [sys.executable, "-m", "nastune", "optimize", "--lab", "--scenario", "bigdir", "--yes", "-w", "big-dir"]
        argv += ["--only", RULE, "--accept-risk", "compatibility", "--max-pairs", args.max_pairs, "--out", str(out)]
        start = time.monotonic()
        try:
            done = subprocess.run(argv, capture_output=True, text=True, env=env)
        finally:
            subprocess.run([sys.executable, "-m", "nastune", "lab", "down"], env=env, capture_output=True)
        took = time.monotonic() - start
        if not (out / "compare.json").exists():
            sys.exit(f"optimize failed (exit {done.returncode}): {done.stderr[-2000:]}")
        mixed = json.loads((out / "compare.json").read_text())["interleaved"]
        sides = {s: repeats(out / "interleaved" / f"{s}.json") for s in ("a", "b")}
        found = sorted({f["rule"] for f in json.loads((out / "findings.json").read_text())})
    print(f"optimize -w big-dir on bigdir, {RULE} only: {took:.0f} s, exit {done.returncode}; findings: {found}")
    for r in mixed["rows"]:
        low, high = r["change_ci"]
        interval = f"{low:+.0%}..{high:+.0%}" if low is not None and high is not None else "no interval"
        print(
            f"  {r['workload']} @ {r['target']} {r['metric']}: {r['before_median']:.1f} -> {r['after_median']:.1f} "
            f"{r['unit']} ({r['change']:+.0%}, {interval}) {r['verdict']}"
        )
    write(
        "bigdir-case",
        RESULTS / "bigdir-case.json",
        seconds=round(took),
        exit=done.returncode,
        findings=found,
        rows=mixed["rows"],
        notes=mixed["notes"],
        pairs=mixed["pairs"],
        repeats=sides,
    )


if __name__ == "__main__":
    main()
