"""Memory read bandwidth between NUMA nodes (what Qumulo measured with Intel MLC, which is closed):
a process pinned to node i's CPUs reads a buffer bound to node j's memory, through numactl.
Run as `python -m nastune.bench.drivers.membw MiB` to measure one cell in this process."""

from __future__ import annotations

import shutil
import sys
import time

from nastune.protocols.client import BenchError, run


def read_bandwidth(mib: int = 256, rounds: int = 5) -> float:
    """GB/s of the best of `rounds` full reads of a buffer (np.sum streams it through the CPU)."""
    import numpy as np

    data = np.ones(mib * (1 << 20) // 8, dtype=np.float64)
    best = 0.0
    for _ in range(rounds):
        start = time.perf_counter()
        data.sum()
        best = max(best, data.nbytes / (time.perf_counter() - start) / 1e9)
    return best


def matrix(nodes: list[int], mib: int = 256) -> list[list[float]]:
    """GB/s for every (CPU node, memory node) pair; a single node gives a 1x1 matrix."""
    if len(nodes) > 1 and shutil.which("numactl") is None:
        raise BenchError("numactl is needed to pin threads and memory per node (apt-get install numactl)")
    rows = []
    for cpu in nodes:
        row = []
        for mem in nodes:
            argv = [sys.executable, "-m", "nastune.bench.drivers.membw", str(mib)]
            if len(nodes) > 1:
                argv = ["numactl", f"--cpunodebind={cpu}", f"--membind={mem}", *argv]
            out, _ = run(argv, what=f"memory bandwidth node {cpu} -> {mem}")
            row.append(float(out.strip()))
        rows.append(row)
    return rows


if __name__ == "__main__":
    print(read_bandwidth(int(sys.argv[1])))
