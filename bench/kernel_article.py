"""The founding NFS article's client options proved on the kernel lab: `optimize --lab --kernel`
with the client's own rules (rsize/wsize 8192 -> 1 MiB, noatime, the mount's read-ahead) on a
fresh guest, run after run, each verdict interleaved with its interval and every pair's values.
Under software emulation (TCG) these are this machine's figures, not a NAS's: what they show is
that the kernel's NFS client, mounted again with the article's options, is judged on real mounts.

    .venv/bin/python bench/kernel_article.py [--runs 3] [--max-pairs 6] [--out bench/results/kernel-article.json]"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import TOP, write

RULES = ("nfs-client-rsize-small", "nfs-client-atime", "nfs-client-read-ahead")


def nastune(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "nastune", *args]
    return subprocess.run(argv, capture_output=True, text=True, env={**os.environ, **env}, stdin=subprocess.DEVNULL)


def values(out: Path) -> dict[str, dict[str, dict[str, list[float]]]]:
    """Each side's values of every pair, by workload and metric."""
    found: dict[str, dict[str, dict[str, list[float]]]] = {}
    for side in ("a", "b"):
        results = json.loads((out / "interleaved" / f"{side}.json").read_text())["results"]
        for r in results:
            for metric, m in r["metrics"].items():
                found.setdefault(r["workload"], {}).setdefault(metric, {})[side.upper()] = m["values"]
    return found


def one(work: Path, max_pairs: int, rules: tuple[str, ...] = RULES, *more: str) -> dict:
    """One optimize of `rules` (and `more` of its options) on a fresh guest, taken down after."""
    env = {"NASTUNE_KERNEL_LAB_DIR": str(work / "lab"), "NASTUNE_LAB_DIR": str(work / "netns")}
    only = [arg for rule in rules for arg in ("--only", rule)]
    out = work / "out"
    began = time.monotonic()
    try:
        options = ["--max-pairs", str(max_pairs), "--out", str(out), "--json", *more]
        done = nastune(env, "optimize", "--lab", "--kernel", "--yes", *only, *options)
    finally:
        nastune(env, "lab", "down")
    seconds = round(time.monotonic() - began)
    if not (out / "compare.json").exists():
        raise SystemExit(f"optimize exited {done.returncode}: {done.stderr[-2000:]}")
    mixed = json.loads((out / "compare.json").read_text())["interleaved"]
    rows = [{k: r[k] for k in ("workload", "metric", "verdict", "change", "change_ci")} for r in mixed["rows"]]
    return {
        "exit": done.returncode,
        "seconds": seconds,
        "pairs": mixed["pairs"],
        "rows": rows,
        "refused": mixed["refused"],
        "values": values(out),
    }


def arguments(doc: str, record: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--max-pairs", type=int, default=6)
    parser.add_argument("--out", type=Path, default=TOP / "bench" / "results" / f"{record}.json")
    return parser.parse_args()


def runs(args: argparse.Namespace, rules: tuple[str, ...], *more: str) -> list[dict]:
    """`args.runs` optimizes (see `one`), each verdict printed as it comes."""
    done = []
    with tempfile.TemporaryDirectory(prefix="nastune-kernel-", dir="/var/lib/nastune") as tmp:
        for i in range(args.runs):
            done.append(one(Path(tmp) / f"run-{i}", args.max_pairs, rules, *more))
            for r in done[-1]["rows"]:
                low, high = r["change_ci"]
                said = f"{r['verdict']} {r['change']:+.0%} ({low:+.0%}..{high:+.0%})"
                print(f"run {i + 1}: {r['workload']} {r['metric']}: {said}")
    return done


def main() -> None:
    args = arguments(__doc__ or "", "kernel-article")
    done = runs(args, RULES)
    verdicts = {
        w: [r["verdict"] for run in done for r in run["rows"] if r["workload"] == w] for w in ("seq-write", "seq-read")
    }
    write(
        "kernel-article",
        args.out,
        rules=list(RULES),
        max_pairs=args.max_pairs,
        verdicts=verdicts,
        runs=done,
        emulated=True,
    )


if __name__ == "__main__":
    main()
