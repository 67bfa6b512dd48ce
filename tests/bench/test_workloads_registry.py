"""The workload registry holds together: every workload is found by its name, says what it
measures, where it runs and where its method comes from, gives every metric a unit and a
direction, and names a view the report knows how to draw."""

from __future__ import annotations

from nastune.bench.params import DEFAULTS
from nastune.bench.targets import KINDS
from nastune.bench.workloads import WORKLOADS
from nastune.report import charts

VIEWS = {"bars": charts.bar_charts, "iozone": charts.iozone_charts, "heatmap": charts.numa_charts}


def test_every_workload_declares_itself():
    for name, w in WORKLOADS.items():
        assert w.name == name, name
        assert w.title, name
        assert w.doc, name
        assert w.source, name
        assert w.kinds, name
        assert set(w.kinds) <= set(KINDS), name
        assert w.view in VIEWS, f"{name}: the report draws no view {w.view!r}"
        assert w.path in ("read", "write", "both"), f"{name}: attribution knows no path {w.path!r}"
        if name == "numa-bandwidth":
            continue  # its metrics depend on the machine's NUMA nodes
        metrics = w.metrics(DEFAULTS)
        assert metrics, name
        for metric, spec in metrics.items():
            assert spec.unit, (name, metric)
            assert isinstance(spec.higher_is_better, bool), (name, metric)
            assert not spec.throughput or spec.higher_is_better, (name, metric)


def test_the_report_draws_each_workload_by_its_view():
    assert {n for n, w in WORKLOADS.items() if w.view == "iozone"} == {"iozone"}
    assert charts.view("a-workload-of-another-version") == "bars"


def test_a_workload_measured_per_kind_of_target_has_one_part_per_kind_and_the_same_metrics():
    """A workload measured differently on a path and through the protocols is a class per way,
    joined by ByKind: no kind is served twice, every part measures the same metrics, and a target
    reaches the part of its kind."""
    from nastune.bench.targets import Target
    from nastune.bench.workload_base import ByKind, OnPath

    joined = {name: w for name, w in WORKLOADS.items() if isinstance(w, ByKind)}
    assert {"seq-write", "seq-read", "sync-write", "small-files", "big-dir"} <= set(joined)
    for name, w in joined.items():
        kinds = [k for p in w.parts for k in p.kinds]
        assert len(kinds) == len(set(kinds)), name
        assert all(p.metrics(DEFAULTS) == w.metrics(DEFAULTS) for p in w.parts), name
        on_path = w.part(Target("path", "/srv", share="/srv"))
        assert isinstance(on_path, OnPath) and on_path.kinds == ("path",), name
        assert all(not isinstance(p, OnPath) for p in w.parts if p is not on_path), name
