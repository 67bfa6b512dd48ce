"""Held-out proof of `optimize --screen`'s offers, run after run on the lab's `modern` NAS
(bench/screen_simulated.py simulates it): mtu-jumbo-frames, known to buy about 5% of a gigabit
link (117.7 -> 123.8 MB/s of TCP payload; the lab shapes its link to that framing), against
tcp-slow-start-after-idle, which cannot move a transfer that never idles, measured with iperf3
both ways. Each run builds a fresh lab, runs `optimize --screen --keep-only -w network` with only
those two rules, and reads which it offered for removal. Goal (fixed before the run): the 5% rule
never offered, the other offered in at least 7 runs of 10. Prints each run and records every
verdict in bench/results/screen-heldout.json.

    .venv/bin/python bench/screen_heldout.py [--runs 10] [--max-pairs 4]"""

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

MATTERS, NOTHING = "mtu-jumbo-frames", "tcp-slow-start-after-idle"
GOAL = 7  # runs of 10 that offer the rule that does nothing (and none may offer the one that matters)


def once(out: Path, max_pairs: str, env: dict[str, str]) -> dict:
    """One run: its seconds, each rule's standing and intervals alone, the smallest effect it
    could miss, and which rules it offered for removal."""
    argv = [sys.executable, "-m", "nastune", "optimize", "--lab", "--scenario", "modern", "--yes", "--screen"]
    argv += ["--keep-only", "-w", "network", "--only", MATTERS, "--only", NOTHING, "--max-pairs", max_pairs]
    start = time.monotonic()
    done = subprocess.run([*argv, "--out", str(out)], capture_output=True, text=True, env=env)
    took = time.monotonic() - start
    if not (out / "compare.json").exists():
        return {"seconds": round(took), "exit": done.returncode, "error": done.stderr[-400:], "offered": None}
    mixed = json.loads((out / "compare.json").read_text())["interleaved"] or {}
    rules = {
        s["rule"]: {
            "standing": s["standing"],
            "rows": [
                f"{r['metric']} {r['change']:+.3f} [{r['change_ci'][0]:+.3f}, {r['change_ci'][1]:+.3f}]"
                for r in s["rows"]
            ],
        }
        for s in mixed.get("screened", [])
    }
    return {
        "seconds": round(took),
        "exit": done.returncode,
        "pairs": mixed.get("pairs"),
        "plan": [f"{r['metric']} {r['change']:+.3f} {r['verdict']}" for r in mixed.get("rows", [])],
        "rules": rules,
        "unseen": mixed.get("unseen"),
        "offered": mixed.get("idle", []),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--max-pairs", default="4")
    args = parser.parse_args()
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "NASTUNE_LAB_DIR": f"{tmp}/lab", "NASTUNE_LAB_PREFIX": "nsh"}
        try:
            for n in range(args.runs):
                runs.append(once(Path(tmp) / f"run{n}", args.max_pairs, env))
                print(f"run {n + 1}: {json.dumps(runs[-1])}", flush=True)
        finally:
            subprocess.run([sys.executable, "-m", "nastune", "lab", "down"], env=env, capture_output=True)
    done = [r for r in runs if r["offered"] is not None]
    nothing = sum(NOTHING in r["offered"] for r in done)
    matters = sum(MATTERS in r["offered"] for r in done)
    print(f"{NOTHING} offered in {nothing} of {len(done)} runs, {MATTERS} in {matters} (goal: {GOAL} of 10, and 0)")
    write(
        "screen-heldout",
        RESULTS / "screen-heldout.json",
        goal=f"{MATTERS} never offered for removal, {NOTHING} offered in at least {GOAL} runs of 10",
        nothing_offered=nothing,
        matters_offered=matters,
        measured=len(done),
        met=matters == 0 and nothing >= GOAL * len(runs) / 10 and len(done) == len(runs),
        runs=runs,
    )


if __name__ == "__main__":
    main()
