"""Running workloads honestly: a warm-up, then repeats with caches dropped before each, every
repeat kept, the server profiled meanwhile, results above the physical limit flagged, and
Ctrl-C stopping cleanly with the test files removed and the finished repeats saved."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Protocol, TypeVar

from rich.console import Console
from rich.progress import Progress

from nastune.bench.drivers.fio import device_read_rate
from nastune.bench.interference import Meter, disturbed
from nastune.bench.limits import first_line, rank, with_other_load
from nastune.bench.params import Params
from nastune.bench.profile import Profiler, Unprofiled
from nastune.bench.results import LimitRecord, MetricResult, Provenance, ResultSet, WorkloadResult
from nastune.bench.targets import Target
from nastune.bench.usage import ProfileSummary
from nastune.bench.workload_base import State, Workload
from nastune.faults import checkpoint
from nastune.progress import Lines, display
from nastune.protocols.client import BenchError, Final
from nastune.root import Root, Unavailable

AGREE = 0.10  # repeats further than this from their median are flagged
OVER_LIMIT = 1.01
T = TypeVar("T")
RETRIES = 2  # a failed step is tried again this many times before its workload counts as failed
PROFILE_INTERVAL = 0.5  # seconds between the server's /proc samples
RETRY_PAUSE = 3.0  # seconds: lets a restarted server or a renegotiated link settle


def drop_caches() -> None:
    """Flush and drop the page cache (both ends, when client and server share this kernel)."""
    os.sync()
    try:
        Root().write("/proc/sys/vm/drop_caches", "3")
    except Unavailable:
        pass  # not root: direct I/O and user-space clients still keep client caches out


class Measured(Protocol):
    """The system a run measures, as the runner needs it (a Site: nastune.sites.base)."""

    def drop_caches(self) -> None: ...

    def provenance(self, out: Path) -> Provenance: ...

    def servers(self, target: Target) -> list[int]: ...

    def profiler(self, target: Target, interval: float) -> Profiler: ...


def device_limit(workload: Workload, target: Target, cache: dict[str, float]) -> float | None:
    """For a sequential read of a local path: the rate of the device under it, measured once."""
    device = target.device() if workload.device_bound else None
    if device is None:
        return None
    if device not in cache:
        cache[device] = device_read_rate(device)
    return cache[device]


def metrics_of(
    workload: Workload, params: Params, target: Target, rows: list[dict[str, float]], device_rate: float | None = None
) -> dict[str, MetricResult]:
    out = {}
    for name, spec in workload.metrics(params).items():
        values = [row[name] for row in rows if name in row]
        if not values:
            continue
        ceiling = target.limit_for(spec.path or workload.path)
        link = ceiling / 1e6 if spec.throughput and ceiling and spec.unit == "MB/s" else None
        limit = link or (device_rate if spec.throughput else None)
        m = MetricResult(unit=spec.unit, higher_is_better=spec.higher_is_better, values=values, limit=limit)
        if limit and m.median > limit * OVER_LIMIT:
            what = "the link's physical goodput" if link else f"the device's sequential read rate ({target.device()})"
            m.flags.append(f"above {what} ({limit:.1f} MB/s): a cache was measured, not the NAS")
        if len(values) > 1 and m.spread > AGREE:
            m.flags.append(f"repeats differ from their median by up to {m.spread:.0%}")
        out[name] = m
    return out


def flag_disturbed(metrics: dict[str, MetricResult], others: list[dict[str, float]]) -> dict[str, MetricResult]:
    reasons = [why for why in map(disturbed, others) if why]
    for m in metrics.values():
        if reasons:
            m.flags.append(f"{len(reasons)} of {len(others)} repeats disturbed by other load ({reasons[0]})")
    return metrics


def attempt(action: Callable[[], T], what: str, retries: list[str]) -> T:
    """Run one step of a workload, trying again after a failure (a connection reset right after
    an MTU change, a server that restarts) up to RETRIES times, unless the file it reads is not
    there; each failure is kept as a reason."""
    for n in range(RETRIES + 1):
        try:
            return action()
        except BenchError as e:
            retries.append(f"{what}, attempt {n + 1}: {e}")
            if n == RETRIES or isinstance(e, Final):
                raise
            time.sleep(RETRY_PAUSE)
    raise AssertionError("unreachable: the last attempt returned or raised")


@dataclass
class _Measured:
    """One workload's run on one target: its repeats, what failed, the load beside it, the
    server's profile."""

    started: str
    clock: float
    rows: list[dict[str, float]] = field(default_factory=list)
    retries: list[str] = field(default_factory=list)
    others: list[dict] = field(default_factory=list)  # other load during each repeat
    profile: ProfileSummary = field(default_factory=lambda: ProfileSummary())
    interrupted: bool = False
    error: str | None = None
    course: list[list[float]] = field(default_factory=list)


def _measure(workload: Workload, target: Target, params: Params, repeats: int, site: Measured, how: dict) -> _Measured:
    """Set up, warm up (unless the caller just ran it, `how["warm"]`), measure `repeats` times
    with caches dropped and the server profiled, tear down; a workload that keeps failing is
    recorded as failed, Ctrl-C as interrupted."""
    progress, task = how["progress"], how["task"]
    done = _Measured(datetime.now(UTC).isoformat(timespec="seconds"), time.monotonic())
    profiler = site.profiler(target, PROFILE_INTERVAL) if how["profile"] else Unprofiled()
    meter, state = Meter(partial(site.servers, target)), None
    try:
        state = attempt(partial(workload.setup, target, params), "setup", done.retries)
        if workload.warm_up and not how["warm"]:  # warm-up: connections, metadata, allocation
            attempt(partial(workload.once, target, params, state), "warm-up", done.retries)
            progress.advance(task)
        with profiler:
            for n in range(repeats):
                if workload.files:
                    attempt(site.drop_caches, "drop caches", done.retries)
                meter.start()
                done.rows.append(
                    attempt(partial(workload.once, target, params, state), f"repeat {n + 1}", done.retries)
                )
                done.others.append(meter.stop())
                progress.advance(task)
                checkpoint(f"bench:repeat:{n + 1}")
    except KeyboardInterrupt:
        done.interrupted = True
    except BenchError as e:
        done.error = str(e)
    finally:
        try:
            workload.teardown(target, params, state or State())
        except BenchError as e:
            done.retries.append(f"teardown: {e}")
    done.profile = profiler.summary() if len(profiler.samples) > 1 else {}
    done.course = state.course if state else []
    return done


def limited(
    workload: Workload, target: Target, summary: ProfileSummary, others: list[dict]
) -> tuple[ProfileSummary, str, list[LimitRecord]]:
    """What limited a run, from the server's profile and the other load beside its repeats: the
    profile as recorded, the strongest limit in words, and every limit."""
    if summary and target.protection in ("sign", "encrypt"):  # what the run asked of smbd, beside what it cost
        summary = {**summary, "smb_protection": target.protection}
    limits = (
        rank(summary, target.limit_for(workload.path), target.kind, workload.path, workload.moves) if summary else []
    )
    limits = with_other_load(limits, [why for why in map(disturbed, others) if why], len(others))
    attribution = first_line(limits, summary) if summary or limits else ""
    return summary, attribution, [limit.record() for limit in limits]


def _result(
    workload: Workload, target: Target, params: Params, done: _Measured, device: float | None
) -> WorkloadResult:
    """The measured run as a result: its metrics (flagged where other load disturbed a repeat),
    its profile, and what limited it."""
    summary, attribution, limits = limited(workload, target, done.profile, done.others)
    metrics = metrics_of(workload, params, target, done.rows, device) if done.rows else {}
    return WorkloadResult(
        workload=workload.name,
        target=target.record(),
        params=params,
        metrics=flag_disturbed(metrics, done.others) if done.rows else {},
        profile=summary,
        attribution=attribution,
        limits=limits,
        started=done.started,
        seconds=round(time.monotonic() - done.clock, 2),
        interrupted=done.interrupted,
        error=done.error,
        retries=done.retries,
        interference=done.others,
        course=done.course,
    )


def run(
    pairs: list[tuple[Workload, Target]],
    params: Params,
    repeats: int,
    out: Path,
    site: Measured,
    label: str = "",
    console: Console | None = None,
    profile: bool = True,
    within: Progress | Lines | None = None,
    warm: bool = False,
) -> ResultSet:
    """Every workload in turn. One that keeps failing is recorded as failed, with its reasons and
    the repeats it finished, and the others still run: a run is never lost to one workload.
    `site`: where the NAS is (profiled and its caches dropped there). `within`: a progress
    display of the caller's (autotune's trials) that shows this run's bar under its own. `warm`:
    the caller ran these very workloads in this state a moment ago (the rest of an autotune trial
    after its first repeat), so no warm-up transfer."""
    results = ResultSet(
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        label=label,
        provenance=site.provenance(out),
        results=[],
    )
    device_rates: dict[str, float] = {}
    with nullcontext(within) if within else display(console or Console(stderr=True)) as progress:
        warm_ups = 0 if warm else sum(w.warm_up for w, _ in pairs)
        task = progress.add_task("benchmark", total=len(pairs) * repeats + warm_ups)
        how = {"progress": progress, "task": task, "profile": profile, "warm": warm}
        for workload, target in pairs:
            progress.update(task, description=f"{workload.name} @ {target.url}")
            done = _measure(workload, target, params, repeats, site, how)
            if done.rows or done.error:
                device = device_limit(workload, target, device_rates) if done.rows else None
                results.results.append(_result(workload, target, params, done, device))
            results.save(out)
            if done.interrupted:
                raise KeyboardInterrupt
            if done.error:
                progress.console.print(
                    f"{workload.name} @ {target.url} failed after {RETRIES + 1} attempts: {done.error}",
                    markup=False,
                    highlight=False,
                )
        if within:
            progress.remove_task(task)
    return results
