"""How long a `nastune` process takes to start, as a ratio to `python -c pass` measured beside it
in the same run (every nastune command, the NAS agent's over SSH and each Ansible module call
pay it). Goal: `nastune --help` and `nastune explain` within 10x.

    .venv/bin/python bench/startup.py [--repeats 15] [--out bench/results/startup.json]

The commands run interleaved, round after round, so a change of the machine's load hits them
alike; the record keeps every repeat with the commit, host and date."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from record import TOP, write

GOAL = 10.0
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "nastune --help": [sys.executable, "-m", "nastune", "--help"],
    "nastune explain": [sys.executable, "-m", "nastune", "explain"],
    "nastune apply --help": [sys.executable, "-m", "nastune", "apply", "--help"],
    "import nastune.cli": [sys.executable, "-c", "import nastune.cli"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--out", type=Path, default=TOP / "bench" / "results" / "startup.json")
    args = parser.parse_args()
    env = {**os.environ, "COLUMNS": "80"}
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(args.repeats):
        for name, argv in COMMANDS.items():
            start = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
            times[name].append(time.perf_counter() - start)
    base = statistics.median(times["python -c pass"])
    rows = []
    for name, values in times.items():
        median = statistics.median(values)
        rows.append({"command": name, "median_s": round(median, 4), "ratio": round(median / base, 1), "s": values})
        goal = (
            f"  (goal <= {GOAL:.0f}x: {'met' if median / base <= GOAL else 'NOT met'})"
            if "help" in name or "explain" in name
            else ""
        )
        print(f"{name:24} {median * 1000:7.0f} ms  {median / base:6.1f}x python -c pass{goal}")
    write("startup", args.out, goal_ratio=GOAL, rows=rows)


if __name__ == "__main__":
    main()
