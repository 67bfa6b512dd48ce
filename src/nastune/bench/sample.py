"""One sample of the server's counters during a run, as the profiler takes it here or `nastune
sample` streams it from the NAS (one JSON line each); bench.usage turns two into rates."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from pydantic import TypeAdapter


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
        return LINE.dump_json(self).decode()

    @classmethod
    def from_json(cls, text: str) -> Sample:
        """A sample from a JSON line, validated; the evidence an older sampler lacks is left
        empty, and a disk's entry that is not its counters is left out."""
        d = json.loads(text)
        if isinstance(d, dict) and isinstance(d.get("disk"), dict):
            d["disk"] = {k: v for k, v in d["disk"].items() if isinstance(v, list)}
        return LINE.validate_python(d)


LINE = TypeAdapter(Sample)  # one JSON line of `nastune sample`
