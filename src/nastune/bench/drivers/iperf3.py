"""iperf3 between a client and the server, from its JSON output."""

from __future__ import annotations

import json

from nastune.bench.targets import Target
from nastune.protocols.client import BenchError, run


def throughput(target: Target, seconds: int = 3, reverse: bool = False) -> dict[str, float]:
    argv = ["iperf3", "-c", str(target.host), "-t", str(seconds), "-J"] + (["-R"] if reverse else [])
    out, _ = run(target.client(argv), timeout=seconds + 30, what="iperf3")
    data = json.loads(out)
    if "error" in data:
        raise BenchError(f"iperf3: {data['error']}")
    end = data["end"]
    return {
        "MB/s": end["sum_received"]["bytes"] / end["sum_received"]["seconds"] / 1e6,
        "retransmits": float(end["sum_sent"].get("retransmits", 0)),
    }
