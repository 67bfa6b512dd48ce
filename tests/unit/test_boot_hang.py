"""A boot that emulation hung is power-cycled: the kernel lab reads the guest's console for a CPU
stuck for minutes (HUNG is a line of such a boot, as this machine's QEMU 7.2 printed it), stops
QEMU and starts the same machine again, at most twice; a CPU starved for seconds by a busy host
is not a hang, and nor is a boot not yet answering; one silent for ATTEMPT_SECONDS is. A `sleep`
stands in for QEMU: the restart's part is the process."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from nastune.lab import procs
from nastune.lab.guest import machine
from nastune.lab.sh import LabError
from nastune.lab.state import Process
from nastune.sites.lab.kernel import ATTEMPT_SECONDS, RESTARTS, KernelLab

HUNG = b"[  116.536790] watchdog: BUG: soft lockup - CPU#0 stuck for 104s! [systemd:1]\n"
STARVED = b"[   32.536883] watchdog: BUG: soft lockup - CPU#0 stuck for 26s! [systemd:1]\n"


def test_a_cpu_stuck_for_minutes_is_a_hang_and_one_starved_for_seconds_is_not(tmp_path):
    console = tmp_path / "logs" / "console.log"
    console.parent.mkdir()
    console.write_bytes(STARVED)
    assert machine.hung(tmp_path, 0) is None
    console.write_bytes(STARVED + HUNG)
    assert machine.hung(tmp_path, 0) == "soft lockup - CPU#0 stuck for 104s"
    assert machine.hung(tmp_path, len(STARVED + HUNG)) is None  # written before the wait began


# as this machine's guest printed it when its 9p share had no channel yet
FAILED = (
    b"[  12.382023] 9pnet_virtio: no channels available for device seed\n"
    b"[\x1b[0;1;31mFAILED\x1b[0m] Failed to start \x1b[0;1;39mnastune-la\xe2\x80\xa6 management and client namespaces.\n"
)


def test_the_lab_s_own_boot_unit_failing_is_a_hang_at_once(tmp_path):
    """Its guest never answers: power-cycled now, not after ATTEMPT_SECONDS of silence."""
    console = tmp_path / "logs" / "console.log"
    console.parent.mkdir()
    console.write_bytes(b"[   9.5] systemd[1]: Failed to start dkms.service - Builds modules.\n")
    assert machine.hung(tmp_path, 0) is None  # another unit's failure is not the lab's
    console.write_bytes(FAILED)
    found = machine.hung(tmp_path, 0)
    assert found is not None and found.startswith("Failed to start") and "nastune-la" in found


def _guest(directory: Path) -> KernelLab:
    lab = KernelLab(directory)
    (directory / "logs").mkdir()
    procs.spawn(lab.state, "qemu", ["sleep", "600"], directory / "logs" / "qemu.out")
    return lab


def _hangs(lab: KernelLab, times: int):
    """An answer that comes once the boot has hung `times` times (each call before it hangs it)."""
    calls = []

    def answered() -> str | None:
        calls.append(1)
        if len(calls) > times:
            return None
        with open(lab.dir / "logs" / "console.log", "ab") as console:
            console.write(HUNG)
        return "no answer yet"

    return answered


def test_a_hung_boot_is_power_cycled_with_the_same_machine(tmp_path):
    lab, said = _guest(tmp_path), list[str]()
    first = lab.state.of(Process)[-1]
    try:
        lab._wait(_hangs(lab, 1), "NAS", time.monotonic(), said.append)
        again = lab.state.of(Process)[-1]
        assert again.pid != first.pid and again.argv == first.argv
        assert not procs.alive(first) and procs.alive(again)
        assert (tmp_path / "logs" / "console.log.hung").read_bytes() == HUNG  # kept for a look
        assert [line for line in said if "power-cycling" in line and "stuck for 104s" in line]
    finally:
        procs.kill([p.pid for p in lab.state.of(Process) if p.pid])


def test_a_boot_that_hangs_each_time_fails_naming_the_console(tmp_path):
    lab, said = _guest(tmp_path), list[str]()
    try:
        with pytest.raises(LabError, match="stuck for 104s"):
            lab._wait(_hangs(lab, RESTARTS + 1), "NAS", time.monotonic(), said.append)
        assert len([line for line in said if "power-cycling" in line]) == RESTARTS
    finally:
        procs.kill([p.pid for p in lab.state.of(Process) if p.pid])


@pytest.mark.parametrize(("waited", "cycled"), [(ATTEMPT_SECONDS + 1, True), (ATTEMPT_SECONDS - 60, False)])
def test_a_boot_silent_for_its_whole_attempt_is_power_cycled_and_one_within_it_left_to_run(tmp_path, waited, cycled):
    lab, said = _guest(tmp_path), list[str]()
    first = lab.state.of(Process)[-1]
    answers = iter(["no answer yet", None])
    try:
        lab._wait(lambda: next(answers), "NAS", time.monotonic() - waited, said.append)
        assert (lab.state.of(Process)[-1].pid != first.pid) == cycled
        if cycled:
            assert [line for line in said if "power-cycling" in line and "no answer in" in line]
        else:
            assert said == []
    finally:
        procs.kill([p.pid for p in lab.state.of(Process) if p.pid])
