"""How a big directory's listing and a missing name's lookup scale with its size, over SMB, NFS and
FTP from the lab's client and on the NAS's own path: `nastune bench -w big-dir --dir-files N` on a
fresh `modern` lab (Samba's defaults, so names are matched without case) for N = 1,000, 10,000 and
100,000. Prints each median; records every repeat in bench/results/bigdir-scale.json.

Expectation (fixed before the run): Samba's miss latency grows with N (a case-insensitive miss
reads the whole directory), by at least 10 times from 1,000 to 100,000 files, while NFS's and
FTP's grow by less than 3 times (a miss is one lookup in the directory's index).

    .venv/bin/python bench/bigdir_scale.py [--repeats 3]"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from record import RESULTS, TOP, write

SIZES = (1_000, 10_000, 100_000)
NASTUNE = [sys.executable, "-m", "nastune"]


def measured(files: int, repeats: int, out: Path) -> dict[str, dict[str, list[float]]]:
    """Every repeat of each metric, by the target's kind, for a directory of `files`."""
    argv = [*NASTUNE, "bench", "--lab", "-w", "big-dir", "--dir-files", str(files), "--repeats", str(repeats)]
    subprocess.run([*argv, "--out", str(out)], cwd=TOP, check=True, capture_output=True)
    results = json.loads(out.read_text())["results"]
    return {r["target"]["kind"]: {m: v["values"] for m, v in r["metrics"].items()} for r in results}


def growth(runs: dict[int, dict], kind: str) -> float:
    """How many times slower a miss got from the smallest directory to the largest."""
    small, large = (statistics.median(runs[n][kind]["miss latency"]) for n in (SIZES[0], SIZES[-1]))
    return large / small


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=RESULTS / "bigdir-scale.json")
    args = parser.parse_args()
    runs: dict[int, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        try:
            subprocess.run([*NASTUNE, "lab", "up", "--scenario", "modern"], cwd=TOP, check=True, capture_output=True)
            for n in SIZES:
                runs[n] = measured(n, args.repeats, Path(tmp) / f"{n}.json")
                for kind, metrics in runs[n].items():
                    said = ", ".join(f"{m} {statistics.median(v):,.1f}" for m, v in metrics.items())
                    print(f"{n:>7,} files, {kind}: {said}", flush=True)
        finally:
            subprocess.run([*NASTUNE, "lab", "down"], cwd=TOP, capture_output=True)
    grew = {kind: round(growth(runs, kind), 2) for kind in runs[SIZES[0]]}
    print("a miss, times slower from the smallest directory to the largest: " + str(grew))
    met = grew["smb"] >= 10 and grew["nfs"] < 3 and grew["ftp"] < 3
    write(
        "bigdir-scale",
        args.out,
        goal="SMB's miss latency >= 10x from 1,000 to 100,000 files; NFS's and FTP's < 3x",
        result={"growth": grew, "met": met},
        sizes=list(SIZES),
        repeats=args.repeats,
        runs={str(n): metrics for n, metrics in runs.items()},
    )


if __name__ == "__main__":
    main()
