"""The README's test command timed from a fresh clone: reads the log of `ci-local` (a `git clone`
of the checkout, then `.ci/run` as root, as CI runs it) and records its time in all and each of
its pytest runs (the host tests, the namespace lab's tests two at a time, those alone, and beside
them the kernel lab's and the fast subset) with their slowest tests, in
bench/results/suite-time.json. Goal (the first hour's): 15 minutes at most on this 2-core machine.

    ../shared/tools/ci-local > /tmp/ci-local.log 2>&1; .venv/bin/python bench/suite_time.py /tmp/ci-local.log"""

from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path

from record import RESULTS, write

GOAL_S = 15 * 60
PHASES = ("host", "lab two at a time", "lab alone", "kernel lab", "fast")  # the order scripts/test prints them in
RUN = re.compile(r"^(?:(\d+) failed, )?(\d+) passed(?:, \d+ deselected)? in ([\d.]+)s")
SLOW = re.compile(r"^([\d.]+)s (call|setup|teardown)\s+(\S+)")
END = re.compile(r"^ci-local: exit (\d+) after (\d+) s")
CLONE = re.compile(r"^ci-local: running \.ci/run in (\S+)")


def parsed(log: str) -> dict:
    """Each pytest run's tests, seconds and slowest tests, in order, and the exit and seconds in all."""
    runs: list[dict] = []
    slow: list[dict] = []
    ended = {}
    for line in log.splitlines():
        if m := SLOW.match(line):
            slow.append({"seconds": float(m[1]), "when": m[2], "test": m[3]})
        elif m := RUN.match(line):
            failed = int(m[1] or 0)
            runs.append({"tests": failed + int(m[2]), "failed": failed, "seconds": float(m[3]), "slowest": slow})
            slow = []
        elif m := END.match(line):
            ended = {"exit": int(m[1]), "seconds": int(m[2])}
    if len(runs) != len(PHASES) or not ended:
        raise SystemExit(f"not a whole ci-local log of scripts/test: {len(runs)} pytest runs, ended {bool(ended)}")
    return {**ended, "phases": {name: run for name, run in zip(PHASES, runs)}}


def tested(log: str) -> str:
    """The commit the log's clone ran (ci-local leaves its clone), or "" when it is gone."""
    found = CLONE.search(log.splitlines()[0]) if log else None
    if not found or not Path(found[1]).exists():
        return ""
    return subprocess.run(["git", "-C", found[1], "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", type=Path)
    args = parser.parse_args()
    log = args.log.read_text()
    found = {**parsed(log), "tested": tested(log)}
    print(f"exit {found['exit']} after {found['seconds']} s (goal {GOAL_S} s)")
    for name, run in found["phases"].items():
        print(f"  {name}: {run['tests']} tests ({run['failed']} failed) in {run['seconds']:.0f} s")
    write("suite-time", RESULTS / "suite-time.json", goal_s=GOAL_S, met=found["seconds"] <= GOAL_S, **found)


if __name__ == "__main__":
    main()
