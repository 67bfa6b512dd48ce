"""Interleaved A/B measurement (randomized multiple interleaved trials, Abedi and Brecht, ICPE
2017): A is the system as it is, B the system with a plan applied. They alternate in a random
order within each pair, switched through the tuning engine (apply, then rollback), so that drift
(another job, a backup starting) hits both alike instead of being counted as the plan's effect.

Each switch is proved before its repeat is measured (verify after apply; a clean rollback after
it) and its cost is counted. After every pair from `min_pairs` on, each metric is compared; the
run stops when every metric is settled (a verdict, or an interval inside the noise floor) or the
budget of pairs is spent. The looks share the 5% false-positive rate (Bonferroni over the looks,
so stopping early cannot inflate it). An A/A control (one more repeat of A at the end) that falls
outside A's range refuses a verdict for that metric. The system always ends in A."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from nastune.bench import runner
from nastune.bench.drivers.common import BenchError
from nastune.bench.interference import Meter
from nastune.bench.results import ResultSet, WorkloadResult
from nastune.stats.compare import ALPHA, NOISE_FLOOR, compare, settled
from nastune.stats.runs import Row, compare_runs
from nastune.tune import executor, lock
from nastune.tune.journal import Journal
from nastune.tune.knobs import KNOBS
from nastune.tune.plan import Plan
from nastune.tune.rollback import rollback
from nastune.tune.system import TuneError

SETTLE = 2.0  # seconds after a switch that reloaded or restarted a server


class AbError(RuntimeError):
    """The interleaved run stopped; the system is back in A (or the message says what is not)."""


@dataclass
class Outcome:
    rows: list[Row]
    notes: list[str]
    pairs: int
    seconds: float
    switch_seconds: float
    decided: bool
    refused: list[str] = field(default_factory=list)  # metrics whose A/A control disagreed with A


def reversible(plan: Plan) -> tuple[Plan, list[str]]:
    """The plan without its one-off actions (xfs_fsr), which cannot be switched off again."""
    kept = [c for c in plan.changes if not KNOBS[c.knob].action]
    left = [
        f"{c.knob} {c.target}: an action, not a setting; measure it before/after with optimize"
        for c in plan.changes
        if KNOBS[c.knob].action
    ]
    return plan.model_copy(update={"changes": kept}), left


def _key(workload, target) -> str:
    return f"{workload.name} @ {target.url}"


class _Switch:
    """Moves the system between A and B through the tuning engine, proving each move."""

    def __init__(self, plan: Plan, system, accept_risk: bool, log):
        self.plan, self.system, self.accept_risk, self.log = plan, system, accept_risk, log
        self.journal: Journal | None = None
        self.seconds = 0.0
        self.services = any(KNOBS[c.knob].service for c in plan.changes)

    def to(self, side: str) -> None:
        start = time.monotonic()
        if side == "B" and self.journal is None:
            self.journal = executor.apply(self.plan, self.system, accept_risk=self.accept_risk, log=lambda m: None)
            drift = [label for label, _, _, ok in executor.verify(self.journal, self.system) if not ok]
            if drift:
                raise AbError(f"B did not take effect: {', '.join(drift)}")
        elif side == "A" and self.journal is not None:
            self.back()
        else:
            return
        if self.services:
            time.sleep(SETTLE)
        self.seconds += time.monotonic() - start

    def back(self) -> None:
        if self.journal is None:
            return
        report = rollback(self.journal, self.system, log=lambda m: None)
        self.journal = None
        if not report.ok:
            raise AbError(f"A could not be restored: {report.summary()}")


def run(
    plan: Plan,
    system,
    make_pairs,
    params: dict,
    out: Path,
    lab: bool,
    min_pairs: int,
    max_pairs: int,
    seed: int | None = None,
    accept_risk: bool = False,
    noise_floor: float = NOISE_FLOOR,
    servers: Callable[[], list[int]] = list,
    log=print,
) -> Outcome:
    looks = max_pairs - min_pairs + 1
    alpha = ALPHA / looks
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    with lock.hold(system, "ab"):
        switch = _Switch(plan, system, accept_risk, log)
        pairs = make_pairs()
        states: dict[str, dict] = {}
        samples: dict[str, dict[str, list[dict]]] = {"A": {}, "B": {}}
        others: dict[str, dict[str, list[dict[str, float]]]] = {"A": {}, "B": {}}
        meter = Meter(servers)
        started = time.monotonic()
        done = 0
        try:
            for workload, target in pairs:
                states[_key(workload, target)] = runner.attempt(partial(workload.setup, target, params), "setup", [])
                runner.attempt(partial(workload.once, target, params, states[_key(workload, target)]), "warm-up", [])

            def measure(side: str) -> None:
                switch.to(side)
                for workload, target in make_pairs():  # an MTU change moves a target's ceiling
                    key = _key(workload, target)
                    runner.drop_caches()
                    meter.start()
                    row = runner.attempt(partial(workload.once, target, params, states[key]), side, [])
                    samples[side].setdefault(key, []).append(row)
                    others[side].setdefault(key, []).append(meter.stop())

            for done in range(1, max_pairs + 1):
                order = ["A", "B"]
                rng.shuffle(order)
                for side in order:
                    measure(side)
                log(f"pair {done}: {' then '.join(order)}")
                if done >= min_pairs and _all_settled(pairs, params, samples, noise_floor, alpha):
                    break
            control = {key: list(values) for key, values in samples["A"].items()}
            measure("A")  # the A/A control
        except (BenchError, TuneError) as e:
            raise AbError(f"stopped after {done} pairs: {e}") from e
        finally:
            try:
                switch.back()
            finally:
                for workload, target in pairs:
                    try:
                        workload.teardown(target, params, states.get(_key(workload, target), {}))
                    except BenchError:
                        pass
        elapsed = time.monotonic() - started
        a = _results("A", pairs, params, {k: v[: len(control[k])] for k, v in samples["A"].items()}, others, lab, out)
        b = _results("B", pairs, params, samples["B"], others, lab, out)
        rows, notes = compare_runs(a, b, noise_floor=noise_floor, alpha=alpha)
        refused = _controls(pairs, params, samples["A"], control, noise_floor)
        rows = [r for r in rows if f"{r.workload} @ {r.target} {r.metric}" not in refused]
        notes.append(
            f"interleaved: {done} pairs in random order; each look tests at alpha {alpha:.4f} (0.05 over {looks} looks)"
        )
        decided = bool(rows) and all(settled(r.result, noise_floor) for r in rows)
        return Outcome(rows, notes, done, elapsed, switch.seconds, decided and not refused, refused)


def _values(workload, params, rows: list[dict]) -> dict[str, list[float]]:
    return {name: [r[name] for r in rows if name in r] for name in workload.metrics(params)}


def _all_settled(pairs, params, samples, noise_floor: float, alpha: float) -> bool:
    for workload, target in pairs:
        key = _key(workload, target)
        a = _values(workload, params, samples["A"].get(key, []))
        b = _values(workload, params, samples["B"].get(key, []))
        for name, spec in workload.metrics(params).items():
            if len(a.get(name, [])) < 2 or len(b.get(name, [])) < 2:
                return False
            if not settled(compare(a[name], b[name], spec.higher_is_better, noise_floor, alpha), noise_floor):
                return False
    return True


def _controls(pairs, params, samples_a, control, noise_floor: float) -> list[str]:
    """Metrics whose A/A control repeat lies outside A's own range (widened by the noise floor)."""
    refused = []
    for workload, target in pairs:
        key = _key(workload, target)
        rows = samples_a.get(key, [])
        if len(rows) <= len(control.get(key, [])):
            continue
        measured, extra = _values(workload, params, rows[:-1]), _values(workload, params, rows[-1:])
        for name, values in measured.items():
            if values and extra.get(name):
                lo, hi = min(values) * (1 - noise_floor), max(values) * (1 + noise_floor)
                if not lo <= extra[name][0] <= hi:
                    refused.append(f"{key} {name}")
    return refused


def _results(side, pairs, params, rows_by_key, others, lab: bool, out: Path) -> ResultSet:
    path = out / f"{side.lower()}.json"
    results = ResultSet(
        created=time.strftime("%Y-%m-%dT%H:%M:%S"), label=side, provenance=runner.provenance(path, lab), results=[]
    )
    for workload, target in pairs:
        key = _key(workload, target)
        rows = rows_by_key.get(key, [])
        if not rows:
            continue
        load = others[side].get(key, [])[: len(rows)]
        metrics = runner.flag_disturbed(runner.metrics_of(workload, params, target, rows), load)
        results.results.append(
            WorkloadResult(
                workload=workload.name,
                target=target.to_json(),
                params=params,
                metrics=metrics,
                interference=load,
                started=results.created,
                seconds=0.0,
            )
        )
    results.save(path)
    return results
