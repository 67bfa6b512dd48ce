"""Runtime evidence of what limits a NAS, read from /proc, /sys and `ss` once per profile
sample: the serving processes' threads, their cgroups' quotas and throttling, pressure stall
information, softirqs per CPU, the disks' queues, and the TCP state of the serving sockets.
Each reader returns plain counters (a sample is JSON); the profile turns two samples into rates."""

from __future__ import annotations

from nastune.protocols import PROTOCOLS
from nastune.root import Root, Unavailable

# the file-serving daemons, and iperf3 (the network workload's server)
SERVERS = (*(name for p in PROTOCOLS.values() for name in p.processes), "iperf3")
SERVING_PORTS = (*(p.port for p in PROTOCOLS.values()), 5201)  # each protocol's, and iperf3's
SOFTIRQS = ("NET_RX", "NET_TX", "BLOCK")
CGROUP_ROOT = "/sys/fs/cgroup"


def _ticks(stat: str) -> tuple[str, int]:
    """comm and utime + stime (clock ticks) of a /proc/PID[/task/TID]/stat line."""
    comm = stat[stat.index("(") + 1 : stat.rindex(")")]
    fields = stat[stat.rindex(")") + 2 :].split()
    return comm, int(fields[11]) + int(fields[12])


def serving_pids(root: Root) -> dict[int, str]:
    """The serving processes by pid, with their names."""
    found = {}
    for entry in root.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            comm = root.read(f"/proc/{entry}/comm").strip()
        except Unavailable:
            continue  # gone since the listing
        if comm in SERVERS:
            found[int(entry)] = comm
    return found


def threads(root: Root, pids: dict[int, str]) -> dict[str, int]:
    """CPU ticks of every thread of the serving processes, keyed `name/pid/tid`."""
    out = {}
    for pid, name in pids.items():
        try:
            tids = root.listdir(f"/proc/{pid}/task")
        except Unavailable:
            continue
        for tid in tids:
            try:
                _, ticks = _ticks(root.read(f"/proc/{pid}/task/{tid}/stat"))
            except (Unavailable, ValueError, IndexError):
                continue
            out[f"{name}/{pid}/{tid}"] = ticks
    return out


V1_DIRS = {"cpu": ("cpu,cpuacct", "cpu"), "blkio": ("blkio",)}


def cgroups_of(root: Root, pids: dict[int, str], controller: str = "cpu") -> dict[str, str]:
    """The cgroup directories of the serving processes for `controller` (cpu or blkio): v1's
    tree of that controller, or v2's unified tree; each with the names of the servers in it."""
    out: dict[str, set[str]] = {}
    for pid, name in pids.items():
        try:
            lines = root.read(f"/proc/{pid}/cgroup").splitlines()
        except Unavailable:
            continue
        for line in lines:
            _, controllers, path = line.split(":", 2)
            if path == "/":
                continue
            if controller in controllers.split(","):
                for d in V1_DIRS[controller]:
                    if root.isdir(f"{CGROUP_ROOT}/{d}{path}"):
                        out.setdefault(f"{CGROUP_ROOT}/{d}{path}", set()).add(name)
                        break
            elif controllers == "":
                for unified in ("", "/unified"):
                    if root.exists(f"{CGROUP_ROOT}{unified}{path}/cpu.stat"):
                        out.setdefault(f"{CGROUP_ROOT}{unified}{path}", set()).add(name)
                        break
    return {path: ",".join(sorted(names)) for path, names in out.items()}


def device_numbers(diskstats: str) -> dict[str, str]:
    """Block device names by major:minor."""
    return {f"{f[0]}:{f[1]}": f[2] for f in (line.split() for line in diskstats.splitlines()) if len(f) >= 3}


def _keyed(text: str) -> dict[str, int]:
    out = {}
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if value.strip().lstrip("-").isdigit():
            out[key] = int(value)
    return out


def cpu_quota(root: Root, cgroup: str) -> float | None:
    """The cgroup's CPU quota in CPUs (None: unlimited)."""
    try:
        if root.exists(f"{cgroup}/cpu.max"):
            quota, period = root.read(f"{cgroup}/cpu.max").split()
            return None if quota == "max" else int(quota) / int(period)
        quota_us = int(root.read(f"{cgroup}/cpu.cfs_quota_us"))
        return None if quota_us < 0 else quota_us / int(root.read(f"{cgroup}/cpu.cfs_period_us"))
    except (Unavailable, ValueError):
        return None


def throttling(root: Root, cgroups: dict[str, str]) -> dict[str, list[int]]:
    """[periods, throttled periods, throttled microseconds] of each cgroup (v1 counts ns)."""
    out = {}
    for path in cgroups:
        try:
            stat = _keyed(root.read(f"{path}/cpu.stat"))
        except Unavailable:
            continue
        us = stat["throttled_usec"] if "throttled_usec" in stat else stat.get("throttled_time", 0) // 1000
        out[path] = [stat.get("nr_periods", 0), stat.get("nr_throttled", 0), us]
    return out


def pressure(root: Root) -> dict[str, int]:
    """Microseconds some task stalled on CPU, I/O and memory (PSI), where the kernel has it."""
    out = {}
    for resource in ("cpu", "io", "memory"):
        try:
            line = root.read(f"/proc/pressure/{resource}").splitlines()[0]
        except (Unavailable, IndexError):
            continue
        out[resource] = int(line.rsplit("total=", 1)[1])
    return out


def softirqs(root: Root) -> dict[str, list[int]]:
    """NET_RX, NET_TX and BLOCK softirqs per CPU."""
    try:
        text = root.read("/proc/softirqs")
    except Unavailable:
        return {}
    out = {}
    for line in text.splitlines()[1:]:
        name, _, counts = line.partition(":")
        if name.strip() in SOFTIRQS:
            out[name.strip()] = [int(c) for c in counts.split()]
    return out


# /proc/diskstats fields kept: reads, ms reading, writes, ms writing, in flight, ms busy, weighted ms
DISK_FIELDS = (3, 6, 7, 10, 11, 12, 13)


def disks(text: str) -> dict[str, list[int]]:
    out = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 14 and not f[2].startswith(("ram", "zram")):
            out[f[2]] = [int(f[i]) for i in DISK_FIELDS]
    return out


def iops_limits(root: Root, cgroup_paths: list[str]) -> dict[str, dict[str, int]]:
    """Read and write IOPS limits on the serving processes' block devices (v1 blkio throttle or
    v2 io.max), by major:minor."""
    out: dict[str, dict[str, int]] = {}
    for path in cgroup_paths:
        for name, key in (("blkio.throttle.read_iops_device", "read"), ("blkio.throttle.write_iops_device", "write")):
            try:
                for line in root.read(f"{path}/{name}").splitlines():
                    dev, value = line.split()
                    out.setdefault(dev, {})[key] = int(value)
            except (Unavailable, ValueError):
                continue
        try:
            for line in root.read(f"{path}/io.max").splitlines():
                dev, *limits = line.split()
                for item in limits:
                    k, _, v = item.partition("=")
                    if k in ("riops", "wiops") and v != "max":
                        out.setdefault(dev, {})["read" if k == "riops" else "write"] = int(v)
        except (Unavailable, ValueError):
            continue
    return out


TCP_FIELDS = (
    "rtt",
    "cwnd",
    "bytes_acked",
    "bytes_received",
    "busy",
    "rwnd_limited",
    "sndbuf_limited",
    "rcv_ssthresh",
    "snd_wnd",
    "retrans",
)


def tcp(text: str) -> dict[str, dict[str, float]]:
    """The TCP_INFO of established serving sockets as `ss -tinH` prints it (the kernel's
    counters through sock_diag): per connection, bytes, RTT, window and the milliseconds the
    sender was busy, limited by the peer's receive window, or by its own send buffer."""
    out: dict[str, dict[str, float]] = {}
    key = None
    for line in text.splitlines():
        if not line.startswith((" ", "\t")):
            parts = line.split()
            key = f"{parts[-2]}>{parts[-1]}" if len(parts) >= 4 else None
            continue
        if key is None:
            continue
        info: dict[str, float] = {}
        for token in line.split():
            name, colon, value = token.partition(":")
            if not colon or name not in TCP_FIELDS:
                continue
            # "retrans:0/3": now/total; "busy:1200ms"; "sndbuf_limited:840ms(70.0%)"; "rtt:0.231/0.05"
            parts = value.split("ms")[0].split("(")[0].split("/")
            try:
                info[name] = float(parts[-1] if name == "retrans" else parts[0])
            except ValueError:
                continue
        out[key] = info
        key = None
    return out


def tcp_argv(net_pid: int | None) -> list[str]:
    """`ss` for the serving ports, in the network namespace of `net_pid` when given."""
    ports = " or ".join(f"sport = :{p}" for p in SERVING_PORTS)
    ss = ["ss", "-tinH", "state", "established", f"( {ports} )"]
    return ["nsenter", f"--net=/proc/{net_pid}/ns/net", *ss] if net_pid else ss
