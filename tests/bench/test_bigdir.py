"""big-dir on a local path: a directory of real files listed with their attributes and missing
names looked up, through the runner as bench runs it, and nothing left behind."""

from __future__ import annotations

import json

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


def test_a_path_on_a_client_is_measured_by_the_client_s_own_python_with_the_standard_library(tmp_path):
    """big-dir and small-files on a client's mount run there as `python3 - JSON` programs: here
    the client is Debian's python3 in an empty environment, which has no nastune and no pydantic."""
    share = tmp_path / "share"
    share.mkdir()
    called = tmp_path / "called"  # each command the client ran, as its prefix saw it
    client = ("sh", "-c", f'echo "$1 $2" >> {called}; exec env -i PATH=/usr/bin:/bin "$@"', "client")
    target = Target("path", str(share), share=str(share), client_via=client, extra={"fio_server": "localhost"})
    done = runner.run(
        [(WORKLOADS["big-dir"], target), (WORKLOADS["small-files"], target)],
        {"dir_files": 200, "files": 20},
        1,
        tmp_path / "r.json",
        LiveSite(str(tmp_path), "/"),
        profile=False,
    )
    assert [r.error for r in done.results] == [None, None]
    assert done.results[0].metrics["list entries/s"].values[0] > 0
    assert done.results[1].metrics["create ops/s"].values[0] > 0
    assert not fio.scratch(target).exists()  # torn down there
    # big-dir: make, a warm-up list and the list (the scratch directory goes whole); small-files:
    # a warm-up and the repeat
    assert called.read_text().splitlines().count("python3 -") == 5


def test_bench_sizes_the_directory_it_is_told(tmp_path):
    from tests.conftest import run_cli

    share = tmp_path / "share"
    share.mkdir()
    out = tmp_path / "r.json"
    argv = ["bench", "--target", str(share), "-w", "big-dir", "--repeats", "1", "--no-profile", "--out", str(out)]
    run_cli(*argv, "--dir-files", "120")
    (result,) = json.loads(out.read_text())["results"]
    assert result["params"]["dir_files"] == 120
    refused = run_cli(*argv, "--dir-files", "5", check=False)
    assert refused.returncode == 2 and "--dir-files" in refused.stderr and "Traceback" not in refused.stderr
