"""Fast, then slow: a sustained write's course, one rate a second, summed up as an operator
describes it ("it starts at full speed, then drops"): the burst (how much went, and how fast,
before the rate fell for good), the sustained rate after it, and the stalls (seconds at under a
tenth of the sustained rate, the sawtooth of a write-back cache that fills and flushes). Linux
buffers writes up to vm.dirty_ratio/dirty_bytes (ZFS up to zfs_dirty_data_max) and then holds
the writer to what the disks take: a burst far above the sustained rate, or many stalls, is the
write cliff."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from itertools import pairwise

from nastune.bench.results import ResultSet
from nastune.facts.model import Fact
from nastune.facts.write_course import WriteCourse

DROP = 0.6  # the rate has fallen for good once it stays under this share of the burst's
STALL = 0.1  # a second under this share of the sustained rate is a stall
CLIFF = 1.5  # a burst this many times the sustained rate is a cliff
WINDOW = 5  # seconds over which the worst stretch after the burst is averaged
FLOOR = 0.01  # MB/s: a stretch in which nothing was written reads this (a ratio needs a positive value)


@dataclass
class Course:
    burst_mb: float  # written before the rate fell for good
    burst_rate: float  # MB/s during the burst
    sustained_rate: float  # MB/s after it (the median second)
    stalls: int  # seconds at under STALL of the sustained rate, after the burst
    seconds: int
    worst: float = 0.0  # MB/s of the slowest WINDOW seconds after the burst (FLOOR at least)

    @property
    def cliff(self) -> bool:
        """A burst well above what the rest of the write sustained, or stalls in its course."""
        return self.burst_rate > CLIFF * self.sustained_rate or self.stalls > 0


def course(rates: list[float]) -> Course:
    """`rates`: MB/s each second of one write. The burst is the first seconds at or above DROP of
    their own peak, up to the last second after which the rate never comes back (a second spent
    flushing in between is part of the burst only if the rate returns to it)."""
    if not rates:
        return Course(0.0, 0.0, 0.0, 0, 0)
    peak = max(rates[: max(1, len(rates) // 4)] or rates)  # the start's peak: the cache taking writes
    end = 0
    while end < len(rates) and rates[end] >= DROP * peak:
        end += 1
    end = max(end, 1)
    burst, rest = rates[:end], rates[end:] or rates[-1:]
    sustained = statistics.median(rest)
    stalls = sum(1 for r in rates[end:] if r < STALL * sustained) if sustained else len(rates[end:])
    windows = [statistics.fmean(rest[i : i + WINDOW]) for i in range(max(1, len(rest) - WINDOW + 1))]
    summed = (round(sum(burst), 1), round(statistics.fmean(burst), 1), round(sustained, 1), stalls, len(rates))
    return Course(*summed, worst=max(FLOOR, round(min(windows), 2)))


def sent_rates(sent: list[tuple[float, int]], size: int) -> list[float]:
    """MB/s each second of an upload of `size` bytes, from the client's sent bytes read about
    once a second while it ran (read between the reads, as they came): scaled so that they add
    up to the file (what the client sent also holds the protocol's headers and anything else it
    sent meanwhile). The last part of a second joins the second before it, so that no second
    counts more than it moved."""
    import numpy  # lazy: every command that lists the workloads imports this module (0.1 s)

    if len(sent) < 2 or sent[-1][1] <= sent[0][1] or sent[-1][0] <= sent[0][0]:
        return []
    times, moved = [t for t, _ in sent], [b for _, b in sent]
    start, end = times[0], times[-1]
    edges = [start + k for k in range(int(end - start) + 1)]
    edges = [*edges[:-1], end] if len(edges) > 1 else [start, end]
    scale = size / (moved[-1] - moved[0]) / 1e6
    at = lambda t: float(numpy.interp(t, times, moved))
    return [max(0.0, (at(b) - at(a)) * scale / (b - a)) for a, b in pairwise(edges)]


def measured(runs: list[ResultSet]) -> Fact[WriteCourse] | None:
    """The sustained write among `runs` whose disks took least (the NAS's slowest data path),
    summed up over its repeats (medians; the stalls of its worst repeat); None: no such run."""
    found = [
        r
        for run in runs
        for r in run.results
        if r.workload == "sustained-write" and not r.failed and "sustained MB/s" in r.metrics
    ]
    if not found:
        return None
    median = lambda r, metric: round(statistics.median(r.metrics[metric].values), 2) if metric in r.metrics else 0.0
    slowest = min(found, key=lambda r: median(r, "sustained MB/s"))
    summed = WriteCourse(
        where=slowest.key,
        sustained_mbs=median(slowest, "sustained MB/s"),
        burst_mb=median(slowest, "burst MB"),
        burst_mbs=median(slowest, "burst MB/s"),
        worst_mbs=median(slowest, "worst 5 s MB/s"),
        stalls=max((course(rates).stalls for rates in slowest.course), default=0),
    )
    repeats = len(slowest.metrics["sustained MB/s"].values)
    return Fact(value=summed, source=f"measured: sustained-write, {repeats} repeats, {slowest.target.url}")
