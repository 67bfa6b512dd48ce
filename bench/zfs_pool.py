"""The founding NFS benchmark's ZFS questions on a real OpenZFS pool (the kernel lab's `zfs`
scenario: OpenZFS 2.3, a raidz of three disks held to 200 I/O operations a second, a spare
unthrottled log disk), each measured side by side in one run, rounds alternating:

- recordsize: 1 MiB sequential writes and reads of a 256 MiB file on a dataset with recordsize
  128K against one with 1M, and 16 KiB random writes into a 64 MiB file on 16K against 128K (a
  smaller write into a larger record rewrites the record);
- the log device: 16 KiB synchronous writes (fsync after each, as an NFS client's COMMIT or a
  database asks) on sync=standard without a separate log (the intent log on the raidz's disks)
  against with the spare disk added as a SLOG.

fio runs on the NAS itself (the guest), on datasets made for the run with primarycache=metadata
so that reads come from the pool, not the ARC; every repeat is recorded, with the ratio of the
medians. Under software emulation the guest's CPU sets much of each figure: the ratios say which
way a setting goes and roughly how far, not what a NAS on hardware gains.

    .venv/bin/python bench/zfs_pool.py [--rounds 3]"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path

from record import RESULTS, write

from nastune.lab import scenario
from nastune.lab.guest.machine import LOG_SERIAL
from nastune.lab.sh import run
from nastune.remote import inventory
from nastune.sites.lab.kernel import KernelLab
from nastune.ssh import Ssh

LOG = f"/dev/disk/by-id/virtio-{LOG_SERIAL}"
JOBS = {  # name: fio options beside --directory and --name
    "seq-write": ["--rw=write", "--bs=1M", "--size=256M", "--end_fsync=1"],
    "seq-read": ["--rw=read", "--bs=1M", "--size=256M"],
    "rand-write-16k": ["--rw=randwrite", "--bs=16k", "--size=64M", "--io_size=16M", "--end_fsync=1"],
    "sync-write-16k": ["--rw=write", "--bs=16k", "--size=8M", "--fsync=1"],
}
COMPARISONS = {  # what each record sets side by side: (job, dataset A, dataset B)
    "recordsize": [
        ("seq-write", "rs128k", "rs1m"),
        ("seq-read", "rs128k", "rs1m"),
        ("rand-write-16k", "rs128k", "rs16k"),
    ],
    "slog": [("sync-write-16k", "nolog", "slog")],
}
DATASETS = {"rs128k": "recordsize=128K", "rs1m": "recordsize=1M", "rs16k": "recordsize=16K"}


def nas(lab: KernelLab) -> Ssh:
    return Ssh(inventory.load(lab.inventory_path).nas)


def on(host: Ssh, *argv: str, timeout: float = 1800) -> str:
    return run(host.argv(list(argv)), timeout=timeout).stdout


def prepare(host: Ssh) -> None:
    """The run's datasets, their data read from the pool (not the ARC), and a sync one."""
    for name, prop in {**DATASETS, "sync": "recordsize=128K"}.items():
        on(host, "zfs", "create", "-o", prop, "-o", "primarycache=metadata", "-o", "sync=standard", f"tank/{name}")


def fio(host: Ssh, job: str, dataset: str) -> float:
    """One repeat: MB/s (sequential) or I/O operations a second (16 KiB jobs)."""
    directory = f"/tank/{dataset}"
    argv = ["fio", f"--name={job}", f"--directory={directory}", "--ioengine=psync", "--output-format=json"]
    out = json.loads(on(host, *argv, *JOBS[job]))
    on(host, "rm", "-f", f"{directory}/{job}.0.0")
    side = out["jobs"][0]["write" if "write" in job else "read"]
    return round(side["iops"] if "16k" in job else side["bw_bytes"] / 1e6, 2)


def log_device(host: Ssh, present: bool) -> None:
    """The spare disk in the pool as its log device, or out of it (as it is, if it already is)."""
    there = "logs" in on(host, "zpool", "status", "tank")
    if present and not there:
        on(host, "zpool", "add", "-f", "tank", "log", LOG)
    elif there and not present:
        on(host, "zpool", "remove", "tank", f"{LOG}-part1")


def measure(host: Ssh, rounds: int) -> dict[str, list[dict]]:
    """Every comparison's repeats, A and B alternating within each round."""
    found: dict[str, list[dict]] = {name: [] for name in COMPARISONS}
    for n in range(rounds):
        for name, pairs in COMPARISONS.items():
            for job, a, b in pairs:
                sides = {}
                for side in (a, b) if n % 2 == 0 else (b, a):  # which goes first alternates
                    if name == "slog":
                        log_device(host, side == "slog")
                    sides[side] = fio(host, job, "sync" if name == "slog" else side)
                if name == "slog":
                    log_device(host, False)
                found[name].append({"round": n + 1, "job": job, **sides})
                print(json.dumps(found[name][-1]), flush=True)
    return found


def ratios(name: str, repeats: list[dict]) -> list[dict]:
    """Per job of a comparison: each side's median and B's over A's."""
    out = []
    for job, a, b in COMPARISONS[name]:
        of = [r for r in repeats if r["job"] == job]
        ma, mb = statistics.median(r[a] for r in of), statistics.median(r[b] for r in of)
        out.append({"job": job, "a": a, "b": b, "a_median": ma, "b_median": mb, "ratio": round(mb / ma, 3)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["NASTUNE_KERNEL_LAB_DIR"] = f"{tmp}/lab"
        lab = KernelLab(Path(tmp) / "lab")
        try:
            lab.up(scenario.load("zfs"), log=print)
            host = nas(lab)
            prepare(host)
            found = measure(host, args.rounds)
        finally:
            lab.down(log=print)
    notes = "under software emulation: the guest's CPU sets much of each figure; the ratios show direction"
    for name, repeats in found.items():
        write(
            f"zfs-{name}",
            RESULTS / f"zfs-{name}.json",
            rounds=args.rounds,
            ratios=ratios(name, repeats),
            repeats=repeats,
            notes=notes,
        )


if __name__ == "__main__":
    main()
