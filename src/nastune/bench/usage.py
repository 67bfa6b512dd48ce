"""What a run's profile samples say, as rates: averages over the run and a timeline per sample
interval. Counters of things that come and go during a run (a thread, a TCP connection: smbd
forks per client connection) are summed interval by interval, so an smbd that exited before
the run's end still counts."""

from __future__ import annotations

import os
from itertools import pairwise
from typing import TYPE_CHECKING

from typing_extensions import TypedDict  # pydantic validates it (results), which needs this one before Python 3.12

if TYPE_CHECKING:
    from nastune.bench.sample import Sample

CPU_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
TCP_COUNTERS = (
    "bytes_acked",
    "bytes_received",
    "busy",
    "rwnd_limited",
    "sndbuf_limited",
    "retrans",
)
CALL_BYTES = 150  # an NFSv3 READ call or WRITE reply, an SMB2 READ request or WRITE response


def _delta(before: dict, after: dict) -> dict:
    """Per key, the growth of a counter between two samples; a key new in `after` started
    during the interval, from zero."""
    return {k: v - before.get(k, 0) for k, v in after.items() if v >= before.get(k, 0)}


def cpus(a: Sample, b: Sample) -> dict[str, dict[str, float]]:
    out = {}
    for name, after in b.cpu.items():
        if name == "cpu" or name not in a.cpu:
            continue
        delta = [y - x for x, y in zip(a.cpu[name], after)]
        total = sum(delta) or 1
        out[name] = {f: round(100 * d / total, 1) for f, d in zip(CPU_FIELDS, delta)}
    return out


def net(a: Sample, b: Sample, dt: float) -> dict[str, dict[str, float]]:
    out = {}
    for dev, counters in b.net.items():
        if dev == "lo" or dev not in a.net:
            continue
        d = [y - x for x, y in zip(a.net[dev], counters)]
        out[dev] = {
            "rx_MBps": round(d[0] / dt / 1e6, 2),
            "rx_pps": round(d[1] / dt),
            "tx_MBps": round(d[2] / dt / 1e6, 2),
            "tx_pps": round(d[3] / dt),
        }
    return out


def disks(a: Sample, b: Sample, dt: float) -> dict[str, dict[str, float]]:
    """iostat's figures per device: IOPS, utilisation, average wait and queue depth, with the
    IOPS limit a cgroup sets on it."""
    limits = {b.limits.get("devices", {}).get(k, k): v for k, v in b.limits.get("iops", {}).items()}
    out = {}
    for dev, after in b.disk.items():
        if dev not in a.disk:
            continue
        reads, ms_r, writes, ms_w, _, busy, weighted = (y - x for x, y in zip(a.disk[dev], after))
        if reads + writes == 0 and busy == 0:
            continue
        out[dev] = {
            "read_iops": round(reads / dt, 1),
            "write_iops": round(writes / dt, 1),
            "util_percent": round(min(100.0, 100 * busy / (dt * 1000)), 1),
            "await_ms": round((ms_r + ms_w) / max(reads + writes, 1), 2),
            "queue": round(weighted / (dt * 1000), 2),
            **{f"{k}_iops_limit": v for k, v in limits.get(dev, {}).items()},
        }
    return out


class CgroupUse(TypedDict, total=False):
    """A serving cgroup over a run: what it holds, its CPU quota and how long it was throttled."""

    holds: str
    quota_cpus: float | None
    throttled_percent: float
    throttled_s: float


class ThreadUse(TypedDict, total=False):
    """One of the busiest serving threads, with the share of one core it used."""

    name: str
    pid: int
    tid: int
    core_percent: float


class TcpUse(TypedDict, total=False):
    """The serving connection that carried the most bytes, and what limited it."""

    connection: str
    port: int
    sends: bool
    bytes_per_request: int | None
    MBps: float
    rtt_ms: float | None
    cwnd: float | None
    retrans: int
    rwnd_limited_percent: float
    sndbuf_limited_percent: float
    rcv_ssthresh: float | None
    snd_wnd: float | None


class Point(TypedDict, total=False):
    """One sample interval of a run's timeline."""

    t: float
    net_MBps: float
    daemon_cores: dict[str, float]
    throttled_percent: float
    softirq_percent: float
    disk_await_ms: float


def cgroups(a: Sample, b: Sample) -> dict[str, CgroupUse]:
    """Each serving cgroup's quota and how much of the run it spent throttled."""
    out: dict[str, CgroupUse] = {}
    for path, (periods, throttled, us) in b.throttle.items():
        p0, t0, u0 = a.throttle.get(path, [periods, throttled, us])
        out[path] = {
            "holds": b.limits.get("holds", {}).get(path, ""),
            "quota_cpus": b.limits.get("cpu_quota", {}).get(path),
            "throttled_percent": round(100 * (throttled - t0) / max(periods - p0, 1), 1),
            "throttled_s": round((us - u0) / 1e6, 2),
        }
    return out


def pressure(a: Sample, b: Sample, dt: float) -> dict[str, float]:
    """The share of the run some task stalled on each resource (PSI `some`), in percent."""
    return {k: round(min(100.0, 100 * (v - a.psi.get(k, v)) / (dt * 1e6)), 1) for k, v in b.psi.items()}


def softirqs(a: Sample, b: Sample, dt: float) -> dict[str, list[float]]:
    return {k: [round((y - x) / dt, 1) for x, y in zip(a.softirq.get(k, v), v)] for k, v in b.softirq.items()}


def threads(samples: list[Sample]) -> tuple[dict[str, float], list[ThreadUse]]:
    """Each serving daemon's CPU in cores (summed over its threads), and its busiest threads
    with the share of one core each used."""
    ticks: dict[str, int] = {}
    for a, b in pairwise(samples):
        for key, d in _delta(a.threads, b.threads).items():
            ticks[key] = ticks.get(key, 0) + d
    seconds = max(samples[-1].t - samples[0].t, 1e-6)
    daemons: dict[str, float] = {}
    busiest: list[ThreadUse] = []
    for key, n in ticks.items():
        name, pid, tid = key.rsplit("/", 2)
        share = n / TICKS / seconds
        daemons[name] = daemons.get(name, 0.0) + share
        busiest.append({"name": name, "pid": int(pid), "tid": int(tid), "core_percent": round(100 * share, 1)})
    busiest.sort(key=lambda t: -float(t["core_percent"]))
    return {k: round(v, 2) for k, v in daemons.items()}, busiest[:5]


def tcp(samples: list[Sample]) -> TcpUse | None:
    """The serving connection that carried the most bytes: its rate, RTT, window, retransmits
    and the share of its busy time that the peer's receive window or its own send buffer
    limited it (TCP_INFO's rwnd_limited and sndbuf_limited)."""
    totals: dict[str, dict[str, float]] = {}
    last: dict[str, dict[str, float]] = {}
    for a, b in pairwise(samples):
        for conn, info in b.tcp.items():
            before = a.tcp.get(conn, {})
            grown = _delta({k: before.get(k, 0.0) for k in TCP_COUNTERS}, {k: info.get(k, 0.0) for k in TCP_COUNTERS})
            total = totals.setdefault(conn, dict.fromkeys(TCP_COUNTERS, 0.0))
            for k, v in grown.items():
                total[k] += v
            last[conn] = info
    if not totals:
        return None
    conn, total = max(totals.items(), key=lambda kv: kv[1]["bytes_acked"] + kv[1]["bytes_received"])
    moved = total["bytes_acked"] + total["bytes_received"]
    if moved <= 0:
        return None
    info, busy = last[conn], max(total["busy"], 1.0)
    seconds = max(samples[-1].t - samples[0].t, 1e-6)
    sends = total["bytes_acked"] >= total["bytes_received"]  # the server sends (a read)
    # a request-reply protocol: each data transfer of one direction comes with one small
    # message the other way (a READ call, a WRITE reply) of about CALL_BYTES, so the ratio of
    # the bytes each way estimates the transfer size per request (pipelined calls share a
    # segment, so segments cannot be counted)
    small = total["bytes_received"] if sends else total["bytes_acked"]
    return {
        "connection": conn,
        "port": int(conn.split(">")[0].rsplit(":", 1)[1]),
        "sends": sends,
        "bytes_per_request": round(CALL_BYTES * (moved - small) / small) if small else None,
        "MBps": round(moved / seconds / 1e6, 2),
        "rtt_ms": info.get("rtt"),
        "cwnd": info.get("cwnd"),
        "retrans": int(total["retrans"]),
        "rwnd_limited_percent": round(min(100.0, 100 * total["rwnd_limited"] / busy), 1),
        "sndbuf_limited_percent": round(min(100.0, 100 * total["sndbuf_limited"] / busy), 1),
        "rcv_ssthresh": info.get("rcv_ssthresh"),
        "snd_wnd": info.get("snd_wnd"),
    }


def timeline(samples: list[Sample]) -> list[Point]:
    """Per sample interval: the NIC's busiest direction, each daemon's CPU, the worst cgroup
    throttling, the busiest CPU's softirq share, the worst disk wait."""
    points: list[Point] = []
    t0 = samples[0].t
    for a, b in pairwise(samples):
        dt = max(b.t - a.t, 1e-6)
        nics = net(a, b, dt)
        daemons: dict[str, float] = {}
        for key, d in _delta(a.threads, b.threads).items():
            name = key.rsplit("/", 2)[0]
            daemons[name] = round(daemons.get(name, 0.0) + d / TICKS / dt, 2)
        groups, disk = cgroups(a, b), disks(a, b, dt)
        points.append(
            {
                "t": round(b.t - t0, 2),
                "net_MBps": max((max(n["rx_MBps"], n["tx_MBps"]) for n in nics.values()), default=0.0),
                "daemon_cores": daemons,
                "throttled_percent": max((g["throttled_percent"] for g in groups.values()), default=0.0),
                "softirq_percent": max((c["softirq"] for c in cpus(a, b).values()), default=0.0),
                "disk_await_ms": max((d["await_ms"] for d in disk.values()), default=0.0),
            }
        )
    return points


class ProfileSummary(TypedDict, total=False):
    """What a run's samples say (empty when the run was not profiled); bench.limits reads it."""

    seconds: float
    cpus: dict[str, dict[str, float]]  # per CPU, the percent of each state
    irqs_per_s: dict[str, float]  # the busiest interrupts
    context_switches_per_s: int
    net: dict[str, dict[str, float]]  # per NIC: rx/tx MB/s and packets/s
    disk_busy_percent: dict[str, float]
    disks: dict[str, dict[str, float]]
    daemon_cores: dict[str, float]  # cores each serving daemon used
    threads: list[ThreadUse]  # the busiest threads
    cgroups: dict[str, CgroupUse]  # CPU quota use and throttling
    pressure_percent: dict[str, float]  # PSI: cpu, io, memory
    softirqs_per_s: dict[str, list[float]]  # per softirq, the rate on each CPU
    tcp: TcpUse | None  # the busiest connection: request size, windows, limits
    timeline: list[Point]  # one point per sample interval
    unknown: dict[str, str]  # evidence missing, with the reason
    smb_protection: str  # what the measuring client required of its SMB sessions (sign, encrypt): the runner's


def summarize(samples: list[Sample]) -> ProfileSummary:
    """Averages over the run (first to last sample) and the timeline."""
    a, b = samples[0], samples[-1]
    dt = max(b.t - a.t, 1e-6)
    irq_rates = {n: (b.irq[n] - a.irq.get(n, 0)) / dt for n in b.irq}
    top_irqs = dict(sorted(((str(n), round(r, 1)) for n, r in irq_rates.items() if r > 0), key=lambda kv: -kv[1])[:5])
    per_disk = disks(a, b, dt)
    daemons, busiest = threads(samples)
    return {
        "seconds": round(dt, 2),
        "cpus": cpus(a, b),
        "irqs_per_s": top_irqs,
        "context_switches_per_s": round((b.ctxt - a.ctxt) / dt),
        "net": net(a, b, dt),
        "disk_busy_percent": {dev: d["util_percent"] for dev, d in per_disk.items()},
        "disks": per_disk,
        "daemon_cores": daemons,
        "threads": busiest,
        "cgroups": cgroups(a, b),
        "pressure_percent": pressure(a, b, dt),
        "softirqs_per_s": softirqs(a, b, dt),
        "tcp": tcp(samples),
        "timeline": timeline(samples),
        "unknown": b.limits.get("unknown", {}),  # evidence missing here, with the reason
    }
