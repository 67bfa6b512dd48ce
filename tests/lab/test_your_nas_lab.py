"""docs/your-nas.md, run as an operator would run it: every command of the page, in order, with the
lab standing in for the NAS and its clients, as an operator's NAS is: its shares need a password
(guest access off), a container runtime's bridge and veths sit beside the NAS's link, and nastune
is installed there from a wheel of this checkout. The password must appear on no process's
command line sampled meanwhile and in no file nastune wrote; nothing may change before the plan
is agreed to; no finding may name a container's interface. The page's measurements move 64 MiB
per transfer, and optimize interleaves the fewest pairs of one workload (SHRUNK): this test checks
what the page does, not its figures, which the recorded benchmarks hold."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import subprocess
import threading
import time
from pathlib import Path

from nastune.lab import network
from tests.docs.page import commands
from tests.lab.conftest import lab_env, nastune

REPO = Path(__file__).parents[2]
CONTAINER_NS = f"{network.PREFIX}-ctr1"  # a container's network namespace, as Docker makes one
# what the lab, standing in for a NAS, answers differently from a NAS, and why
EXPECTED = {
    "nastune optimize --inventory hosts.ini": (1, "add --yes to apply it"),  # no terminal: shows the plan only
    "nastune persist --inventory hosts.ini": (1, "does not survive a reboot"),  # the lab's NAS is a namespace
}


# the options the test adds to a measuring command of the page: transfers and pairs cut to the least
SHRUNK = {
    "nastune bench": ["--size", "64M", "--repeats", "2"],
    "nastune optimize": ["--size", "64M", "--repeats", "2", "--max-pairs", "3", "-w", "seq-read"],
}


def shrunk(argv: list[str]) -> list[str]:
    """`argv` with SHRUNK's options for its command (a later option overrides the page's)."""
    return argv + SHRUNK.get(" ".join(argv[:2]), [])


def containers() -> None:
    """docker0 with a veth into a container's namespace, and a tap device, on the NAS."""
    run = lambda *argv: subprocess.run(argv, check=True, capture_output=True)
    run("ip", "netns", "add", CONTAINER_NS)
    run("ip", "-n", network.NAS_NS, "link", "add", "docker0", "type", "bridge")
    run("ip", "-n", network.NAS_NS, "addr", "add", "172.17.0.1/16", "dev", "docker0")
    run(
        "ip",
        "-n",
        network.NAS_NS,
        "link",
        "add",
        "veth3f2a1b",
        "type",
        "veth",
        "peer",
        "name",
        "eth0",
        "netns",
        CONTAINER_NS,
    )
    run("ip", "-n", network.NAS_NS, "link", "set", "veth3f2a1b", "master", "docker0", "up")
    run("ip", "-n", network.NAS_NS, "link", "set", "docker0", "up")
    run("ip", "-n", CONTAINER_NS, "link", "set", "eth0", "up")
    run("ip", "-n", network.NAS_NS, "tuntap", "add", "dev", "tap0", "mode", "tap")


def nas_state(lab_dir: Path) -> dict[str, str]:
    """What optimize's plan changes on the lab's NAS, as it reads now."""
    inside = lambda *argv: (
        subprocess.run(["ip", "netns", "exec", network.NAS_NS, *argv], capture_output=True, text=True).stdout
    )
    digest = lambda name: hashlib.sha256((lab_dir / name).read_bytes()).hexdigest()
    mounts = [line for line in Path("/proc/self/mounts").read_text().splitlines() if str(lab_dir / "mnt") in line]
    return {
        "smb.conf": digest("smb.conf"),
        "ganesha.conf": digest("ganesha.conf"),
        "mtu": inside("cat", f"/sys/class/net/{network.LINK}/mtu"),
        "tcp_rmem": inside("cat", "/proc/sys/net/ipv4/tcp_rmem"),
        "gro": inside("ethtool", "-k", network.LINK),
        "mount": "\n".join(mounts),
    }


class Argv(threading.Thread):
    """Every process's command line, sampled every 50 ms while the page runs."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.seen: set[str] = set()
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.05):
            for pid in filter(str.isdigit, os.listdir("/proc")):
                try:
                    self.seen.add(
                        Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                    )
                except OSError:
                    continue


def operator_inventory(lab_dir: Path, venv: Path) -> str:
    """The lab's inventory as the page's reader would have it: nastune on the NAS where the page
    installs it (the lab's NAS also needs its lab directory named), the clients only measured from."""
    text = (lab_dir / "inventory.ini").read_text()
    command = shlex.join(
        ["env", f"NASTUNE_LAB_DIR={lab_dir}", f"NASTUNE_LAB_PREFIX={network.PREFIX}", f"{venv}/bin/nastune"]
    )
    found = re.findall(r" nastune_command='[^']*'", text)
    assert len(found) == 2, found  # as the lab writes it: one word, quoted whole, for the NAS and its client
    return text.replace(found[0], f" nastune_command={shlex.quote(command)}").replace(found[1], "")


def test_the_operator_s_page_on_a_lab_standing_in_for_a_nas(lab_dir, tmp_path):
    nastune(lab_dir, "lab", "up", "--scenario", "modern")  # one client, no aged data set: the page, not soho
    password = (lab_dir / "credentials" / "smb").read_text().split("password = ")[1].split()[0]
    work, venv = tmp_path / "operator", tmp_path / "opt-nastune"
    work.mkdir()
    (work / "hosts.ini").write_text(operator_inventory(lab_dir, venv))
    env = {**lab_env(lab_dir), "PATH": f"{REPO / '.venv' / 'bin'}:{os.environ['PATH']}"}
    env.pop("NASTUNE_LAB_DIR")  # the controller knows the NAS only from the inventory
    sampler = Argv()
    try:
        containers()
        sampler.start()
        outputs, took = {}, {}
        for line in commands():
            argv = shrunk(shlex.split(line.replace("/opt/nastune", str(venv))))
            before, started = nas_state(lab_dir), time.monotonic()
            done = subprocess.run(
                argv,
                cwd=REPO if argv[0].startswith("./") else work,
                env=env,
                capture_output=True,
                text=True,
                stdin=subprocess.DEVNULL,
                timeout=1200,
            )
            code, said = EXPECTED.get(line, (0, ""))
            assert done.returncode == code, (
                line,
                done.stdout[-3000:],
                done.stderr[-3000:],
            )
            assert said in done.stdout + done.stderr, (
                line,
                done.stdout[-3000:],
                done.stderr[-3000:],
            )
            outputs[line] = done.stdout + done.stderr
            took[line] = round(time.monotonic() - started)
            if line == "nastune optimize --inventory hosts.ini":
                assert nas_state(lab_dir) == before  # the plan was shown, nothing was changed
    finally:
        sampler.done.set()
        subprocess.run(["ip", "netns", "del", CONTAINER_NS], capture_output=True)
    print("seconds per command:", json.dumps(took, indent=1))
    assert sampler.seen
    assert not [cmd for cmd in sampler.seen if password in cmd]
    written = [p for p in [*work.rglob("*"), *(lab_dir / "journal").rglob("*")] if p.is_file()]
    assert written
    assert not [p for p in written if password.encode() in p.read_bytes()]
    roles = outputs["nastune inspect --inventory hosts.ini --area network"]
    assert "the NAS's link: it holds 10.77.0.1" in roles
    assert "docker0" in roles  # shown, and said why not judged
    findings = json.loads(nastune(lab_dir, "diagnose", "--lab", "--json").stdout)["findings"]
    assert not [f for f in findings if any(name in f["target"] for name in ("docker0", "veth", "tap0"))]
    assert (
        "Undo everything: nastune rollback --inventory hosts.ini"
        in outputs["nastune optimize --inventory hosts.ini --yes --allow xfs_fsr --action-time 30m"]
    )
