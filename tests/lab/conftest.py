"""Lab tests run the real lab (root, namespaces, loop devices, servers) in a private lab
directory, under namespace names of their own (tests/conftest.py): a lab an operator has up is
not theirs to touch, and runs on beside them."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nastune.lab import network
from nastune.sites.lab.lab import CGROUP, taken_message
from tests.conftest import printed_json


def lab_env(directory: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "NASTUNE_LAB_DIR": str(directory), "COLUMNS": "200", **extra}


def nastune(
    directory: Path, *args: str, check: bool = True, timeout: float = 300, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "nastune", *args],
        capture_output=True,
        text=True,
        env=lab_env(directory, **(env or {})),
        stdin=subprocess.DEVNULL,
        timeout=timeout,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"nastune {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    printed_json(args, proc.stdout)
    return proc


def leftovers(directory: Path) -> list[str]:
    """Everything of a lab that could remain on the machine."""
    found = []
    namespaces = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    found += [f"netns {line.split()[0]}" for line in namespaces.splitlines() if line.startswith(f"{network.PREFIX}-")]
    if network.OWNERS.exists():
        found += [f"owner mark {m}" for m in network.OWNERS.iterdir() if network.owner(m.name) == directory]
    mounts = Path("/proc/self/mounts").read_text()
    found += [f"mount {line.split()[1]}" for line in mounts.splitlines() if str(directory) in line]
    loops = subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout
    found += [f"loop {line}" for line in loops.splitlines() if str(directory) in line]
    found += [f"cgroup {c}" for c in ("cpu", "memory", "blkio") if Path(f"/sys/fs/cgroup/{c}/{CGROUP}").exists()]
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if stat.rsplit(")", 1)[1].split()[0] != "Z" and str(directory) in cmdline:
            found.append(f"process {pid} {cmdline[:80]}")
    if directory.exists():
        found.append(f"directory {directory}")
    return found


@pytest.fixture
def lab_dir(tmp_path_factory):
    yield from _lab_directory(tmp_path_factory)


@pytest.fixture(scope="module")
def module_lab_dir(tmp_path_factory):
    """One lab directory for a whole module whose tests leave the lab as they found it."""
    yield from _lab_directory(tmp_path_factory)


def _lab_directory(tmp_path_factory):
    if os.geteuid() != 0:
        pytest.skip("the lab needs root")
    taken = network.existing_namespaces() & {network.NAS_NS, network.client_ns(1)}
    stale = {o for ns in taken if (o := network.owner(ns)) and "/pytest-of-" in str(o)}
    for left in stale:  # left up by an earlier test run that was killed: its record removes it
        nastune(left, "lab", "down", check=False)
    if network.existing_namespaces() & {network.NAS_NS, network.client_ns(1)}:
        pytest.fail(f"a lab is already up on this machine: {taken_message(taken)}")
    directory = tmp_path_factory.mktemp("lab") / "lab"
    yield directory
    nastune(directory, "lab", "down", check=False)
    assert leftovers(directory) == []


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def status(directory: Path) -> list[dict]:
    return json.loads(nastune(directory, "lab", "status", "--json", check=False).stdout)["parts"]


def iperf3_from(lab_dir: Path, host: str) -> dict:
    """iperf3's JSON for 2 s from a lab client to the NAS, through a one-off server there (the lab
    keeps none running, as a NAS does not)."""
    from functools import partial

    from nastune.bench.drivers.iperf3 import PORT, one_off
    from nastune.lab import network
    from nastune.lab.sh import in_ns

    with one_off(partial(in_ns, network.NAS_NS), network.NAS_IP, PORT, 60, "the lab's NAS"):
        return json.loads(
            nastune(lab_dir, "lab", "exec", host, "--", "iperf3", "-c", network.NAS_IP, "-t", "2", "-J").stdout
        )
