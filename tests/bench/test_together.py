"""Clients run together: the aggregate over the common span, each client's value, fairness, and
a failing client named while every other client still cleans up."""

from __future__ import annotations

import pytest

from nastune.bench.selection import scaling_steps
from nastune.bench.targets import Target
from nastune.bench.together import FAIRNESS, Together, aggregate, jain
from nastune.bench.workload_base import Metric, State, Workload
from nastune.protocols.client import BenchError


class Spans(Workload):
    """Each client moves 100 MB in the span its target's `extra` gives; the last one may fail."""

    name, kinds = "spans", ("smb",)

    def __init__(self):
        self.torn_down: list[str] = []

    def metrics(self, params):
        return {"MB/s": Metric("MB/s", True, throughput=True), "p99 ms": Metric("ms", False)}

    def setup(self, target, params):
        if target.extra.get("fail") == "setup":
            raise BenchError("smbclient put failed (exit 1): NT_STATUS_ACCESS_DENIED")
        return State(name=target.client_name)

    def once(self, target, params, state):
        if target.extra.get("fail") == "once":
            raise BenchError(f"smbclient get on {target.client_name}: client {target.client_name} cannot connect")
        start, end = target.extra["span"]
        return {"MB/s": 100 / (end - start), "p99 ms": target.extra["p99"], "_start": start, "_end": end}

    def teardown(self, target, params, state):
        self.torn_down.append(state.name or f"nothing on {target.client_name}")


def targets(*spans, fail=None):
    out = []
    for i, (span, p99) in enumerate(spans, 1):
        extra = {"span": span, "p99": p99, **({"fail": fail} if i == len(spans) and fail else {})}
        out.append(Target("smb", "smb://nas/data", client_name=f"c{i}", extra=extra))
    return out


def test_aggregate_is_all_bytes_over_the_common_span_not_the_sum_of_rates():
    together = Together(Spans(), targets(((0.0, 1.0), 5.0), ((0.5, 1.5), 9.0)))
    row = together.once(together.targets[0], {}, together.setup(together.targets[0], {}))
    assert row["MB/s @c1"] == pytest.approx(100)
    assert row["MB/s @c2"] == pytest.approx(100)
    assert row["MB/s"] == pytest.approx(200 / 1.5)  # a plain sum would say 200
    assert row["p99 ms"] == 9.0
    assert row["p99 ms @c1"] == 5.0  # the worst client's latency
    assert row[FAIRNESS] == pytest.approx(1.0)
    assert set(together.metrics({})) == {"MB/s", "p99 ms", "MB/s @c1", "p99 ms @c1", "MB/s @c2", "p99 ms @c2", FAIRNESS}


def test_jain_index_and_rates_without_spans():
    assert jain([10, 10, 10, 10]) == pytest.approx(1.0)
    assert jain([40, 0, 0, 0]) == pytest.approx(0.25)
    assert jain([30, 10]) == pytest.approx(0.8)
    assert aggregate([{"MB/s": 3.0}, {"MB/s": 4.0}], "MB/s") == 7.0


@pytest.mark.parametrize("stage", ["setup", "once"])
def test_a_failing_client_is_named_and_every_client_is_cleaned_up(stage):
    inner = Spans()
    together = Together(inner, targets(((0, 1), 1.0), ((0, 1), 1.0), ((0, 1), 1.0), fail=stage))
    state = State()
    with pytest.raises(BenchError, match="c3"):
        state = together.setup(together.targets[0], {})
        together.once(together.targets[0], {}, state)
    together.teardown(together.targets[0], {}, state)
    assert sorted(inner.torn_down) == ["c1", "c2", "c3" if stage == "once" else "nothing on c3"]


def test_scaling_steps_double_up_to_all_clients():
    assert scaling_steps(1) == [1]
    assert scaling_steps(4) == [1, 2, 4]
    assert scaling_steps(6) == [1, 2, 4, 6]
    with pytest.raises(ValueError, match="two clients or more"):
        Together(Spans(), targets(((0, 1), 1.0)))


def test_clients_that_start_together_get_one_start_time_on_their_targets():
    """The start time travels on each client's target (the client's tool waits for it on its own
    clock), not through a thread-local the caller sets; the targets themselves stay untouched."""
    import time

    seen: list[float | None] = []

    class Starts(Spans):
        def once(self, target, params, state):
            seen.append(target.starts_at)
            return super().once(target, params, state)

    together = Together(Starts(), targets(((0.0, 1.0), 5.0), ((0.5, 1.5), 9.0)))
    before = time.time()
    together.once(together.targets[0], {}, together.setup(together.targets[0], {}))
    assert len(seen) == 2
    assert seen[0] == seen[1]
    assert seen[0] is not None
    assert seen[0] > before
    assert all(t.starts_at is None for t in together.targets)
