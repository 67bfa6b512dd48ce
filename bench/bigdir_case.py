"""What matching names by case buys in a big directory over SMB, on the lab's bigdir scenario (a
share with a directory of 50,000 files, Samba as it ships): `optimize -w big-dir` with only the
smb-case-big-dir rule and its compatibility trade accepted, so the share's `case sensitive` goes
from auto to yes, interleaved against auto. Prints each verdict (medians without and with it,
change and its interval) and the findings the scenario gave, and records them with every repeat
of both sides in bench/results/bigdir-case.json. With --screen, every rule the scenario fires
instead, then each rule's own effect (`optimize --screen`): which of them moved the listing and
the misses, recorded in bench/results/bigdir-screen.json.

    .venv/bin/python bench/bigdir_case.py [--max-pairs 5] [--screen]"""

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
    parser.add_argument("--screen", action="store_true")
    args = parser.parse_args()
    rules = ["--screen"] if args.screen else ["--only", RULE]
    name = "bigdir-screen" if args.screen else "bigdir-case"
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "NASTUNE_LAB_DIR": f"{tmp}/lab", "NASTUNE_LAB_PREFIX": "nbd"}
        out = Path(tmp) / "optimize"
        argv = [sys.executable, "-m", "nastune", "optimize", "--lab", "--scenario", "bigdir", "--yes", "-w", "big-dir"]
        argv += [*rules, "--accept-risk", "compatibility", "--max-pairs", args.max_pairs, "--out", str(out)]
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
    print(f"optimize -w big-dir on bigdir, {' '.join(rules)}: {took:.0f} s, exit {done.returncode}; findings: {found}")
    for r in mixed["rows"]:
        low, high = r["change_ci"]
        interval = f"{low:+.0%}..{high:+.0%}" if low is not None and high is not None else "no interval"
        print(
            f"  {r['workload']} @ {r['target']} {r['metric']}: {r['before_median']:.1f} -> {r['after_median']:.1f} "
            f"{r['unit']} ({r['change']:+.0%}, {interval}) {r['verdict']}"
        )
    for rule in mixed.get("screened", []):
        moved = [
            f"{r['target']} {r['metric']} {r['change']:+.0%} {r['verdict']}"
            for r in rule["rows"]
            if r["verdict"] != "~"
        ]
        print(f"  {rule['rule']} on its own: {'; '.join(moved) or rule['stopped'] or 'no change beyond the noise'}")
    write(
        name,
        RESULTS / f"{name}.json",
        seconds=round(took),
        exit=done.returncode,
        findings=found,
        rows=mixed["rows"],
        notes=mixed["notes"],
        pairs=mixed["pairs"],
        repeats=sides,
        screened=mixed.get("screened", []),
        design=mixed.get("design"),
    )


if __name__ == "__main__":
    main()
