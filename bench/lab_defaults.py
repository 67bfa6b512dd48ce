"""The lab's default workloads, measured: each median, its coefficient of variation over the
repeats, and its ratio to the link's physical goodput.

    .venv/bin/python bench/lab_defaults.py [--scenario soho] [--size 256M] [--repeats 5]

Brings the lab up with the scenario if it is not up (and takes it down again afterwards)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path


def nastune(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nastune", *args], check=True, text=True, capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="soho")
    parser.add_argument("--size", default="256M")
    parser.add_argument("--repeats", default="5")
    args = parser.parse_args()
    was_up = subprocess.run([sys.executable, "-m", "nastune", "lab", "status"], capture_output=True).returncode == 0
    if not was_up:
        nastune("lab", "up", "--scenario", args.scenario)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "results.json"
            nastune("bench", "--lab", "--size", args.size, "--repeats", args.repeats, "--out", str(out))
            data = json.loads(out.read_text())
    finally:
        if not was_up:
            nastune("lab", "down")
    print(f"scenario {data['provenance']['lab_scenario']}, {args.repeats} repeats of {args.size}")
    print(f"{'workload':10} {'target':28} {'metric':14} {'median':>12} {'CV':>6} {'of limit':>9}")
    for r in data["results"]:
        for name, m in r["metrics"].items():
            values = sorted(m["values"])
            median = values[len(values) // 2]
            mean = sum(values) / len(values)
            cv = (sum((v - mean) ** 2 for v in values) / max(len(values) - 1, 1)) ** 0.5 / mean
            ratio = f"{median / m['limit']:.1%}" if m.get("limit") else "-"
            print(
                f"{r['workload']:10} {r['target']['url']:28} {name:14} {median:9.1f} {m['unit']:>2} "
                f"{cv:6.1%} {ratio:>9}"
            )


if __name__ == "__main__":
    main()
