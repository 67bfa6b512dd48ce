"""The guest machine: QEMU with two NUMA nodes, the cached image under an overlay of its own, an
XFS data disk, the NAS's and the client's multi-queue virtio NICs on this host's taps joined by
a bridge that has no address (their traffic goes from the guest to the guest, nowhere else),
and a management NIC on QEMU's user network, restricted to a forwarded SSH port on 127.0.0.1.
KVM is tried first where it can run Debian's kernel; when the guest does not come up under it, the
machine restarts under software emulation and says so."""

from __future__ import annotations

import hashlib
import os
import re
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psutil

from nastune.lab import procs
from nastune.lab.guest.image import Image
from nastune.lab.scenario import Zfs
from nastune.lab.sh import LabError, need, run
from nastune.lab.state import Link, Process, State
from nastune.units import size_bytes

MACS = {"nas": "52:54:00:4e:54:01", "c1": "52:54:00:4e:54:02", "mgmt": "52:54:00:4e:54:ff"}
KVM_SECONDS = 10  # a kernel that runs prints its banner within a second or two under KVM
QUEUES = 2


@dataclass(frozen=True)
class Spec:
    """What the machine is given: the image, the lab's files, its size, the NUMA layout."""

    image: Image
    dir: Path  # the lab's directory: overlay, data disk, seed, console log
    source: Path  # the checkout nastune runs from, shared read-only at the same path
    cpus: int = 2
    memory_mib: int = 2048
    data_size: str = "3G"
    zfs: Zfs | None = None  # the pool's disks instead of one XFS data disk
    write_bps: int | None = None  # QEMU's limit of the data disks' writes (bytes a second): a slow array

    @property
    def console(self) -> Path:
        return _console(self.dir)


def names(directory: Path) -> dict[str, str]:
    """This lab's bridge and taps: named from its directory, so two labs never share one."""
    tag = hashlib.sha256(str(directory).encode()).hexdigest()[:5]
    return {"bridge": f"nk{tag}br", "nas": f"nk{tag}nas", "c1": f"nk{tag}c1"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass(frozen=True)
class Disk:
    """A disk the guest sees beside its root: a raw image, named by its serial in the guest's
    /dev/disk/by-id (virtio-SERIAL), and QEMU's limit of its I/O operations a second (None: none)."""

    path: Path
    serial: str
    iops: int | None = None
    write_bps: int | None = None

    def drive(self, name: str) -> list[str]:
        limit = f",throttling.iops-total={self.iops}" if self.iops else ""
        limit += f",throttling.bps-write={self.write_bps}" if self.write_bps else ""
        return [
            *("-drive", f"file={self.path},if=none,id={name},format=raw,cache=none{limit}"),
            *("-device", f"virtio-blk-pci,drive={name},serial={self.serial},bus=pci.0"),
        ]


LOG_SERIAL = "nastune-log"


def data_serial(n: int) -> str:
    return f"nastune-d{n}"


def disks(spec: Spec) -> tuple[Path, list[Disk]]:
    """The lab's overlay of the cached root disk, and its data disks: one made XFS here, or the
    raw disks of a ZFS pool and its log device (the guest makes the pool at its first boot)."""
    need("qemu-img", "mkfs.xfs")
    overlay = spec.dir / "root.qcow2"
    run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "raw", "-b", str(spec.image.disk), str(overlay)])
    if spec.zfs is None:
        data = Disk(spec.dir / "data.img", "nastune-data", write_bps=spec.write_bps)
        run(["truncate", "-s", spec.data_size, str(data.path)])
        run(["mkfs.xfs", "-q", "-f", "-L", "nastune-data", str(data.path)])
        return overlay, [data]
    pool = spec.zfs
    made = [Disk(spec.dir / f"disk{n}.img", data_serial(n), pool.iops, spec.write_bps) for n in range(pool.disks)]
    made.append(Disk(spec.dir / "log.img", LOG_SERIAL))
    for disk in made:
        size = pool.log_size if disk.serial == LOG_SERIAL else pool.disk_size
        run(["truncate", "-s", str(size_bytes(size)), str(disk.path)])
    return overlay, made


OWNERS = Path("/run/nastune/kernel-labs")  # each bridge's lab directory, for a later sweep


def network(state: State, directory: Path) -> dict[str, str]:
    """The bridge and the two multi-queue taps, recorded before each is made, and marked with
    the lab's directory: a lab killed with its directory gone (a test's) is swept later."""
    found = names(directory)
    OWNERS.mkdir(parents=True, exist_ok=True)
    (OWNERS / found["bridge"]).write_text(str(directory))
    state.add(Link(name=found["bridge"]))
    run(["ip", "link", "add", found["bridge"], "type", "bridge"])
    run(["sysctl", "-q", "-w", f"net.ipv6.conf.{found['bridge']}.disable_ipv6=1"])
    for role in ("nas", "c1"):
        state.add(Link(name=found[role]))
        run(["ip", "tuntap", "add", "dev", found[role], "mode", "tap", "multi_queue"])
        run(["sysctl", "-q", "-w", f"net.ipv6.conf.{found[role]}.disable_ipv6=1"])
        run(["ip", "link", "set", found[role], "master", found["bridge"], "up"])
    run(["ip", "link", "set", found["bridge"], "up"])
    return found


def argv(spec: Spec, overlay: Path, data: list[Disk], taps: dict[str, str], port: int, kvm: bool) -> list[str]:
    half = spec.memory_mib // 2
    accel = ["-enable-kvm", "-cpu", "host,-arch-capabilities"] if kvm else ["-accel", "tcg", "-cpu", "max"]
    numa = [
        *("-object", f"memory-backend-ram,size={half}M,id=m0", "-object", f"memory-backend-ram,size={half}M,id=m1"),
        *("-numa", "node,nodeid=0,cpus=0,memdev=m0", "-numa", "node,nodeid=1,cpus=1,memdev=m1"),
    ]
    # the data NICs on an expander bridge of node 0, so that their PCI functions have a NUMA
    # node; last, because QEMU puts a device that names no bus on the newest one
    nics = ["-device", "pxb,id=pxb0,bus_nr=16,numa_node=0,bus=pci.0"]
    for slot, role in enumerate(("nas", "c1")):
        nics += ["-netdev", f"tap,id={role},ifname={taps[role]},script=no,downscript=no,queues={QUEUES}"]
        nics += [
            "-device",
            f"virtio-net-pci,netdev={role},mac={MACS[role]},mq=on,vectors={2 * QUEUES + 2},bus=pxb0,addr={slot}",
        ]
    shares = [
        *("-netdev", f"user,id=mgmt,restrict=on,hostfwd=tcp:127.0.0.1:{port}-10.0.2.15:22"),
        *("-device", f"virtio-net-pci,netdev=mgmt,mac={MACS['mgmt']},bus=pci.0"),
    ]
    for tag, path in (("seed", spec.dir / "seed"), ("src", spec.source)):
        shares += ["-fsdev", f"local,id={tag},path={path},security_model=passthrough,readonly=on"]
        shares += ["-device", f"virtio-9p-pci,fsdev={tag},mount_tag={tag},bus=pci.0"]
    shares += [
        "-drive",
        f"file={overlay},if=none,id=root,format=qcow2",
        "-device",
        "virtio-blk-pci,drive=root,bus=pci.0",
    ]
    for n, disk in enumerate(data):
        shares += disk.drive(f"data{n}")
    return [
        *("qemu-system-x86_64", "-name", "nastune-lab", *accel, "-smp", str(spec.cpus), "-m", str(spec.memory_mib)),
        *numa,
        *("-display", "none", "-monitor", "none", "-serial", f"file:{spec.console}"),
        *("-kernel", str(spec.image.kernel), "-initrd", str(spec.image.initrd)),
        *("-append", "console=ttyS0 root=LABEL=nastune-root rw net.ifnames=0 modprobe.blacklist=floppy"),
        *shares,
        *nics,
    ]


def start(state: State, spec: Spec, taps: dict[str, str], port: int, log: Callable[[str], None]) -> Process:
    """QEMU started under KVM, or under emulation when the guest's kernel does not get going
    (and at once where it did not before with this QEMU and this host's kernel)."""
    need("qemu-system-x86_64")
    overlay, data = disks(spec)
    spec.console.parent.mkdir(parents=True, exist_ok=True)
    stalled = spec.image.dir / STALLED
    skip = why_not_kvm(stalled)
    if skip:
        log(f"guest: {skip}; using software emulation (TCG)")
    else:
        machine = _spawn(state, spec, argv(spec, overlay, data, taps, port, kvm=True))
        runs = _kernel_runs(machine, spec.console, KVM_SECONDS)
        remember(stalled, not runs)
        if runs:
            log("guest: running under KVM")
            return machine
        procs.kill([machine.pid] if machine.pid else [])
        state.remove(machine)
        log(f"guest: its kernel did not start under KVM within {KVM_SECONDS} s; using software emulation (TCG)")
    return _spawn(state, spec, argv(spec, overlay, data, taps, port, kvm=False))


STALLED = "kvm-stalled"  # beside the image: the QEMU and host kernel under which KVM stalled its guest


def why_not_kvm(stalled: Path, dev: Path = Path("/dev/kvm"), modules: Path = Path("/sys/module")) -> str | None:
    """Why this guest goes straight to emulation, or None to try KVM. A /dev/kvm served by PVM
    (kvm_pvm: KVM without VMX or SVM, for hosts that are themselves VMs) runs natively only a
    kernel built as a PVM guest; Debian's kernel is not one, and PVM emulates it instruction by
    instruction, slower than QEMU does."""
    if not dev.exists():
        return "no /dev/kvm here"
    if (modules / "kvm_pvm").is_dir():
        return "this host's KVM is PVM (kvm_pvm), which runs only kernels built as PVM guests, and Debian's is not"
    if stalled_before(stalled):
        return f"KVM stalled this guest here before ({stalled}: delete it to try again)"
    return None


def _host() -> str:
    """What decides whether KVM runs this image here: QEMU's version and this host's kernel."""
    qemu = run(["qemu-system-x86_64", "--version"], check=False).stdout.splitlines()[:1]
    return f"{' '.join(qemu)}; host kernel {os.uname().release}\n"


def stalled_before(mark: Path) -> bool:
    """Whether KVM stalled this image's guest before under the same QEMU and host kernel (an
    upgrade of either tries KVM again)."""
    return mark.exists() and mark.read_text() == _host()


def remember(mark: Path, stalled: bool) -> None:
    if stalled:
        mark.write_text(_host())
    else:
        mark.unlink(missing_ok=True)


def _spawn(state: State, spec: Spec, command: list[str]) -> Process:
    spec.console.write_bytes(b"")
    return procs.spawn(state, "qemu", command, spec.dir / "logs" / "qemu.out")


def _kernel_runs(machine: Process, console: Path, seconds: float) -> bool:
    """The guest kernel has printed past decompression (its first message about a device)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not procs.alive(machine):
            raise LabError(f"qemu exited at start: {_tail(console.parent / 'qemu.out')}")
        text = console.read_bytes() if console.exists() else b""
        if b"Run /init" in text or b"systemd" in text:
            return True
        time.sleep(0.5)
    return False


def _tail(path: Path) -> str:
    return path.read_text(errors="replace")[-400:].strip() if path.exists() else "(no output)"


def _console(directory: Path) -> Path:
    return directory / "logs" / "console.log"


def console_tail(directory: Path) -> str:
    """The end of the guest's console log in the lab `directory`."""
    return _tail(_console(directory))


def console_size(directory: Path) -> int:
    path = _console(directory)
    return path.stat().st_size if path.exists() else 0


# a kernel's word that a CPU ran one task without a break; under emulation a boot hangs so now
# and then, in systemd, and never recovers, while a vCPU starved by a busy host is back within
# about 30 s
STUCK = re.compile(rb"soft lockup - CPU#\d+ stuck for (\d+)s")
HUNG_SECONDS = 100
# the lab's own boot unit failed (a device not ready in time, as its 9p share once was): the guest
# never answers, so it is power-cycled at once rather than after ATTEMPT_SECONDS of waiting
FAILED = re.compile(rb"Failed to start \S*nastune-lab?\S*")


def hung(directory: Path, since: int) -> str | None:
    """The guest console's line, from byte `since` on, that says a CPU was stuck for
    HUNG_SECONDS or more, or that the lab's boot unit failed (None: no such line)."""
    try:
        with _console(directory).open("rb") as console:  # only what came since: it is read every 2 s
            console.seek(since)
            text = console.read()
    except FileNotFoundError:
        return None
    found = [m for m in STUCK.finditer(text) if int(m.group(1)) >= HUNG_SECONDS] or list(FAILED.finditer(text))
    return found[-1].group(0).decode(errors="replace") if found else None


def restart(state: State, directory: Path) -> Process:
    """Power-cycle the guest: QEMU stopped and started again with the same machine and disks;
    the hung boot's console is kept beside the new one (console.log.hung)."""
    old = state.of(Process)[-1]
    procs.kill([old.pid] if old.pid else [])
    state.remove(old)
    console = _console(directory)
    if console.exists():
        console.replace(console.with_name("console.log.hung"))
    return procs.spawn(state, "qemu", old.argv, directory / "logs" / "qemu.out")


def remove_network(directory: Path) -> None:
    """The bridge and taps of the lab in `directory`, if any are left, and its mark."""
    found = names(directory)
    for name in found.values():
        if run(["ip", "link", "show", name], check=False).returncode == 0:
            run(["ip", "link", "del", name], check=False)
    (OWNERS / found["bridge"]).unlink(missing_ok=True)


def orphans() -> list[int]:
    """The guests whose lab directory no longer records a lab: QEMU processes of a kernel lab
    (named by `-name`, found by their console log) that no `lab down` will ever stop."""
    found = []
    for process in psutil.process_iter(["pid", "cmdline"]):
        argv = process.info["cmdline"] or []
        if not argv or not argv[0].endswith("qemu-system-x86_64") or "nastune-lab" not in argv:
            continue
        logs = [a.removeprefix("file:") for a in argv if a.startswith("file:") and a.endswith("/logs/console.log")]
        if logs and not (Path(logs[0]).parents[1] / "state.json").exists():
            found.append(process.info["pid"])
    return found


def sweep(log: Callable[[str], None]) -> None:
    """Stop every guest and remove the network of every kernel lab whose directory no longer
    records it (killed, and its directory removed since): what no lab will ever take down."""
    if left := orphans():
        procs.kill(left)
        log(f"stopped {len(left)} guest(s) of kernel labs that are gone (pid {', '.join(map(str, left))})")
    for mark in sorted(OWNERS.glob("*")) if OWNERS.is_dir() else []:
        directory = Path(mark.read_text().strip())
        if not (directory / "state.json").exists():
            remove_network(directory)
            log(f"removed the bridge and taps of a kernel lab that is gone ({directory})")
