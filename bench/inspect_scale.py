"""How `inspect` scales: time it on generated roots of growing size, side by side.

Prints, for 1/4, 1/2 and all of (4096 IRQs, 64 interfaces, 256 block devices), the
wall time of a full collection, the time per item, and the ratio of the per-item
time to that of the smallest size (near 1.0 means linear). Goal: the full size under 1 s.

    .venv/bin/python bench/inspect_scale.py
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from nastune.facts import collect
from nastune.root import Root
from tests.fixtures.make_roots import BASE_SYSCTL, Tree

CPUS = 64


def build(parent: Path, irqs: int, interfaces: int, devices: int) -> Path:
    t = Tree(f"scale-{irqs}", parent)
    t.system("6.1.0-27-amd64", "Generated CPU", CPUS, {0: f"0-{CPUS // 2 - 1}", 1: f"{CPUS // 2}-{CPUS - 1}"}, 1 << 30)
    t.sysctl(BASE_SYSCTL)
    per_nic = irqs // interfaces
    lines = []
    for n in range(interfaces):
        numbers = list(range(100 + n * per_nic, 100 + (n + 1) * per_nic))
        t.nic(
            f"eth{n}",
            f"pci0000:00/0000:00:02.0/0000:{n + 1:02x}:00.0",
            "ixgbe",
            1500,
            10000,
            n % 2,
            "0-31" if n % 2 == 0 else "32-63",
            numbers,
            per_nic,
        )
        for irq in numbers:
            lines.append(
                (irq, [irq % 97] * CPUS, f"IR-PCI-MSIX-0000:{n + 1:02x}:00.0  0-edge     ", f"eth{n}-TxRx-{irq}")
            )
            t.w(f"/proc/irq/{irq}/smp_affinity_list", "0-31\n")
            t.w(f"/proc/irq/{irq}/effective_affinity_list", "0\n")
    t.interrupts(CPUS, lines)
    for d in range(devices):
        t.disk(f"sd{d:03d}", d % 2 == 0, 100, "Generated disk")
    return t.base


def timed(root: Path, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        collect(Root(root))
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        rows = []
        for fraction in (4, 2, 1):
            size = (4096 // fraction, 64 // fraction, 256 // fraction)
            root = build(Path(tmp), *size)
            seconds = timed(root)
            items = sum(size)
            rows.append((size, seconds, seconds / items))
        base = rows[0][2]
        print(f"{'IRQs':>6} {'ifaces':>6} {'devices':>7} {'median s':>9} {'us/item':>8} {'ratio':>6}")
        for (irqs, ifaces, devices), seconds, per_item in rows:
            print(f"{irqs:>6} {ifaces:>6} {devices:>7} {seconds:>9.3f} {per_item * 1e6:>8.1f} {per_item / base:>6.2f}")
        print(f"full size under 1 s: {'yes' if rows[-1][1] < 1 else 'NO'}")


if __name__ == "__main__":
    main()
