"""Whether the main job keeps the same rules run after run: `optimize --screen` on a fresh soho
lab, as the main job runs it (every default workload, xfs_fsr allowed), RUNS times in a row; each
run's rules kept and offered for removal, with each rule's standing (helped, small, unresolved).
Goal (fixed before the run): the same set of rules kept in at least 9 runs of 10. A run where
the runs cannot decide a rule says so ("kept, not resolved") and keeps it.

    .venv/bin/python bench/keep_stability.py [--runs 10]"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from main_speed import run_flow
from record import RESULTS, TOP, write

GOAL = 9  # runs of 10 that keep the most common set


def once(out: Path) -> dict:
    """One main job: its seconds, each rule's standing, and the rules it kept and offered."""
    done = run_flow("interleaved", "auto", "5", out, ("--screen",))
    standing = {s["rule"]: s["standing"] for s in done["screened"]}
    offered = sorted(json.loads((out / "compare.json").read_text())["interleaved"].get("idle", []))
    return {
        "seconds": done["wall_s"],
        "pairs": done["pairs"],
        "standing": standing,
        "kept": sorted(r for r in standing if r not in offered),
        "offered": offered,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            for n in range(args.runs):
                runs.append(once(Path(tmp) / f"run{n}"))
                print(f"run {n + 1}: {json.dumps(runs[-1])}", flush=True)
        finally:  # optimize leaves the lab up, tuned; a bench leaves nothing behind
            subprocess.run([sys.executable, "-m", "nastune", "lab", "down"], cwd=TOP, capture_output=True)
    sets = Counter(tuple(r["kept"]) for r in runs)
    common, same = sets.most_common(1)[0]
    print(f"the same rules kept in {same} of {len(runs)} runs: {', '.join(common)}")
    write(
        "keep-stability",
        RESULTS / "keep-stability.json",
        goal=f"the same rules kept in at least {GOAL} runs of 10",
        same=same,
        kept=list(common),
        met=same >= GOAL * len(runs) / 10,
        runs=runs,
    )


if __name__ == "__main__":
    main()
