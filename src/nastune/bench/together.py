"""One workload on several clients at once: set up on each, then every repeat started on all
clients together (a barrier releases them), and one row per repeat with the aggregate, each
client's own value and the fairness between them (Jain's index: 1 when all get the same, 1/n
when one gets everything). The aggregate of a transfer is the bytes of all clients over the
span from the first start to the last end, on the clients' clocks: a client that started
late or finished early does not inflate it, as a plain sum of rates would."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import TypeVar

from nastune.bench.params import Params
from nastune.bench.targets import Target
from nastune.bench.workload_base import Metric, State, Workload
from nastune.errors import UsageError
from nastune.protocols.client import BenchError

T = TypeVar("T")

FAIRNESS = "fairness"
BARRIER_TIMEOUT = 120.0
LEAD = 0.3  # seconds per client between the barrier and the common start: time to reach each


def jain(values: list[float]) -> float:
    """Jain's fairness index of per-client throughputs."""
    total, squares = sum(values), sum(v * v for v in values)
    return total * total / (len(values) * squares) if squares else 1.0


def per_client(metric: str, client: str) -> str:
    return f"{metric} @{client}"


class Together(Workload):
    def __init__(self, inner: Workload, targets: list[Target]):
        if len(targets) < 2:
            raise UsageError("together: two clients or more")
        self.inner, self.targets = inner, targets
        self.name, self.title, self.doc = inner.name, inner.title, inner.doc
        self.kinds, self.source, self.view = inner.kinds, inner.source, inner.view

    @property
    def clients(self) -> list[str]:
        return [t.client_name or t.url for t in self.targets]

    def metrics(self, params: Params) -> dict[str, Metric]:
        inner = self.inner.metrics(params)
        out = dict(inner)  # the aggregate: throughputs over the common span, latencies of the worst client
        for client in self.clients:
            out.update({per_client(name, client): spec for name, spec in inner.items()})
        if self._throughput(inner):
            out[FAIRNESS] = Metric("Jain", True)
        return out

    @staticmethod
    def _throughput(specs: dict[str, Metric]) -> str | None:
        return next((name for name, spec in specs.items() if spec.throughput), None)

    def _each(self, action: Callable[[Target, int], T]) -> list[T | BenchError]:
        """`action(target, index)` on every client in parallel, each outcome a value or the
        BenchError naming its client; all finish before this returns (none is left mid-way)."""
        with ThreadPoolExecutor(max_workers=len(self.targets)) as pool:
            futures = [pool.submit(action, t, i) for i, t in enumerate(self.targets)]
            outcomes: list[T | BenchError] = []
            for target, future in zip(self.targets, futures):
                try:
                    outcomes.append(future.result())
                except BenchError as e:
                    outcomes.append(e if target.client_name and target.client_name in str(e) else _named(e, target))
        return outcomes

    @staticmethod
    def _succeeded(outcomes: list[T | BenchError]) -> list[T]:
        """Every client's outcome, once none failed (the first failure is raised)."""
        for outcome in outcomes:
            if isinstance(outcome, BenchError):
                raise outcome
        return [o for o in outcomes if not isinstance(o, BenchError)]

    def setup(self, target: Target, params: Params) -> State:
        outcomes = self._each(lambda t, i: self.inner.setup(t, params))
        # what the clients that succeeded set up, for teardown if another client failed
        self._made = [o if isinstance(o, State) else State() for o in outcomes]
        self._succeeded(outcomes)
        return State(parts=self._made)

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        barrier = threading.Barrier(len(self.targets), timeout=BARRIER_TIMEOUT)
        begin = time.time() + LEAD * len(self.targets)

        def one(t: Target, i: int) -> dict[str, float]:
            try:
                barrier.wait()  # a synchronized start: every client's tool begins together
            except threading.BrokenBarrierError:
                raise BenchError("not started: another client failed before the start") from None
            return self.inner.once(replace(t, starts_at=begin), params, state.parts[i])

        return self.merge(self._succeeded(self._each(one)), params)

    def merge(self, rows: list[dict[str, float]], params: Params) -> dict[str, float]:
        specs = self.inner.metrics(params)
        out: dict[str, float] = {}
        for client, row in zip(self.clients, rows):
            out.update({per_client(name, client): row[name] for name in specs if name in row})
        for name, spec in specs.items():
            values = [row[name] for row in rows if name in row]
            if len(values) != len(rows):
                continue
            if spec.throughput:
                out[name] = aggregate(rows, name)
            else:
                out[name] = min(values) if spec.higher_is_better else max(values)
        throughput = self._throughput(specs)
        if throughput and all(throughput in row for row in rows):
            out[FAIRNESS] = jain([row[throughput] for row in rows])
        return out

    def teardown(self, target: Target, params: Params, state: State) -> None:
        states = state.parts or getattr(self, "_made", None) or [State() for _ in self.targets]
        self._succeeded(self._each(lambda t, i: self.inner.teardown(t, params, states[i])))


def aggregate(rows: list[dict[str, float]], name: str) -> float:
    """All clients' bytes over the span from the first start to the last end, where each row
    has its span; otherwise the sum of the rates (the tool reported only a rate)."""
    if all("_start" in row and "_end" in row for row in rows):
        moved = sum(row[name] * (row["_end"] - row["_start"]) for row in rows)
        span = max(row["_end"] for row in rows) - min(row["_start"] for row in rows)
        return moved / span if span > 0 else sum(row[name] for row in rows)
    return sum(row[name] for row in rows)


def _named(error: BenchError, target: Target) -> BenchError:
    return BenchError(f"{error}{target.on}")
