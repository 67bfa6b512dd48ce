"""The server's system profile during a run: samples of /proc, /sys and the serving sockets
(bench.evidence), taken in a thread here or streamed from the NAS by `nastune sample`; bench.usage
turns them into rates and bench.limits into what limited the run."""

from __future__ import annotations

import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import TextIO

from nastune import commands
from nastune.bench import evidence, usage
from nastune.bench.sample import Sample
from nastune.bench.usage import ProfileSummary
from nastune.facts.interrupts import parse_interrupts
from nastune.root import Root, Unavailable


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


SAMPLE_TAKES = 5.0  # seconds a sample may take at most: its `ss` is stopped after them


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
        servers = evidence.serving_pids(self.root)
        cgroups = evidence.cgroups_of(self.root, servers)
        ss = self.root.run(evidence.tcp_argv(self.net_pid), timeout=SAMPLE_TAKES)
        psi = evidence.pressure(self.root)
        diskstats = read("/proc/diskstats")
        unknown = {}  # evidence this system cannot give, and why: never a reason to fail
        if not servers:
            unknown["threads"] = f"no serving process ({', '.join(evidence.SERVERS)}) runs here"
        if not psi:
            unknown["pressure"] = "no /proc/pressure: a kernel without PSI (or booted with psi=0)"
        if not ss.ok:
            unknown["tcp"] = f"`{' '.join(ss.argv[:2])}` failed: {ss.error or ss.tail(1)} (sock_diag, or not root)"
        return Sample(
            time.monotonic(),
            _cpu_times(stat),
            irqs,
            ctxt,
            net,
            evidence.disks(diskstats),
            evidence.threads(self.root, servers),
            evidence.throttling(self.root, cgroups),
            psi,
            evidence.softirqs(self.root),
            evidence.tcp(ss.stdout) if ss.ok else {},
            {**self._limits(servers, cgroups, diskstats), "unknown": unknown},
        )

    def _limits(self, servers: dict[int, str], cgroups: dict[str, str], diskstats: str) -> dict:
        """The serving cgroups' CPU quotas, the IOPS limits of their block I/O cgroups, and the
        block devices' names by major:minor."""
        blkio = evidence.cgroups_of(self.root, servers, "blkio")
        return {
            "cpu_quota": {path: evidence.cpu_quota(self.root, path) for path in cgroups},
            "holds": cgroups,
            "iops": evidence.iops_limits(self.root, sorted(set(blkio) | set(cgroups))),
            "devices": evidence.device_numbers(diskstats),
        }

    def __enter__(self) -> Profiler:
        self._stop = threading.Event()
        self.samples = [self._sample()]

        def loop() -> None:
            while not self._stop.wait(self.interval):
                self.samples.append(self._sample())

        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.samples.append(self._sample())

    def stream(self, out: TextIO) -> None:
        """Write a sample per interval to `out`, one JSON line each, until the reader goes away."""
        while True:
            try:
                print(self._sample().to_json(), file=out, flush=True)
            except BrokenPipeError:
                return
            time.sleep(self.interval)

    def window(self, first: int) -> list[Sample]:
        """The samples of a run that began when `first` had been taken and has just ended: the
        one before it began, and each since, up to one taken after its end. That one is waited
        for three intervals and as long as a sample may take (its `ss` may take SAMPLE_TAKES): on a
        busy NAS a sample takes longer than an interval, and a short run would go unprofiled."""
        taken, deadline = len(self.samples), time.monotonic() + 3 * self.interval + SAMPLE_TAKES
        while len(self.samples) == taken and time.monotonic() < deadline and self._thread.is_alive():
            time.sleep(self.interval / 5)
        return self.samples[max(first - 1, 0) :]

    def summary(self) -> ProfileSummary:
        """What the samples say, as rates over the run and a timeline (bench.usage)."""
        return usage.summarize(self.samples)


@dataclass
class RemoteProfiler(Profiler):
    """The same samples taken on the NAS by `nastune sample` (a command that streams them over
    SSH), for a NAS that is not this host."""

    argv: list[str] = field(default_factory=list)
    FIRST = 20.0  # seconds to wait for the first sample (nastune starting on the NAS)

    def __enter__(self) -> RemoteProfiler:
        self.samples, first = [], threading.Event()
        self._proc = commands.start(self.argv, stdout=subprocess.PIPE)

        def read() -> None:
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

    def __exit__(self, *exc: object) -> None:
        time.sleep(self.interval)  # one more sample after the run
        self._proc.terminate()  # the NAS's sampler ends at its next write (broken pipe)
        try:
            self._proc.wait(10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
        self._thread.join(10)


class Unprofiled(Profiler):
    """No samples at all: a run measured without the profiler, to know what it costs."""

    def __enter__(self) -> Unprofiled:
        self.samples = []
        return self

    def window(self, first: int) -> list[Sample]:
        return []

    def __exit__(self, *exc: object) -> None:
        return None
