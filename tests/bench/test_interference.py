"""Other load during a repeat is seen: a process outside the measured path that burns CPU is
counted, nastune's own children are not."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import psutil

from nastune.bench.interference import Meter, _cpu, _measured, disturbed

HOG = """
import sys, time
start = time.process_time()
while time.process_time() - start < 0.5:
    pass
open(sys.argv[1], "w").write(str(time.process_time() - start))
time.sleep(60)
"""


def _wait_for(path: Path) -> float:
    for _ in range(600):
        if path.exists() and path.read_text():
            return float(path.read_text())
        time.sleep(0.05)
    raise AssertionError("the hog never finished its work")


def test_a_foreign_cpu_hog_is_counted_and_flagged(tmp_path):
    done = tmp_path / "done"
    meter = Meter()
    meter.start()
    # detached through a shell that exits at once: the hog is not nastune's child
    subprocess.run(["sh", "-c", f"'{sys.executable}' -c '{HOG}' '{done}' >/dev/null 2>&1 &"], check=True)
    burned = _wait_for(done)
    sample = meter.stop()
    subprocess.run(["pkill", "-f", str(done)], check=False)
    assert sample["other_cpu_s"] >= 0.8 * burned
    assert disturbed({**sample, "other_cores": 1.0})
    assert not disturbed({**sample, "other_cores": 0.0, "steal": 0.0})


def test_nastunes_own_children_and_the_servers_are_not_other_load():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    server = subprocess.Popen(["sh", "-c", "sleep 30 & wait"], start_new_session=True)
    try:
        deadline = time.monotonic() + 60  # until the shell has started its child, however busy the machine
        while not psutil.Process(server.pid).children() and time.monotonic() < deadline:
            time.sleep(0.05)
        counted = _cpu(_measured([server.pid]))
        assert child.pid not in counted
        assert server.pid not in counted
        server_children = [p.pid for p in psutil.Process(server.pid).children(recursive=True)]
        assert server_children
        assert not set(server_children) & set(counted)
        assert 1 in counted  # init is someone else's load
    finally:
        for proc in (child, server):
            proc.kill()
            proc.wait()
