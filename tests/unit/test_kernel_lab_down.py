"""`lab down --kernel` stops the guest its record names when it runs, not the one it read when
it was made: optimize --lab --kernel may have brought the lab up anew in between (a bench script
holding the lab saw its down remove the directory and leave the new QEMU running)."""

from __future__ import annotations

import subprocess

from nastune.lab import procs
from nastune.lab.state import Process, State
from nastune.sites.lab.kernel import KernelLab


def test_down_stops_the_guest_another_process_started_after_it_read_the_record(tmp_path):
    lab = KernelLab(tmp_path / "lab")  # reads the record: nothing up yet
    guest = subprocess.Popen(["sleep", "600"])  # the guest another `up` started meanwhile
    try:
        state = State(tmp_path / "lab")
        state.record.status = "up"
        state.record.resources.append(
            Process(
                name="qemu",
                argv=["sleep", "600"],
                log=str(tmp_path / "q.log"),
                pid=guest.pid,
                start=procs.start_time(guest.pid),
            )
        )
        state.save()
        lab.down(log=lambda m: None)
        assert guest.wait(timeout=30) is not None
        assert not (tmp_path / "lab").exists()
    finally:
        guest.kill()
