"""Whether `optimize --screen` tells a change that matters from one that does nothing: first on
simulated runs (a fixed seed) as the lab measures them, one design of runs over the rules
(stats.factorial) measured once per run on three metrics (sequential writes over SMB, NFS and
FTP), a change that matters moving one of them, at the spreads and changes of SPREADS and
CHANGES, with 2 rules (as the lab's run below) and 9 (as soho's main job has); then run after
run on the lab's soho: ganesha-io-size-small (NFS-Ganesha's largest read and write raised from
its scenario's 64 KiB, which NFS writes feel) against nic-offloads-disabled (GRO switched back on
at a veth, which moves nothing measurable on this link). Each run builds a fresh lab, runs
`optimize --screen --keep-only -w seq-write` with only those two rules, and reads which of them
it left off. Goal (fixed before the run): told apart (the first kept, the second left off) in at
least 9 runs of 10. Prints each run and records every verdict in bench/results/screen-apart.json.

    .venv/bin/python bench/screen_apart.py [--runs 10] [--max-pairs 4] [--trials 1000]"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from record import RESULTS, write

from nastune.jobs.screen import Screened, idle
from nastune.stats.factorial import design, effects
from nastune.stats.runs import Row

MATTERS, NOTHING = "ganesha-io-size-small", "nic-offloads-disabled"
GOAL = 9  # runs of 10 told apart
SPREADS = (0.02, 0.03, 0.05)  # one run's spread (log-normal); soho's NFS writes: about 3%
CHANGES = (0.1, 0.17, 0.25, 0.5)  # what the rule that matters does to NFS writes
RULES = (2, 9)
TARGETS = ("smb://nas/data", "nfs://nas/data", "ftp://nas/pub")


def screening(rng: np.random.Generator, rules: int, nfs_change: float, spread: float) -> list[Screened]:
    """One screening simulated: the first rule moves NFS writes by `nfs_change`, the others nothing."""
    runs = design(rules)
    found: list[list[Row]] = [[] for _ in range(rules)]
    for target in TARGETS:
        change = nfs_change if target.startswith("nfs") else 0.0
        values = 100 * np.exp(np.log1p(change) * (runs[:, 0] > 0) + rng.normal(0, spread, len(runs)))
        for rows, effect in zip(found, effects(runs, list(values))):
            rows.append(Row("seq-write", target, "MB/s", "MB/s", True, None, effect))
    names = [MATTERS] + ([NOTHING] if rules == 2 else [f"nothing-{n}" for n in range(1, rules)])
    return [Screened(name, 1, rows) for name, rows in zip(names, found)]


def simulated(change: float, spread: float, trials: int, rules: int = 2, seed: int = 7) -> dict[str, float]:
    """The share of screenings that told the rules apart (the one that matters kept, every other
    left off), that left off the one that matters, and of the rules that do nothing kept."""
    rng = np.random.default_rng(seed)
    apart = lost = kept = 0
    for _ in range(trials):
        screened = screening(rng, rules, change, spread)
        apart += idle(screened) == ([MATTERS], [s.rule for s in screened[1:]])
        lost += screened[0].idle
        kept += sum(not s.idle for s in screened[1:])
    return {"apart": apart / trials, "matters_left_off": lost / trials, "nothing_kept": kept / trials / (rules - 1)}


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
    parser.add_argument("--trials", type=int, default=1000)
    args = parser.parse_args()
    simulation = [
        {"rules": rules, "spread": spread, "change": change, **simulated(change, spread, args.trials, rules)}
        for rules in RULES
        for spread in SPREADS
        for change in CHANGES
    ]
    for cell in simulation:
        print(json.dumps(cell), flush=True)
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
        runs_per_screening={rules: len(design(rules)) for rules in RULES},
        trials=args.trials,
        simulation=simulation,
        apart=apart,
        met=apart >= GOAL * len(runs) / 10,
        runs=runs,
    )


if __name__ == "__main__":
    main()
