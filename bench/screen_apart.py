"""Whether `optimize --screen` tells a change that matters from one that does nothing, run after
run on the lab's soho (bench/screen_simulated.py simulates it): ganesha-io-size-small
(NFS-Ganesha's largest read and write raised from its scenario's 64 KiB, which NFS writes feel)
against nic-offloads-disabled (GRO switched back on at a veth, which moves nothing measurable on
this link). Each run builds a fresh lab, runs `optimize --screen --keep-only -w seq-write` with
only those two rules, and reads which of them it left off. Goal (fixed before the run): told
apart (the first kept, the second left off) in at least 9 runs of 10. Prints each run and
records every verdict in bench/results/screen-apart.json.

    .venv/bin/python bench/screen_apart.py [--runs 10] [--max-pairs 4]"""

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

MATTERS, NOTHING = "ganesha-io-size-small", "nic-offloads-disabled"
GOAL = 9  # runs of 10 told apart


def once(out: Path, max_pairs: str, env: dict[str, str]) -> dict:
    """One run: its seconds, each rule's verdicts alone, and which rules it left off."""
    argv = [sys.executable, "-m", "nastune", "optimize", "--lab", "--yes", "--screen", "--keep-only"]
    argv += ["-w", "seq-write", "--only", MATTERS, "--only", NOTHING, "--max-pairs", max_pairs, "--out", str(out)]
    start = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, env=env)
    took = time.monotonic() - start
    if not (out / "compare.json").exists():
        return {"seconds": round(took), "exit": done.returncode, "error": done.stderr[-400:], "apart": False}
    mixed = json.loads((out / "compare.json").read_text())["interleaved"] or {}
    rules = {
        s["rule"]: [f"{r['target']} {r['verdict']} {r['change']:+.3f}" for r in s["rows"]] or [s["stopped"]]
        for s in mixed.get("screened", [])
    }
    left_off = mixed.get("idle", []) if mixed.get("dropped") else []
    return {
        "seconds": round(took),
        "exit": done.returncode,
        "rules": rules,
        "left_off": left_off,
        "apart": left_off == [NOTHING],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--max-pairs", default="4")
    args = parser.parse_args()
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "NASTUNE_LAB_DIR": f"{tmp}/lab", "NASTUNE_LAB_PREFIX": "nsa"}
        try:
            for n in range(args.runs):
                runs.append(once(Path(tmp) / f"run{n}", args.max_pairs, env))
                print(f"run {n + 1}: {json.dumps(runs[-1])}", flush=True)
        finally:
            subprocess.run([sys.executable, "-m", "nastune", "lab", "down"], env=env, capture_output=True)
    apart = sum(r["apart"] for r in runs)
    print(f"told apart in {apart} of {len(runs)} runs (goal: {GOAL} of 10)")
    write(
        "screen-apart",
        RESULTS / "screen-apart.json",
        goal=f"{MATTERS} kept and {NOTHING} left off in at least {GOAL} runs of 10",
        apart=apart,
        met=apart >= GOAL * len(runs) / 10,
        runs=runs,
    )


if __name__ == "__main__":
    main()
