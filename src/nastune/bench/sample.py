"""One sample of the server's counters during a run, as the profiler takes it here or `nastune
sample` streams it from the NAS (one JSON line each); bench.usage turns two into rates."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field


@dataclass
class Sample:
    t: float
    cpu: dict[str, list[int]]
    irq: dict[int, int]
    ctxt: int
    net: dict[str, tuple[int, int, int, int]]
    disk: dict[str, list[int]]  # evidence.DISK_FIELDS per device
    threads: dict[str, int] = field(default_factory=dict)  # CPU ticks per serving thread
    throttle: dict[str, list[int]] = field(default_factory=dict)  # per CPU cgroup of the servers
    psi: dict[str, int] = field(default_factory=dict)
    softirq: dict[str, list[int]] = field(default_factory=dict)
    tcp: dict[str, dict[str, float]] = field(default_factory=dict)
    limits: dict = field(default_factory=dict)  # quotas and IOPS limits as read then

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Sample:
        """A sample from a JSON line; the evidence an older sampler lacks is left empty."""
        d = json.loads(text)
        return cls(
            float(d["t"]),
            {k: [int(x) for x in v] for k, v in d["cpu"].items()},
            {int(k): int(v) for k, v in d["irq"].items()},
            int(d["ctxt"]),
            {k: (int(v[0]), int(v[1]), int(v[2]), int(v[3])) for k, v in d["net"].items()},
            {k: [int(x) for x in v] for k, v in d["disk"].items() if isinstance(v, list)},
            {k: int(v) for k, v in d.get("threads", {}).items()},
            {k: [int(x) for x in v] for k, v in d.get("throttle", {}).items()},
            {k: int(v) for k, v in d.get("psi", {}).items()},
            {k: [int(x) for x in v] for k, v in d.get("softirq", {}).items()},
            {k: {n: float(x) for n, x in v.items()} for k, v in d.get("tcp", {}).items()},
            dict(d.get("limits", {})),
        )
