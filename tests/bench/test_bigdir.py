"""big-dir on a local path: a directory of real files listed with their attributes and missing
names looked up, through the runner as bench runs it, and nothing left behind."""

from __future__ import annotations

from nastune.bench import runner
from nastune.bench.drivers import fio
from nastune.bench.targets import Target
from nastune.bench.workloads import WORKLOADS
from nastune.sites.live import LiveSite


def test_a_big_directory_is_listed_whole_and_removed(tmp_path):
    share = tmp_path / "share"
    share.mkdir()
    target = Target("path", str(share), share=str(share))
    done = runner.run(
        [(WORKLOADS["big-dir"], target)],
        {"dir_files": 300},
        2,
        tmp_path / "r.json",
        LiveSite(str(tmp_path), "/"),
        profile=False,
    )
    (result,) = done.results
    assert result.error is None
    assert set(result.metrics) == {"list entries/s", "miss latency"}
    assert all(v > 0 for m in result.metrics.values() for v in m.values)
    assert len(result.metrics["list entries/s"].values) == 2
    assert not list(fio.scratch(target).glob("nastune-dir-*"))  # teardown removed it


def test_a_directory_that_lists_short_is_an_error_not_a_rate(tmp_path, monkeypatch):
    from nastune.bench.drivers import bigdir

    share = tmp_path / "share"
    share.mkdir()
    target = Target("path", str(share), share=str(share))
    made = bigdir.make
    monkeypatch.setattr(bigdir, "make", lambda d, n: made(d, n - 10))  # ten files short of what was asked
    done = runner.run(
        [(WORKLOADS["big-dir"], target)],
        {"dir_files": 100},
        1,
        tmp_path / "r.json",
        LiveSite(str(tmp_path), "/"),
        profile=False,
    )
    (result,) = done.results
    assert "listed 90 of its 100 files" in (result.error or "")
