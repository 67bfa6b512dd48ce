"""What one autotune trial costs on the lab, and where its time goes: a short search on a fresh
soho through its inventory (the lab test's, at the main job's transfer size: NFS writes, two
tunables, budget 6, 3 repeats), each trial's seconds from autotune.json split into measuring
and applying plus rolling back, beside the time the data itself takes at the link's goodput.

No goal of its own (issue 25 asks for the time per trial to be printed, then reduced): each
record is what a change to a trial's cost is measured against. bench/results/
autotune-speed-before.json is the run before a trial found its targets once and warmed up once
(it had done both again for the rest of its repeats after the first).

    .venv/bin/python bench/autotune_speed.py [--budget 6] [--size 128M] [--out bench/results/autotune-speed.json]

Builds the lab in a temporary directory and takes it down afterwards."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import RESULTS, write

REPEATS = 3
WORKLOAD = "nfs:seq-write"
KNOBS = ("nfs-transfer-size", "tcp-buffer-max")


def nastune(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nastune", *args], check=True, text=True, capture_output=True, env=env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=6)
    parser.add_argument("--size", default="128M")
    parser.add_argument("--out", type=Path, default=RESULTS / "autotune-speed.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        env = {**os.environ, "NASTUNE_LAB_DIR": str(tmp / "lab")}
        nastune(env, "lab", "up", "--scenario", "soho")
        try:
            knobs = [a for k in KNOBS for a in ("--knobs", k)]
            argv = ["autotune", "--yes", "--inventory", str(tmp / "lab" / "inventory.ini"), "-w", WORKLOAD, *knobs]
            argv += ["--budget", str(args.budget), "--repeats", str(REPEATS), "--size", args.size]
            started = time.monotonic()
            done = nastune(env, *argv, "--out", str(tmp / "autotune"))
            wall = time.monotonic() - started
            summary = json.loads((tmp / "autotune" / "autotune.json").read_text())
            (base,) = json.loads((tmp / "autotune" / "trials" / "0.json").read_text())["results"]
            goodput = base["metrics"]["MB/s"]["limit"] * 1e6  # the link's goodput, bytes per second
        finally:
            nastune(env, "lab", "down")
    trials = [t for t in summary["trials"] if "seconds" in t]
    each = statistics.median(t["seconds"] for t in trials)
    measuring = statistics.median(t["measuring_seconds"] for t in trials)
    size = int(args.size.rstrip("M")) << 20
    moving = REPEATS * size / goodput if goodput else None
    printed = [
        f"{len(trials)} trials measured (budget {args.budget}, {REPEATS} repeats of {args.size}), {wall:.0f} s in all",
        f"a trial: {each:.1f} s (median), {measuring:.1f} s of it measuring, {each - measuring:.1f} s applying "
        "and rolling back",
    ]
    if moving:
        printed.append(f"the data of a trial's repeats takes {moving:.1f} s at the link's goodput")
    for line in printed:
        print(line)
    print(done.stdout.strip().splitlines()[-1])
    write(
        "autotune-speed",
        args.out,
        budget=args.budget,
        size=args.size,
        repeats=REPEATS,
        workload=WORKLOAD,
        knobs=list(KNOBS),
        wall_s=round(wall, 1),
        trial_s=each,
        measuring_s=measuring,
        data_s=round(moving, 2) if moving else None,
        printed=printed,
        trials=trials,
    )


if __name__ == "__main__":
    main()
