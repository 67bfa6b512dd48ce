"""How long the kernel lab takes here: building its guest image once (into an empty cache), then
`lab up --kernel` (boot to both hosts answering, their mounts and units settled), a reboot of the
tuned NAS, and as the ratio to the namespace lab's `lab up` measured beside it, round after round.
Under software emulation (TCG) these are this machine's figures, not a NAS's.

    .venv/bin/python bench/kernel_lab.py [--repeats 3] [--out bench/results/kernel-lab.json]"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from record import TOP, write

os.environ.setdefault("NASTUNE_LAB_PREFIX", "nb")  # its labs beside any lab that is up (read at import)

from nastune.lab import scenario
from nastune.lab.guest import image
from nastune.sites.lab.kernel import KernelLab, server_packages
from nastune.sites.lab.lab import Lab

SAID: list[str] = []


def said(line: str) -> None:
    print(line)
    SAID.append(line)


def timed(step: Callable[[], object]) -> float:
    began = time.monotonic()
    step()
    return time.monotonic() - began


def build(cache: Path) -> tuple[float, int]:
    """Seconds to build the image from nothing, and its disk's size in MiB."""
    seconds = timed(lambda: image.build(server_packages(), cache, log=said))
    return seconds, image.cached(server_packages(), cache).disk.stat().st_blocks * 512 >> 20


def rounds(work: Path, cache: Path, repeats: int) -> dict[str, list[float]]:
    """Each round: the namespace lab up, then the kernel lab up and its NAS rebooted, each taken
    down after."""
    found: dict[str, list[float]] = {"lab_up_s": [], "kernel_up_s": [], "reboot_s": []}
    for i in range(repeats):
        lab = Lab(work / f"lab-{i}")
        found["lab_up_s"].append(timed(partial(lab.up, scenario.load("soho", {}), log=said)))
        lab.down(log=said)
        guest = KernelLab(work / f"kernel-{i}", cache=cache)
        found["kernel_up_s"].append(timed(partial(guest.up, scenario.load("kernel", {}), log=said)))
        found["reboot_s"].append(timed(partial(guest.reboot, log=said)))
        guest.down(log=said)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=TOP / "bench" / "results" / "kernel-lab.json")
    args = parser.parse_args()
    # not under /var/tmp: the namespace lab's clients each have a /var/tmp of their own
    with tempfile.TemporaryDirectory(prefix="nastune-kernel-bench-", dir="/var/lib/nastune") as tmp:
        cache = Path(tmp) / "cache"
        build_s, size_mib = build(cache)
        found = rounds(Path(tmp), cache, args.repeats)
    median = {k: statistics.median(v) for k, v in found.items()}
    ratio = median["kernel_up_s"] / median["lab_up_s"]
    print(
        f"image built in {build_s:.0f} s ({size_mib} MiB); kernel lab up {median['kernel_up_s']:.0f} s, "
        f"{ratio:.1f}x the namespace lab's {median['lab_up_s']:.1f} s; a reboot {median['reboot_s']:.0f} s"
    )
    write(
        "kernel-lab",
        args.out,
        what="the kernel lab's image build, lab up --kernel and a reboot, against the namespace lab's lab up",
        result={
            "build_s": round(build_s, 1),
            "image_mib": size_mib,
            **{f"median_{k}": round(v, 1) for k, v in median.items()},
            "up_ratio": round(ratio, 1),
        },
        repeats=found,
        emulated=any("software emulation" in line for line in SAID),
    )


if __name__ == "__main__":
    main()
