"""nfs-client-noac proved on the kernel lab: a client that mounts its NFS share with actimeo=0
(the kernel-noac scenario, its packets 2 ms away), `optimize --lab --kernel` with that rule alone
and the big-dir workload on the client's own mount (5,000 files listed with their attributes, the
client's dentries dropped before each listing, and missing names looked up), on a fresh guest,
run after run, each verdict interleaved with its interval and every pair's values. Under software
emulation (TCG) these are this machine's figures, not a NAS's: what they show is how many round
trips a listing costs the kernel's NFS client without its attribute cache.

    .venv/bin/python bench/kernel_noac.py [--runs 3] [--max-pairs 6] [--out bench/results/kernel-noac.json]"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from kernel_article import one
from record import TOP, write

RULES = ("nfs-client-noac",)
OPTIONS = ("--scenario", "kernel-noac", "-w", "big-dir", "--accept-risk", "durability")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--max-pairs", type=int, default=6)
    parser.add_argument("--out", type=Path, default=TOP / "bench" / "results" / "kernel-noac.json")
    args = parser.parse_args()
    runs = []
    with tempfile.TemporaryDirectory(prefix="nastune-noac-", dir="/var/lib/nastune") as tmp:
        for i in range(args.runs):
            runs.append(one(Path(tmp) / f"run-{i}", args.max_pairs, RULES, *OPTIONS))
            for r in runs[-1]["rows"]:
                low, high = r["change_ci"]
                said = f"{r['verdict']} {r['change']:+.0%} ({low:+.0%}..{high:+.0%})"
                print(f"run {i + 1}: {r['workload']} {r['metric']}: {said}")
    write(
        "kernel-noac",
        args.out,
        rules=list(RULES),
        options=list(OPTIONS),
        max_pairs=args.max_pairs,
        runs=runs,
        emulated=True,
    )


if __name__ == "__main__":
    main()
