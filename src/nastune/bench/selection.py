"""Which workloads run where: each named workload on every given target that supports it."""

from __future__ import annotations

from nastune.bench import targets as bench_targets
from nastune.bench.workloads import WORKLOADS, Workload


def default_workloads(lab: bool) -> list[str]:
    """Sequential write and read per protocol and the network; on a lab with an aged data set,
    its read too."""
    names = ["seq-write", "seq-read", "network"]
    if lab:
        try:
            if bench_targets.lab_targets()["smb"].extra.get("aged"):
                names.insert(2, "aged-read")
        except ValueError:
            pass
    return names


def pairs(target: str | None, lab: bool, names: list[str]) -> list[tuple[Workload, bench_targets.Target]]:
    """(workload, target) pairs; ValueError says what is unknown or unsupported."""
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        raise ValueError(f"unknown workload {unknown[0]!r}; `nastune bench list` shows them")
    if lab:
        known = bench_targets.lab_targets()
        if target and target not in known:
            raise ValueError(f"--lab --target {target!r}: the lab's targets are {', '.join(known)}")
        # the smbnetfs mount is measured when asked for: SMB has its own client by default
        available = [known[target]] if target else [t for name, t in known.items() if name != "smbfs"]
    elif target:
        available = [bench_targets.parse(target)]
    else:
        raise ValueError("say where to measure: --target URL|PATH or --lab")
    system = bench_targets.Target("system", "system://this-host")
    chosen_pairs = []
    for name in names:
        w = WORKLOADS[name]
        chosen = [system] if w.kinds == ("system",) else [t for t in available if t.kind in w.kinds]
        if not chosen:
            raise ValueError(
                f"workload {name} runs on {', '.join(w.kinds)} targets, not on {', '.join(t.url for t in available)}"
            )
        chosen_pairs += [(w, t) for t in chosen]
    return chosen_pairs
