"""What limited a run, ranked: each factor reads a run's profile (bench.usage) and says how
strongly the evidence points at it (0-1), in words with numbers, and which rules address it.
The first of the ranked list is the one line the console shows; `diagnose --profile` raises
the rules of the factors found."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Literal

from nastune.bench.results import LimitRecord, ResultSet
from nastune.bench.usage import ProfileSummary
from nastune.protocols import PROTOCOLS
from nastune.rules import get as rule_named
from nastune.rules.model import Finding

PROTOCOL_PORTS = {2049: "NFS", 445: "SMB"}
LATENCY_BOUND = "no resource saturated: latency-bound (round trips, request size or client)"
# Fewer sample intervals than this and a run is too short to call latency-bound: a connection
# that opens and closes between two samples (a 128 MiB NFS read at 300 MB/s takes 0.4 s) leaves
# no trace, and saying "no resource saturated" would be a claim the profile cannot back.
ENOUGH_SAMPLES = 4


@dataclass
class Limit:
    factor: str
    score: float  # 0-1: how much of the run this factor held it back
    evidence: str
    rules: tuple[str, ...]

    def record(self) -> LimitRecord:
        """What a result keeps of this limit."""
        return LimitRecord(
            factor=self.factor, score=round(self.score, 2), evidence=self.evidence, rules=list(self.rules)
        )


class Factor:
    name = ""
    title = ""
    rules: tuple[str, ...] = ()  # the rules whose changes address this factor
    threshold = 0.5  # below this score the factor is not named
    cause: ClassVar[dict[str, str]] = {}  # the evidence's last words for a run that moves file data or metadata

    def assess(self, profile: ProfileSummary, limit_bytes: float | None) -> list[tuple[float, str]]:
        raise NotImplementedError


SATURATED = 0.7


def saturation(used: float, quota: float, throttled_percent: float) -> float:
    """How close a cgroup is to its CPU quota: throttled in a period = its whole quota used in it,
    so throttled in SATURATED of the periods is a cgroup at its quota, as saturated as a link at
    90% or more."""
    return min(max(used / quota, throttled_percent / 100 / SATURATED), 1.0)


class CpuQuota(Factor):
    name, title = "cpu-quota", "The servers' cgroup CPU quota"
    threshold = 0.1

    def assess(self, profile: ProfileSummary, limit_bytes: float | None) -> list[tuple[float, str]]:
        out = []
        cores = profile.get("daemon_cores", {})
        for path, g in profile.get("cgroups", {}).items():
            quota, throttled = g.get("quota_cpus"), g["throttled_percent"]
            if not quota or not throttled:
                continue
            names = [n for n in (g.get("holds") or "").split(",") if n]
            used = sum(cores.get(n, 0.0) for n in names)
            out.append(
                (
                    saturation(used, quota, throttled),
                    f"{', '.join(names) or path} used {used:.2f} of its {quota:g} CPU quota and was throttled in "
                    f"{throttled:.0f}% of its CPU periods ({g['throttled_s']:g} s stalled): raise the cgroup's "
                    f"quota ({path})",
                )
            )
        return out


PROTECTED = {"sign": "signed", "encrypt": "encrypted"}


class SmbProtection(Factor):
    """smbd at its CPU while the client required every message signed or encrypted: the server's
    CPU then works per byte, at a cost the algorithm order and the CPU's AES instructions decide.
    Before cpu-quota in FACTORS: on the same cgroup the two score alike, and this one names why."""

    name, title = "smb-protection", "The SMB server's CPU signing or encrypting every message"
    rules = ("smb-signing-cost", "smb-encryption-cost")
    threshold = 0.85

    def assess(self, profile: ProfileSummary, limit_bytes: float | None) -> list[tuple[float, str]]:
        done = PROTECTED.get(profile.get("smb_protection") or "")
        smbd = profile.get("daemon_cores", {}).get("smbd", 0.0)
        if done is None or not smbd:
            return []
        out = [(smbd, f"smbd used {smbd:.2f} of a core")]  # no quota: a core is its limit
        for g in profile.get("cgroups", {}).values():
            quota, throttled = g.get("quota_cpus"), g["throttled_percent"]
            if quota and "smbd" in (g.get("holds") or "").split(","):
                out.append(
                    (
                        saturation(smbd, quota, throttled),
                        f"smbd used {smbd:.2f} of its {quota:g} CPU quota (throttled {throttled:.0f}%)",
                    )
                )
        score, used = max(out)
        return [
            (
                score,
                f"{used} while the client required every message {done}: the server's CPU {done[:-2]}s each byte "
                "(the algorithm order and the CPU's AES instructions decide the cost)",
            )
        ]


class ServingThread(Factor):
    name, title = "serving-thread", "One serving thread on a full core"
    rules = ("smb-aio-off", "nfsd-threads-low")
    threshold = 0.85

    def assess(self, profile: ProfileSummary, limit_bytes: float | None) -> list[tuple[float, str]]:
        threads = profile.get("threads") or []
        if not threads:
            return []
        t = threads[0]
        share = t["core_percent"] / 100
        return [
            (
                min(share, 1.0),
                f"{t['name']} thread {t['tid']} used {share:.0%} of one core: one connection's work is "
                "served by one thread",
            )
        ]


class SoftirqOneCpu(Factor):
    name, title = "softirq-one-cpu", "Network interrupts on a single core"
    rules = ("irq-single-cpu", "irq-numa-locality", "irqbalance-absent")
    threshold = 1.0  # 80% of a core in softirq: the rest goes to the switches in and out of it

    def assess(self, profile: ProfileSummary, limit_bytes: float | None) -> list[tuple[float, str]]:
        cpus = profile.get("cpus", {})
        if not cpus:
            return []
        name, share = max(((n, c.get("softirq", 0.0)) for n, c in cpus.items()), key=lambda kv: kv[1])
        rest = [c.get("softirq", 0.0) for n, c in cpus.items() if n != name]
        if rest and share < 2 * max(rest):
            return []  # spread: not one core's limit
        rx = profile.get("softirqs_per_s", {}).get("NET_RX", [])
        rate = f", {max(rx):,.0f} NET_RX/s" if rx else ""
        return [(share / 100 / 0.8, f"{name} spent {share:.0f}% in softirq{rate}: one core does the network work")]


class Link(Factor):
    name, title = "link", "The network link"
    rules = ("mtu-jumbo-frames",)
    threshold = 0.9  # a transfer that saturates the lab's link reaches 95-98% of its goodput

    def assess(self, profile: ProfileSummary, limit_bytes: float | None) -> list[tuple[float, str]]:
        if not limit_bytes:
            return []
        out = []
        busy = sorted(p["net_MBps"] for p in profile.get("timeline", []) if p["net_MBps"] > 0)
        # while data moved: the upper quartile of the sample intervals, not the run's average,
        # which the pauses between repeats (cache drops, connection set-up) dilute
        moving = busy[len(busy) * 3 // 4] * 1e6 if len(busy) >= 4 else 0.0
        for dev, n in profile.get("net", {}).items():
            peak = max(n["rx_MBps"], n["tx_MBps"], moving / 1e6) * 1e6
            if peak > 0:
                # a half-second interval's rate may read a little above the goodput (counter timing)
                share = min(peak / limit_bytes, 1.0)
                out.append((share, f"{dev} carried {share:.0%} of the link's goodput while data moved"))
        return out


class DiskIops(Factor):
    name, title = "disk", "A disk at its IOPS limit or always busy"
    rules = ("xfs-fragmentation", "read-ahead-small", "block-scheduler")
    threshold = 0.85
    cause: ClassVar[dict[str, str]] = {
        "data": ": each extent of a fragmented file costs one",
        "metadata": ": each directory block and inode it reads costs one",
    }

    def assess(self, profile: ProfileSummary, limit_bytes: float | None) -> list[tuple[float, str]]:
        out = []
        for dev, d in profile.get("disks", {}).items():
            for kind in ("read", "write"):
                limit = d.get(f"{kind}_iops_limit")
                if limit:
                    iops = d[f"{kind}_iops"]
                    out.append(
                        (
                            iops / limit,
                            f"{dev} did {iops:,.0f} {kind}s/s against its limit of {limit:,}/s "
                            f"({d['await_ms']:g} ms wait, queue {d['queue']:g})",
                        )
                    )
            busy = d["util_percent"]
            wait = f"{d['await_ms']:g} ms wait, queue {d['queue']:g}"
            # a device busy all the time may still have parallel capacity: a little below 1
            out.append((busy / 100 * 0.95, f"{dev} busy {busy:.0f}% of the time ({wait})"))
        return out


TcpLimit = Literal["sndbuf_limited_percent", "rwnd_limited_percent"]
TCP_LIMITED: dict[TcpLimit, str] = {  # TCP_INFO's own counts of what held a sender back
    "sndbuf_limited_percent": "the server's sending was limited by its send buffer for {:.0f}% of the transfer: "
    "tcp_wmem (and SO_SNDBUF)",
    "rwnd_limited_percent": "the server's sending waited on the client's receive window for {:.0f}% of the "
    "transfer: the client's tcp_rmem",
}


class TcpWindow(Factor):
    name, title = "tcp-window", "TCP buffers: the receive window or the send buffer"
    rules = ("tcp-buffers-below-bdp", "smb-socket-buffers-fixed", "tcp-buffers-small-ram")
    threshold = 0.3

    def assess(self, profile: ProfileSummary, limit_bytes: float | None) -> list[tuple[float, str]]:
        c = profile.get("tcp")
        if not c:
            return []
        return [(c[key] / 100, text.format(c[key])) for key, text in TCP_LIMITED.items() if c.get(key)]


class RequestSize(Factor):
    name, title = "rpc-size", "Small NFS or SMB requests"
    rules = ("ganesha-io-size-small", "nfs-client-rsize-small")
    threshold = 0.5

    def assess(self, profile: ProfileSummary, limit_bytes: float | None) -> list[tuple[float, str]]:
        c = profile.get("tcp") or {}
        size = c.get("bytes_per_request")
        if not size or c.get("port") not in PROTOCOL_PORTS:
            return []
        # 4 KiB scores 0.8, 1 MiB nothing: each halving of the request doubles the round trips
        score = 0.8 * max(0.0, 1 - math.log2(max(size, 4096) / 4096) / 8)
        op = "READ" if c["sends"] else "WRITE"
        return [
            (
                score,
                f"{PROTOCOL_PORTS[c['port']]} {op}s of about {size / 1024:.0f} KiB per request (from the bytes "
                "each way): "
                "each one costs a round trip and a server wake-up (MaxRead/MaxWrite, rsize/wsize)",
            )
        ]


class CpuBusy(Factor):
    name, title = "cpu", "A CPU fully busy"
    threshold = 0.9

    def assess(self, profile: ProfileSummary, limit_bytes: float | None) -> list[tuple[float, str]]:
        cpus = profile.get("cpus", {})
        busy = {n: 100 - c.get("idle", 0) - c.get("iowait", 0) for n, c in cpus.items()}
        if not busy:
            return []
        name, b = max(busy.items(), key=lambda kv: kv[1])
        stall = profile.get("pressure_percent", {}).get("cpu")
        more = f"; tasks waited for a CPU {stall:.0f}% of the time" if stall else ""
        return [(b / 100, f"{name} {b:.0f}% busy{more}")]


class IoStall(Factor):
    """Stalls while writing are writeback's and the log's to cure; while reading, fragmentation's
    (one I/O per extent) and read-ahead's (each rule's `path` keeps it to its own)."""

    name, title = "io-stall", "Tasks stalled on I/O"
    rules = ("vm-dirty-writeback", "xfs-external-log", "xfs-fragmentation", "read-ahead-small")
    threshold = 0.3

    def assess(self, profile: ProfileSummary, limit_bytes: float | None) -> list[tuple[float, str]]:
        stall = profile.get("pressure_percent", {}).get("io")
        if not stall:
            return []
        return [(stall / 100, f"some task stalled on I/O {stall:.0f}% of the time (PSI)")]


FACTORS: dict[str, Factor] = {
    f.name: f
    for f in (
        SmbProtection(),
        CpuQuota(),
        ServingThread(),
        SoftirqOneCpu(),
        Link(),
        DiskIops(),
        TcpWindow(),
        RequestSize(),
        CpuBusy(),
        IoStall(),
    )
}


def rank(
    profile: ProfileSummary, limit_bytes: float | None = None, kind: str = "", path: str = "both", moves: str = ""
) -> list[Limit]:
    """Every factor the evidence names, the strongest first, each with the rules that can act
    on this run's path (reaches(): `kind` the target's, `path` the workload's way, `moves` what
    it moves: file data or metadata; "" keeps every rule), and the cause its evidence names for it."""
    found = []
    for factor in FACTORS.values():
        rules = tuple(r for r in factor.rules if reaches(r, kind, path, moves))
        for score, evidence in factor.assess(profile, limit_bytes):
            if score >= factor.threshold:
                found.append(Limit(factor.name, min(score, 1.0), evidence + factor.cause.get(moves, ""), rules))
    return sorted(found, key=lambda limit: -limit.score)


# what a run that touches no file (iperf3's, memory bandwidth's) can be moved by
WITHOUT_FILES = ("network", "cpu", "numa")


def reaches(rule: str, kind: str, path: str = "both", moves: str = "", files: bool = True) -> bool:
    """Whether `rule`'s changes can move a run over `kind` (a protocol, iperf3, a path; "": any)
    on `path` (read, write or both) that moves `moves` (file "data" or "metadata"; "": either)
    and touches the NAS's files at all (`files`), as the rule declares: Samba's socket options
    cannot hold back an NFS read nor iperf3, writeback tuning a read, defragmenting a listing of
    empty files, a file system's setting the network alone. A rule nastune does not know (an
    operator's own plan's) may act on anything."""
    try:
        declared = rule_named(rule)
    except KeyError:
        return True
    protocol = declared.protocol or (declared.area if declared.area in PROTOCOLS else "")  # a Samba rule's: smb
    way = declared.path
    if protocol and kind not in ("", "path") and protocol != kind:  # a path may be a client's mount of it
        return False
    if not files and declared.area not in WITHOUT_FILES:
        return False
    if declared.moves and moves and declared.moves != moves:
        return False
    return not (way and path != "both" and way != path)


def with_other_load(limits: list[Limit], reasons: list[str], repeats: int) -> list[Limit]:
    """`limits` with the machine's other load named first when it disturbed at least half the
    repeats, last when fewer; either way a fully busy CPU comes after every factor of the NAS's
    own (the other load keeps a CPU busy too: a busy host's CPU must not be read as the server's
    limit; a lab test named it before the injected 8 KiB requests with other load in 1 repeat)."""
    if not reasons or not repeats:
        return limits
    share = len(reasons) / repeats
    said = (
        f"other load on this machine during {len(reasons)} of {repeats} repeats ({reasons[0]}): it may be the "
        "limit, rather than anything on the NAS; measure again when the machine is quiet"
    )
    other = Limit("other-load", 1.0 if share >= 0.5 else share / 2, said, ())
    cpu = [limit for limit in limits if limit.factor == "cpu"]
    own = [limit for limit in limits if limit.factor != "cpu"]
    return [other, *own, *cpu] if share >= 0.5 else [*own, *cpu, other]


def first_line(limits: list[Limit], profile: ProfileSummary) -> str:
    """What the console says limited a run: the strongest factor, else "latency-bound" when the
    profile saw enough of the run to say that nothing saturated."""
    if limits:
        return limits[0].evidence
    seen = len(profile.get("timeline", []))
    if seen < ENOUGH_SAMPLES:
        return (
            f"too short to tell what limited it: the profile has {seen} sample interval(s) of the run; "
            "a larger --size gives it more"
        )
    return LATENCY_BOUND


def with_runtime(findings: list[Finding], runs: list[ResultSet]) -> list[Finding]:
    """`findings` ranked by what measured runs showed: a finding whose rule addresses a factor
    that limited a run is marked with that evidence and comes first, the strongest evidence
    leading; the others keep their order."""
    strongest: dict[str, tuple[float, str]] = {}
    for run in runs:
        for result in run.results:
            for limit in result.limits:
                said = f"{limit.evidence} ({result.workload} @ {result.target.url})"
                for rule in limit.rules:
                    if limit.score > strongest.get(rule, (-1.0, ""))[0]:
                        strongest[rule] = (limit.score, said)
    marked = [f.model_copy(update={"limiting": strongest[f.rule][1]}) if f.rule in strongest else f for f in findings]
    order = {id(f): n for n, f in enumerate(marked)}
    return sorted(marked, key=lambda f: (-strongest[f.rule][0] if f.limiting else 0.0, order[id(f)]))
