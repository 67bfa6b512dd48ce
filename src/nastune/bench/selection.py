"""Which workloads run where: each named workload on every given target that supports it."""

from __future__ import annotations

from nastune.bench.targets import Target
from nastune.bench.workloads import WORKLOADS, Workload
from nastune.errors import UsageError
from nastune.facts import Facts
from nastune.facts.shares import BIG_DIRECTORY


def known(names: list[str]) -> list[Workload]:
    """The named workloads; ValueError names the first unknown one."""
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        raise UsageError(f"unknown workload {unknown[0]!r}; `nastune bench list` shows them")
    return [WORKLOADS[n] for n in names]


def choose(available: list[Target], names: list[str]) -> list[tuple[Workload, Target]]:
    """(workload, target) pairs: each workload on the targets of its kinds (a system workload
    on this host itself); ValueError says what is unknown or unsupported."""
    system = Target("system", "system://this-host")
    chosen_pairs = []
    for w in known(names):
        chosen = [system] if w.kinds == ("system",) else [t for t in available if t.kind in w.kinds]
        if not chosen:
            raise UsageError(
                f"workload {w.name} runs on {', '.join(w.kinds)} targets, not on {', '.join(t.url for t in available)}"
            )
        chosen_pairs += [(w, t) for t in chosen]
    return chosen_pairs


def big_directories(facts: Facts) -> list[str]:
    """Each share that holds a directory of BIG_DIRECTORY entries or more, in words: where a
    listing and a lookup of a missing name are what its users wait for."""
    looks = facts.smb.looks if facts.smb else {}
    return [
        f"[{name}] {seen.largest} ({seen.entries:,}{'+' if seen.entries > 100_000 else ''} entries)"
        for name, seen in sorted(looks.items())
        if seen.entries >= BIG_DIRECTORY
    ]


def with_big_dir(names: list[str], facts: Facts, targets: list[Target]) -> tuple[list[str], list[str]]:
    """A site's default workloads with big-dir added where a share holds a big directory and a
    target here can list one; and those directories."""
    big = big_directories(facts)
    lists = any(t.kind in WORKLOADS["big-dir"].kinds for t in targets)
    if not big or not lists or "big-dir" in names:
        return names, []
    return [*names, "big-dir"], big


def scaling_steps(n: int) -> list[int]:
    """1, 2, 4, ... clients up to all n: where the aggregate stops growing, the NAS saturated."""
    steps, k = [], 1
    while k < n:
        steps.append(k)
        k *= 2
    return steps + [n]
