"""Which workloads run where: each named workload on every given target that supports it."""

from __future__ import annotations

from dataclasses import replace

from nastune.bench import targets as bench_targets
from nastune.bench.targets import inventory_targets
from nastune.bench.workloads import WORKLOADS, Workload
from nastune.protocols import PROTOCOLS
from nastune.remote.inventory import Inventory


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


def inventory_workloads(inv: Inventory, together: bool) -> list[str]:
    """The same for an inventory's NAS: its read set's read when it names one, and the network
    only from one client (an iperf3 server serves one client at a time)."""
    return ["seq-write", "seq-read", *(["aged-read"] if inv.nas.read_set else []), *([] if together else ["network"])]


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


def scaling_steps(n: int) -> list[int]:
    """1, 2, 4, ... clients up to all n: where the aggregate stops growing, the NAS saturated."""
    steps, k = [], 1
    while k < n:
        steps.append(k)
        k *= 2
    return steps + [n]


def inventory_pairs(
    inv: Inventory,
    target: str | None,
    names: list[str],
    clients: str,
    scaling: bool = False,
    server_pid: int | None = None,
) -> list[tuple[Workload, bench_targets.Target]]:
    """Each workload on the chosen clients of an inventory: alone when one client is chosen,
    on all together otherwise (or on 1, 2, 4, ... of them with `scaling`)."""
    from nastune.bench.together import Together

    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        raise ValueError(f"unknown workload {unknown[0]!r}; `nastune bench list` shows them")
    hosts = inv.select(clients)
    if not hosts:
        raise ValueError(f"--clients {clients!r} names no client of {inv.path}")
    kinds = [target] if target else [p for p in PROTOCOLS if p in inv.nas.shares] + ["iperf3"]
    found: dict[str, list[bench_targets.Target]] = {}
    out: list[tuple[Workload, bench_targets.Target]] = []
    for name in names:
        w = WORKLOADS[name]
        usable = [k for k in kinds if ("path" if k == "mount" else k) in w.kinds]
        if not usable:
            raise ValueError(f"workload {name} runs on {', '.join(w.kinds)} targets, not on {', '.join(kinds)}")
        for kind in usable:
            if kind not in found:
                found[kind] = [replace(t, server_pid=server_pid) for t in inventory_targets(inv, kind, hosts)]
            for n in scaling_steps(len(hosts)) if scaling else [len(hosts)]:
                group = found[kind][:n]
                if n == 1:
                    out.append((w, group[0]))
                elif kind == "iperf3":
                    raise ValueError("network runs from one client at a time (an iperf3 server serves one client)")
                else:
                    names_ = ",".join(t.client_name or "" for t in group)
                    out.append((Together(w, group), replace(group[0], client_name=names_, ssh=None)))
    return out
