"""Stress (MiNET's 2013 benchmark): one client measures while the other clients load the NAS the way many users
do, not as one regular stream: each loading client picks at random among large streams (a
write or a read of one file) and bursts of small-file operations where its protocol has them,
with think time between operations. The measuring client runs the same workloads on the idle
NAS first, so the degradation is a ratio measured side by side."""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from nastune.bench import runner
from nastune.bench.params import Params
from nastune.bench.results import ResultSet
from nastune.bench.runner import Measured
from nastune.bench.targets import Target
from nastune.bench.workload_base import State
from nastune.bench.workloads import WORKLOADS, Workload
from nastune.protocols.client import BenchError
from nastune.sites.base import Pairs

MIX = ("seq-write", "seq-read", "small-files")
STREAM_SIZE = 32 << 20
SMALL_FILES = 100
THINK = (0.2, 1.0)  # seconds between two operations of one loading client


@dataclass
class Loader:
    """One loading client: its operations, counted, until stopped."""

    target: Target
    seed: int
    ops: int = 0
    error: str | None = None
    thread: threading.Thread | None = field(default=None, repr=False)

    def mix(self) -> list[Workload]:
        return [WORKLOADS[n] for n in MIX if WORKLOADS[n].runs_on(self.target)]

    def run(self, stop: threading.Event, params: Params) -> None:
        rng = random.Random(self.seed)
        made: list[tuple[Workload, State]] = []
        try:
            for workload in self.mix():
                made.append((workload, workload.setup(self.target, params)))
            while not stop.is_set():
                workload, state = rng.choice(made)
                workload.once(self.target, params, state)
                self.ops += 1
                stop.wait(rng.uniform(*THINK))
        except BenchError as e:
            self.error = str(e)
        finally:
            for workload, state in made:
                try:
                    workload.teardown(self.target, params, state)
                except BenchError as e:
                    self.error = self.error or f"cleanup: {e}"


class Load:
    """Background load from `targets` while the `with` block runs."""

    def __init__(self, targets: list[Target], params: Params):
        self.params = {**params, "size": STREAM_SIZE, "files": SMALL_FILES}
        self.loaders = [Loader(t, seed=i) for i, t in enumerate(targets)]
        self.stop = threading.Event()

    def __enter__(self) -> Load:
        for loader in self.loaders:
            loader.thread = threading.Thread(target=loader.run, args=(self.stop, self.params), daemon=True)
            loader.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for loader in self.loaders:
            if loader.thread:
                loader.thread.join()

    def summary(self) -> str:
        """What loaded the NAS, for the loaded run's label: clients, operations, failures."""
        parts = []
        for loader in self.loaders:
            name = loader.target.client_name or loader.target.url
            kinds = "+".join(w.name for w in loader.mix())
            parts.append(f"{name} {loader.ops} ops ({kinds})" + (f", stopped: {loader.error}" if loader.error else ""))
        return "loaded by " + "; ".join(parts)


def degradation(idle: ResultSet, loaded: ResultSet) -> list[dict]:
    """Per workload and metric: idle and loaded medians and how many times worse loaded is
    (idle/loaded for a throughput, loaded/idle for a latency): 1.0 means unaffected."""
    before = {(r.key, name): m for r in idle.results for name, m in r.metrics.items()}
    rows = []
    for r in loaded.results:
        for name, m in r.metrics.items():
            base = before.get((r.key, name))
            if base is None or not base.median or not m.median:
                continue
            worse = base.median / m.median if m.higher_is_better else m.median / base.median
            rows.append(
                {
                    "workload": r.key,
                    "metric": name,
                    "unit": m.unit,
                    "idle": base.median,
                    "loaded": m.median,
                    "worse": worse,
                }
            )
    return rows


def run(
    pairs: Pairs,
    load_targets: list[Target],
    params: Params,
    repeats: int,
    out: Path,
    site: Measured,
    console: Console | None = None,
) -> tuple[ResultSet, ResultSet, Path]:
    """The measuring client's workloads on the idle NAS (`<out>.idle.json`), then under load
    (`out`); both result files, so `nastune compare` gives the statistics of the change."""
    idle_out = out.with_name(out.stem + ".idle.json")
    idle = runner.run(pairs, params, repeats, idle_out, site, label="idle", console=console)
    with Load(load_targets, params) as load:
        loaded = runner.run(pairs, params, repeats, out, site, label="loaded", console=console)
    loaded.label = load.summary()
    loaded.save(out)
    return idle, loaded, idle_out
