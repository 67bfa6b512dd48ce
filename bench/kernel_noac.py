"""nfs-client-noac proved on the kernel lab: a client that mounts its NFS share with actimeo=0
(the kernel-noac scenario, its packets 2 ms away), `optimize --lab --kernel` with that rule alone
and the big-dir workload on the client's own mount (5,000 files listed with their attributes, the
client's dentries dropped before each listing, and missing names looked up), on a fresh guest,
run after run, each verdict interleaved with its interval and every pair's values. Under software
emulation (TCG) these are this machine's figures, not a NAS's: what they show is how many round
trips a listing costs the kernel's NFS client without its attribute cache.

    .venv/bin/python bench/kernel_noac.py [--runs 3] [--max-pairs 6] [--out bench/results/kernel-noac.json]"""

from __future__ import annotations

from kernel_article import arguments, runs
from record import write

RULES = ("nfs-client-noac",)
OPTIONS = ("--scenario", "kernel-noac", "-w", "big-dir", "--accept-risk", "durability")


def main() -> None:
    args = arguments(__doc__ or "", "kernel-noac")
    done = runs(args, RULES, *OPTIONS)
    write(
        "kernel-noac",
        args.out,
        rules=list(RULES),
        options=list(OPTIONS),
        max_pairs=args.max_pairs,
        runs=done,
        emulated=True,
    )


if __name__ == "__main__":
    main()
