"""optimize on the lab when a workload fails in its after-run: the failure is reported, the rest
compared, and the report written."""

from __future__ import annotations

import json

from tests.lab.conftest import nastune


def test_a_workload_failing_in_the_after_run_is_reported_and_the_rest_compared(lab_dir, tmp_path):
    """The first version ended in a traceback with no comparison and no report when iperf3 failed
    once after the MTU change. Here the iperf3 port on the NAS is taken as the after-run of the
    before-after flow starts, so its one-off iperf3 server cannot listen."""
    import subprocess
    import sys

    from nastune.lab import network
    from tests.lab.conftest import lab_env

    out = tmp_path / "optimize"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "nastune",
            "optimize",
            "--lab",
            "--flow",
            "before-after",
            "--scenario",
            "modern",
            "--yes",
            "-w",
            "seq-write",
            "-w",
            "network",
            "--size",
            "16M",
            "--repeats",
            "2",
            "--no-interleave",  # the after-run is what fails here
            "--out",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=lab_env(lab_dir),
        stdin=subprocess.DEVNULL,
    )
    seen, squatter = [], None
    # SO_REUSEADDR: the before-run's connections may leave the port in TIME_WAIT (iperf3 sets it too)
    taker = (
        "import socket, time; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); "
        "s.bind(('10.77.0.1', 5201)); s.listen(); time.sleep(900)"
    )
    for line in proc.stderr or ():
        seen.append(line)
        if "measure: after" in line:
            squatter = subprocess.Popen(["ip", "netns", "exec", network.NAS_NS, sys.executable, "-c", taker])
            break
    try:
        stdout, stderr = proc.communicate(timeout=600)
    finally:
        if squatter:
            squatter.kill()
    stderr = "".join(seen) + stderr
    assert proc.returncode == 1, stderr
    assert "Traceback" not in stderr, stderr
    assert "FAILED" in stdout
    assert "network @ iperf3://10.77.0.1" in stdout
    assert "nastune rollback --inventory" in stdout
    compared = json.loads((out / "compare.json").read_text())
    assert {r["workload"] for r in compared["rows"]} == {"seq-write"}  # the other workload is still compared
    assert any("network" in f and "failed" in f for f in compared["failed"])
    after = {r["workload"]: r for r in json.loads((out / "after.json").read_text())["results"]}
    assert after["network"]["error"]
    assert len(after["network"]["retries"]) == 3
    assert "the iperf3 server on NAS nas" in after["network"]["error"]
    assert "in use" in after["network"]["error"]
    assert "network" in (out / "report.html").read_text()
    assert "FAILED" in (out / "report.html").read_text()
    nastune(lab_dir, "rollback")
