"""The server's system profile during a run, sampled from /proc, and a one-line attribution of
the bottleneck: which resource was saturated (a core in softirq, the link, a disk) or none."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from dataclasses import asdict, dataclass, field

from nastune.facts.interrupts import parse_interrupts
from nastune.root import Root, Unavailable

CPU_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def _cpu_times(text: str) -> dict[str, list[int]]:
    return {
        line.split()[0]: [int(v) for v in line.split()[1:9]] for line in text.splitlines() if line.startswith("cpu")
    }


def _net(text: str) -> dict[str, tuple[int, int, int, int]]:
    out = {}
    for line in text.splitlines()[2:]:
        name, _, rest = line.partition(":")
        v = rest.split()
        out[name.strip()] = (int(v[0]), int(v[1]), int(v[8]), int(v[9]))  # rx bytes, rx pkts, tx bytes, tx pkts
    return out


def _disks(text: str) -> dict[str, int]:
    return {f.split()[2]: int(f.split()[12]) for f in text.splitlines() if len(f.split()) >= 13}  # io_ticks ms


@dataclass
class Sample:
    t: float
    cpu: dict[str, list[int]]
    irq: dict[int, int]
    ctxt: int
    net: dict[str, tuple[int, int, int, int]]
    disk: dict[str, int]

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Sample:
        d = json.loads(text)
        return cls(
            float(d["t"]),
            {k: [int(x) for x in v] for k, v in d["cpu"].items()},
            {int(k): int(v) for k, v in d["irq"].items()},
            int(d["ctxt"]),
            {k: (int(v[0]), int(v[1]), int(v[2]), int(v[3])) for k, v in d["net"].items()},
            {k: int(v) for k, v in d["disk"].items()},
        )


@dataclass
class Profiler:
    """Samples /proc every `interval` seconds in a thread while a run goes on."""

    net_pid: int | None = None  # read /proc/PID/net/dev: the server's network namespace
    interval: float = 0.5
    samples: list[Sample] = field(default_factory=list)
    root: Root = field(default_factory=Root)

    def _sample(self) -> Sample:
        read = self.root.read
        stat = read("/proc/stat")
        ctxt = next(int(line.split()[1]) for line in stat.splitlines() if line.startswith("ctxt"))
        irqs = {i.number: sum(i.counts.values()) for i in parse_interrupts(read("/proc/interrupts"))[1]}
        try:
            net = _net(read(f"/proc/{self.net_pid}/net/dev" if self.net_pid else "/proc/net/dev"))
        except Unavailable:  # the server exited: the host's view is the next best
            net = _net(read("/proc/net/dev"))
        return Sample(time.monotonic(), _cpu_times(stat), irqs, ctxt, net, _disks(read("/proc/diskstats")))

    def __enter__(self) -> Profiler:
        self._stop = threading.Event()
        self.samples = [self._sample()]

        def loop():
            while not self._stop.wait(self.interval):
                self.samples.append(self._sample())

        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.samples.append(self._sample())

    def stream(self, out) -> None:
        """Write a sample per interval to `out`, one JSON line each, until the reader goes away."""
        while True:
            try:
                print(self._sample().to_json(), file=out, flush=True)
            except BrokenPipeError:
                return
            time.sleep(self.interval)

    def summary(self) -> dict:
        """Averages over the run: per-CPU shares, interrupts/s of the busiest IRQs, context
        switches/s, NIC packets and bytes/s, disk busy %."""
        a, b = self.samples[0], self.samples[-1]
        dt = max(b.t - a.t, 1e-6)
        cpus = {}
        for name, after in b.cpu.items():
            if name == "cpu" or name not in a.cpu:
                continue
            delta = [y - x for x, y in zip(a.cpu[name], after)]
            total = sum(delta) or 1
            cpus[name] = {f: round(100 * d / total, 1) for f, d in zip(CPU_FIELDS, delta)}
        irq_rates = {n: (b.irq[n] - a.irq.get(n, 0)) / dt for n in b.irq}
        top_irqs = dict(
            sorted(((str(n), round(r, 1)) for n, r in irq_rates.items() if r > 0), key=lambda kv: -kv[1])[:5]
        )
        net: dict[str, dict[str, float]] = {}
        for dev, counters in b.net.items():
            if dev == "lo" or dev not in a.net:
                continue
            d = [y - x for x, y in zip(a.net[dev], counters)]
            net[dev] = {
                "rx_MBps": round(d[0] / dt / 1e6, 2),
                "rx_pps": round(d[1] / dt),
                "tx_MBps": round(d[2] / dt / 1e6, 2),
                "tx_pps": round(d[3] / dt),
            }
        disks = {
            dev: round(100 * (b.disk[dev] - a.disk.get(dev, 0)) / (dt * 1000), 1)
            for dev in b.disk
            if not dev.startswith(("ram", "zram")) and b.disk[dev] - a.disk.get(dev, 0) > 0
        }
        return {
            "seconds": round(dt, 2),
            "cpus": cpus,
            "irqs_per_s": top_irqs,
            "context_switches_per_s": round((b.ctxt - a.ctxt) / dt),
            "net": net,
            "disk_busy_percent": disks,
        }


@dataclass
class RemoteProfiler(Profiler):
    """The same samples taken on the NAS by `nastune sample` (a command that streams them over
    SSH), for a NAS that is not this host."""

    argv: list[str] = field(default_factory=list)
    FIRST = 20.0  # seconds to wait for the first sample (nastune starting on the NAS)

    def __enter__(self) -> RemoteProfiler:
        self.samples, first = [], threading.Event()
        self._proc = subprocess.Popen(
            self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )

        def read():
            for line in self._proc.stdout or ():
                try:
                    self.samples.append(Sample.from_json(line))
                except (ValueError, LookupError, TypeError):
                    continue  # a damaged line: the summary uses the others
                first.set()
            first.set()

        self._thread = threading.Thread(target=read, daemon=True)
        self._thread.start()
        first.wait(self.FIRST)
        return self

    def __exit__(self, *exc) -> None:
        time.sleep(self.interval)  # one more sample after the run
        self._proc.terminate()  # the NAS's sampler ends at its next write (broken pipe)
        try:
            self._proc.wait(10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
        self._thread.join(10)


def attribute(profile: dict, limit_bytes: float | None = None) -> str:
    """One line naming the bottleneck the profile shows."""
    cpus = profile.get("cpus", {})
    for name, share in cpus.items():
        if share.get("softirq", 0) >= 80:
            return f"one CPU ({name}) at {share['softirq']:.0f}% softirq: network interrupts on a single core"
    for dev, busy in profile.get("disk_busy_percent", {}).items():
        if busy >= 90:
            return f"disk {dev} busy {busy:.0f}% of the time: storage-bound"
    if limit_bytes:
        for dev, n in profile.get("net", {}).items():
            peak = max(n["rx_MBps"], n["tx_MBps"]) * 1e6
            if peak >= 0.9 * limit_bytes:
                return f"{dev} carries {peak / limit_bytes:.0%} of the link's goodput: network-bound"
    busy = {name: 100 - s.get("idle", 0) - s.get("iowait", 0) for name, s in cpus.items()}
    for name, b in busy.items():
        if b >= 90:
            return f"{name} {b:.0f}% busy: CPU-bound on one core"
    system = sum(s.get("system", 0) + s.get("softirq", 0) + s.get("irq", 0) for s in cpus.values())
    user = sum(s.get("user", 0) for s in cpus.values())
    if system > user and system / max(len(cpus), 1) > 30:
        return "kernel time exceeds user time (packet and I/O processing), as 001 saw under stress"
    if any(s.get("iowait", 0) >= 30 for s in cpus.values()):
        return "CPUs wait on I/O: storage latency"
    return "no resource saturated: latency-bound (round trips, request size or client)"
