"""A run warms each workload up once before its timed repeats; the rest of an autotune trial,
measured moments after its first repeat in the same state, does not pay for a second warm-up."""

from __future__ import annotations

from nastune.bench import runner
from nastune.bench.targets import Target
from nastune.sites.live import LiveSite
from tests.bench.test_cache_drops import Still


class Counted(Still):
    calls = 0

    def once(self, target, params, state):
        self.calls += 1
        return {"MB/s": float(self.calls)}


def test_the_warm_up_is_one_transfer_before_the_repeats_and_none_when_warm(tmp_path):
    target = Target("path", str(tmp_path), share=str(tmp_path))
    for warm, transfers in ((False, 4), (True, 3)):
        workload = Counted()
        run = runner.run(
            [(workload, target)], {}, 3, tmp_path / "r.json", LiveSite(str(tmp_path), "/"), profile=False, warm=warm
        )
        (result,) = run.results
        assert workload.calls == transfers
        assert result.metrics["MB/s"].values == [float(n) for n in range(transfers - 2, transfers + 1)]


def test_a_workload_whose_repeats_are_cold_by_design_has_no_warm_up(tmp_path):
    """The aged read: each repeat reads another file from dropped caches in a new client process."""
    from nastune.bench.workloads import WORKLOADS

    assert not WORKLOADS["aged-read"].warm_up
    assert WORKLOADS["seq-read"].warm_up
    target = Target("path", str(tmp_path), share=str(tmp_path))
    workload = Counted()
    workload.warm_up = False
    run = runner.run([(workload, target)], {}, 3, tmp_path / "r.json", LiveSite(str(tmp_path), "/"), profile=False)
    assert workload.calls == 3
    assert run.results[0].metrics["MB/s"].values == [1.0, 2.0, 3.0]
