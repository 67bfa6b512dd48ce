"""A write workload leaves no test file behind on the server, even when an upload fails after
creating its file and the runner tries again under a new name."""

from __future__ import annotations

from functools import partial

from nastune.bench import runner
from nastune.bench.drivers import transfer
from nastune.bench.targets import Target
from nastune.bench.workload_base import State
from nastune.bench.workloads import WORKLOADS
from nastune.protocols.client import BenchError


def test_a_failed_and_retried_upload_leaves_no_file(monkeypatch):
    server: set[str] = set()
    failures = iter([True, False])

    def upload(target, local, name):
        server.add(name)  # the server has created the file before the connection broke
        if next(failures):
            raise BenchError("smbclient put failed (exit 1): NT_STATUS_CONNECTION_RESET")
        return (0.0, 1.0)

    def remove(target, name):
        if name not in server:
            raise BenchError("smbclient del failed (exit 1): NT_STATUS_NO_SUCH_FILE")
        server.discard(name)

    monkeypatch.setattr(transfer, "upload", upload)
    monkeypatch.setattr(transfer, "remove", remove)
    monkeypatch.setattr(runner, "RETRY_PAUSE", 0)
    workload, target = WORKLOADS["seq-write"], Target("smb", "smb://nas/data", "nas", "data")
    state, retries = State(source="/var/tmp/x"), list[str]()
    monkeypatch.setattr("nastune.bench.workloads.drop_source", lambda target, path: None)
    runner.attempt(partial(workload.once, target, {"size": 1 << 20}, state), "repeat 1", retries)
    assert len(retries) == 1
    assert len(server) == 1  # the first attempt's file is still there
    workload.teardown(target, {}, state)
    assert server == set()
