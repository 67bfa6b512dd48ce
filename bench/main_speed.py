"""The main job's cost and proof, both flows side by side in one run: `nastune optimize` on a
fresh lab soho with its default workloads, once the classic way (`--flow before-after`:
measure, apply, measure, then interleave the settings a second time) and once interleaved
(`--flow interleaved`: the settings proved by interleaving alone, stopping each workload when
it is settled; the one-off action before/after on the workload it changes, its after being the interleaved A).
As the job ran when issue 25 measured it, the before-after flow moves 256M per transfer and
first looks at its interleaved pairs at pair 5; the interleaved flow runs with optimize's
defaults (auto: half a second at the link's goodput; looks from pair 3 to 8).
For each: wall time after the lab's set-up, per phase (from the job's own progress lines,
timestamped as they arrive), the time the sequential transfers took (each repeat's size over its
rate), switching time, the verdicts and the metrics the A/A control refused.

Goal (issue 25), fixed before the run: the interleaved flow's wall time after set-up at most a
third of the before-after flow's, at least as many "better" verdicts, 0 "worse", at most 1
refused metric.

    .venv/bin/python bench/main_speed.py [--sizes interleaved=auto,before-after=256M] [--repeats 5]
        [--order interleaved,before-after]
        [--out bench/results/main-speed.json]"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import RESULTS, TOP, write

GOAL = "interleaved after set-up <= 1/3 of before-after; better >=; worse 0; refused <= 1"
FLOW_ARGS = {"before-after": ["--min-pairs", "5"], "interleaved": []}


def run_flow(flow: str, size: str, repeats: str, out: Path, extra: tuple[str, ...] = ()) -> dict:
    argv = [
        sys.executable,
        "-m",
        "nastune",
        "optimize",
        "--lab",
        "--yes",
        "--allow",
        "xfs_fsr",
        "--flow",
        flow,
        "--size",
        size,
    ]
    argv += ["--repeats", repeats, "--out", str(out), *FLOW_ARGS[flow], *extra]
    started = time.monotonic()
    lines: list[tuple[float, str]] = []
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=TOP) as proc:
        for line in proc.stderr or ():
            lines.append((time.monotonic() - started, line.rstrip()))
        stdout = (proc.stdout.read() if proc.stdout else "").strip()
    took = time.monotonic() - started
    if proc.returncode != 0:
        tail = "\n".join(text for _, text in lines[-15:])
        raise SystemExit(f"optimize --flow {flow} failed ({proc.returncode}):\n{tail}\n{stdout}")
    compared = json.loads((out / "compare.json").read_text())
    mixed = compared.get("interleaved") or {}
    return {
        "flow": flow,
        "wall_s": round(took, 1),
        "phases": phases(lines, took),
        "size": size,
        "transfer_s": round(transfer_seconds(out), 1),
        "switch_s": mixed.get("switch_seconds", 0.0),
        "pairs": mixed.get("pairs", 0),
        "before_after": [verdict(r) for r in compared["rows"]],
        "interleaved": [verdict(r) for r in mixed.get("rows", [])],
        "refused": mixed.get("refused", []),
        "stopped": mixed.get("stopped", ""),
        "screened": mixed.get("screened", []),
        "design": mixed.get("design"),
        "idle": mixed.get("idle", []),
        "last_line": stdout.splitlines()[-1] if stdout else "",
        "log": [[round(at, 1), text] for at, text in lines],
    }


def phases(lines: list[tuple[float, str]], end: float) -> dict[str, float]:
    """Seconds per phase, from the job's progress lines ("optimize: measure: before ..."); `setup`
    is everything before `inspect` (building the fresh lab)."""
    marks: list[tuple[float, str]] = [(0.0, "setup")]
    for at, text in lines:
        body = text.removeprefix("optimize: ")
        head = body.split(":")[0]
        if body == text:
            continue
        if head == "measure":
            name = "measure " + body.split(":")[1].split("(")[0].strip()
        elif head in ("inspect", "diagnose", "apply", "interleave", "screen"):
            name = head
        elif head.startswith("pair "):
            name = "interleave"
        else:
            continue
        if name != marks[-1][1]:
            marks.append((at, name))
    spent: dict[str, float] = {}
    for (at, name), (until, _) in zip(marks, marks[1:] + [(end, "")]):
        spent[name] = round(spent.get(name, 0.0) + until - at, 1)
    return spent


def transfer_seconds(out: Path) -> float:
    """Each repeat's bytes (the size it was run with) over its rate, for the sequential workloads."""
    seconds = 0.0
    for name in ("before.json", "after.json", "interleaved/a.json", "interleaved/b.json"):
        path = out / name
        if not path.exists():
            continue
        for result in json.loads(path.read_text())["results"]:
            if not result["workload"].startswith("seq-"):
                continue
            for metric in result["metrics"].values():
                if metric["unit"] == "MB/s":
                    seconds += sum(result["params"]["size"] / (v * 1e6) for v in metric["values"] if v > 0)
    return seconds


def verdict(row: dict) -> dict:
    return {k: row[k] for k in ("workload", "target", "metric", "before_median", "after_median", "change", "verdict")}


def count(rows: list[dict], what: str) -> int:
    return sum(r["verdict"] == what for r in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="interleaved=auto,before-after=256M")
    parser.add_argument("--repeats", default="5")
    parser.add_argument("--order", default="interleaved,before-after")
    parser.add_argument("--out", type=Path, default=RESULTS / "main-speed.json")
    args = parser.parse_args()
    sizes = dict(pair.split("=") for pair in args.sizes.split(","))
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            for flow in args.order.split(","):
                runs.append(run_flow(flow, sizes[flow], args.repeats, Path(tmp) / flow))
                print(f"{flow}: {runs[-1]['last_line']}", flush=True)
        finally:  # optimize leaves the lab up, tuned; a bench leaves nothing behind
            subprocess.run([sys.executable, "-m", "nastune", "lab", "down"], cwd=TOP, capture_output=True)
    by_flow = {r["flow"]: r for r in runs}
    for r in runs:
        after_setup = r["wall_s"] - r["phases"].get("setup", 0.0)
        # the proof of each flow: its interleaved verdicts, plus the before/after ones of what
        # interleaving cannot switch (the one-off actions)
        proof = r["interleaved"] + (r["before_after"] if r["flow"] == "interleaved" else [])
        r["after_setup_s"] = round(after_setup, 1)
        r["better"], r["worse"] = count(proof, "better"), count(proof, "worse")
        print(
            f"\n{r['flow']} (--size {r['size']}): {r['wall_s']:.0f} s wall, {after_setup:.0f} s after set-up; "
            f"transfers {r['transfer_s']:.0f} s, "
            f"switching {r['switch_s']:.0f} s, {r['pairs']} pairs; {r['better']} better, {r['worse']} worse, "
            f"{len(r['refused'])} refused{'; ' + r['stopped'] if r['stopped'] else ''}"
        )
        print("  phases: " + ", ".join(f"{name} {s:.0f} s" for name, s in r["phases"].items()))
        for label, rows in (("before/after", r["before_after"]), ("interleaved", r["interleaved"])):
            for row in rows:
                print(
                    f"  {label:12} {row['workload']:10} {row['target']:30} {row['metric']:10} "
                    f"{row['before_median']:9.1f} -> {row['after_median']:9.1f} {row['change']:+7.1%} {row['verdict']}"
                )
        for metric in r["refused"]:
            print(f"  refused: {metric}")
    goal = {}
    if {"interleaved", "before-after"} <= by_flow.keys():
        new, old = by_flow["interleaved"], by_flow["before-after"]
        ratio = new["after_setup_s"] / old["after_setup_s"]
        goal = {
            "time_ratio": round(ratio, 3),
            "met": ratio <= 1 / 3 and new["better"] >= old["better"] and new["worse"] == 0 and len(new["refused"]) <= 1,
        }
        print(
            f"\ninterleaved / before-after, after set-up: {ratio:.2f} (goal <= 0.33); better {new['better']} vs "
            f"{old['better']} (goal >=), worse {new['worse']} (goal 0), refused {len(new['refused'])} (goal <= 1): "
            f"{'met' if goal['met'] else 'NOT met'}"
        )
    write("main-speed", args.out, goal=GOAL, result=goal, runs=runs)


if __name__ == "__main__":
    main()
