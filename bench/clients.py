"""Many clients at once, measured on the lab over SSH in one run: aggregate throughput for 1, 2
and 4 clients as a share of the NAS link's goodput, Jain's fairness index, and the stress
degradation (one client's latency and throughput while the others load the NAS).

Goal, fixed before the run: no aggregate above the link's goodput (that would be a cache, not
the NAS), and Jain's index at least 0.95 with 4 clients (one link shared fairly). Recorded in
bench/results/clients.json.

    .venv/bin/python bench/clients.py [--target nfs] [--size 64M] [--repeats 3]

Brings up a 4-client modern lab in a temporary directory and takes it down afterwards."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from record import RESULTS, write

from nastune.bench import results
from nastune.jobs.stress import degradation

GOAL = "no aggregate above the link's goodput; Jain's index >= 0.95 with 4 clients"


def nastune(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nastune", *args], check=True, text=True, capture_output=True, env=env)


def med(metric: dict) -> float:
    return statistics.median(metric["values"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="nfs")
    parser.add_argument("--size", default="64M")
    parser.add_argument("--repeats", default="3")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "NASTUNE_LAB_DIR": f"{tmp}/lab"}
        nastune(env, "lab", "up", "--scenario", "modern", "--clients", "4")
        try:
            common = ("--lab", "--target", args.target, "--size", args.size, "--repeats", args.repeats)
            scaling, stress = Path(tmp) / "scaling.json", Path(tmp) / "stress.json"
            nastune(env, "bench", *common, "--clients", "all", "--scaling", "-w", "seq-write", "--out", str(scaling))
            workloads = ["-w", "seq-read"] + (["-w", "sync-write", "-w", "small-files"] if args.target == "nfs" else [])
            nastune(env, "bench", *common, "--clients", "all", "--stress", *workloads, "--out", str(stress))
            steps = json.loads(scaling.read_text())["results"]
            idle, loaded = results.load(stress.with_name("stress.idle.json")), results.load(stress)
        finally:
            nastune(env, "lab", "down")
    printed = [f"{args.target} seq-write of {args.size}, {args.repeats} repeats, through one 1 Gbit NAS link"]
    printed.append(f"{'clients':8} {'aggregate':>12} {'of goodput':>11} {'Jain':>6}  per client")
    scaled = []
    for r in steps:
        m = r["metrics"]
        clients = r["target"].get("client", "").split(",")
        each = [med(m[f"MB/s @{c}"]) for c in clients] if len(clients) > 1 else []
        jain = med(m["fairness"]) if "fairness" in m else None
        limit = m["MB/s"]["limit"]
        scaled.append({"clients": len(clients), "MB/s": med(m["MB/s"]), "limit": limit, "jain": jain, "each": each})
        shown = f"{jain:.3f}" if jain is not None else "-"
        printed.append(
            f"{len(clients):<8} {med(m['MB/s']):8.1f} MB/s {med(m['MB/s']) / limit:10.1%} {shown:>6}  "
            + " ".join(f"{e:.1f}" for e in each)
        )
    printed.append(f"stress: c1 measures, {loaded.label}")
    printed.append(f"{'workload':36} {'metric':22} {'idle':>12} {'loaded':>12} {'times worse':>12}")
    rows = degradation(idle, loaded)
    for row in rows:
        unit = row["unit"]
        printed.append(
            f"{row['workload']:36} {row['metric']:22} {row['idle']:9.1f} {unit:>2} {row['loaded']:9.1f} {unit:>2} "
            f"{row['worse']:11.2f}x"
        )
    widest = max(scaled, key=lambda s: s["clients"])
    met = all(s["MB/s"] <= s["limit"] for s in scaled) and (widest["jain"] or 0) >= 0.95
    printed.append(f"clients goal: {'met' if met else 'NOT met'}")
    print("\n".join(printed))
    result = {"met": met, "scaling": scaled, "stress": rows, "printed": printed}
    write("clients", RESULTS / "clients.json", goal=GOAL, result=result, runs={"scaling": steps})


if __name__ == "__main__":
    main()
