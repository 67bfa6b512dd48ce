"""The kernel lab (`nastune lab up --kernel`): the lab's NAS on a real Debian kernel in a QEMU
guest, with kernel nfsd, Samba and vsftpd, and a client in a network namespace of the same guest
that mounts the shares with the kernel's NFS and SMB clients from its own /etc/fstab. One guest,
not a guest per host: emulation costs a core per guest on a 2-core machine, and a namespace is
what the namespace lab's clients already are. nastune reaches the NAS and the client over SSH,
through the guest's management namespace, exactly as it reaches a real NAS and its clients."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import sysconfig
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import nastune
from nastune.lab import procs
from nastune.lab.guest import image, machine, seed
from nastune.lab.scenario import Scenario
from nastune.lab.sh import LabError, run
from nastune.lab.state import Link, Process, State
from nastune.packages import PACKAGES
from nastune.protocols import PROTOCOLS
from nastune.remote import inventory
from nastune.sites.lab import access, building, credentials, kernel_status
from nastune.ssh import Ssh
from nastune.units import size_bytes

DEFAULT_DIR = Path(os.environ.get("NASTUNE_KERNEL_LAB_DIR", "/var/lib/nastune/kernel-lab"))


def names(port: int) -> tuple[str, str]:
    """The NAS's and the client's names for SSH: a guest's own (its port), since SSH shares one
    connection per name and a connection to an earlier guest must never serve a later one."""
    return f"nastune-klab{port}-nas", f"nastune-klab{port}-c1"


CLIENT_UNIT, MOUNT_SECONDS = "nastune-lab-clients.service", 300  # the unit retries its mounts for 2 min
BOOT_SECONDS = 600  # the emulated guest's boot measured 25-40 s here; a busy machine is slower
# a boot silent this long is power-cycled too, whatever its console says: the busiest fresh-clone
# run booted in about 115 s, and a boot stuck waiting (not spinning) prints no soft lockup
ATTEMPT_SECONDS = 300
RESTARTS = 2  # power cycles of a boot that emulation hung (rare, and never twice in a row here)
BOOT_ID = "/proc/sys/kernel/random/boot_id"
PYCACHE = "/var/cache/nastune-lab/pycache"  # on the guest's own disk: the NAS and its client share it
# the client's namespaces, entered from the guest's own mount namespace (the management sshd's
# copy of the mount tree holds no reference to another mount namespace: the kernel drops them)
CLIENT_NAMESPACES = ("-t", "1", "-m", "--", "nsenter", "--mount=/run/nastune-lab/c1.mnt", "--net=/run/netns/c1")


def services() -> dict[str, str]:
    """The guest's file servers' systemd units: each protocol's own server from its Debian
    package, except NFS, whose server here is the kernel's (the point of this lab)."""
    kernel = {"nfs-server": "kernel nfsd"}  # nfs-kernel-server is in every guest image
    return {**kernel, **{p.server: p.title for p in PROTOCOLS.values() if p.name != "nfs"}}


def server_packages() -> tuple[str, ...]:
    return tuple(sorted(PACKAGES[p.server] for p in PROTOCOLS.values() if p.name != "nfs"))


def share(protocol: str) -> str:
    """What the inventory names of the guest's share: the SMB share, the NFS export's path, or
    for a protocol that serves the login's own tree (FTP: vsftpd's local_root), its root."""
    return {"smb": seed.SHARE, "nfs": seed.DATA}.get(protocol, "/")


class KernelLab:
    def __init__(self, directory: Path = DEFAULT_DIR, cache: Path = image.CACHE):
        self.dir = directory
        self.cache = cache
        self.state = State(directory)

    @property
    def inventory_path(self) -> Path:
        return self.dir / "inventory.ini"

    def up(self, scenario: Scenario, log: Callable[[str], None] = print) -> bool:
        """Build the guest lab; False when the same one is already up."""
        if building.kept(self, scenario, "kernel lab", log):
            return False
        machine.sweep(log)
        with building.building(self, scenario, log):
            self._build(scenario, log)
        return True

    def _build(self, scenario: Scenario, log: Callable[[str], None]) -> None:
        _packages()
        built = image.build(server_packages(), self.cache, log, zfs=scenario.storage.zfs is not None)
        access.keys(self.dir)
        password = credentials.create(self.dir, seed.NAS_IP).password.get_secret_value()
        authorized = (access.ssh_dir(self.dir) / "id_ed25519.pub").read_text()
        seed.write(self.dir, scenario, image.USER, password, authorized, _checkout(), _packages())
        taps = machine.network(self.state, self.dir)
        port = machine.free_port()
        written = scenario.limits.write_bps if scenario.limits else None  # the namespace lab's blkio limit, here QEMU's
        spec = machine.Spec(
            built,
            self.dir,
            _checkout(),
            data_size=scenario.storage.size,
            zfs=scenario.storage.zfs,
            write_bps=size_bytes(written) if written else None,
        )
        began = time.monotonic()
        machine.start(self.state, spec, taps, port, log)
        self.inventory_path.write_text(inventory_text(self.dir, port, built.host_key, scenario.network.rate))
        hosts = inventory.load(self.inventory_path)
        for host, role in ((hosts.nas, "NAS"), (hosts.clients[0], "client")):
            self._wait(partial(Ssh(host).check, 10, role=role), role, began, log)
        log(f"guest: the NAS and its client answer over SSH after {time.monotonic() - began:.0f} s")
        self._wait_mounts(Ssh(hosts.clients[0]))
        _settled(Ssh(hosts.nas))

    def _wait(self, answered: Callable[[], str | None], role: str, began: float, log: Callable[[str], None]) -> None:
        """Until `answered()` says None (else why not). A boot that emulation hung (a CPU stuck
        for minutes, or no answer in ATTEMPT_SECONDS) is power-cycled, at most RESTARTS times: it
        never comes back by itself."""
        since, restarts = machine.console_size(self.dir), 0
        while (why := answered()) is not None:
            if not procs.alive(self.state.of(Process)[-1]):
                raise LabError(f"the guest stopped while booting: {machine.console_tail(self.dir)}")
            waited = time.monotonic() - began
            stuck = machine.hung(self.dir, since) or (
                f"no answer in {waited:.0f} s" if waited > ATTEMPT_SECONDS else None
            )
            if stuck and restarts < RESTARTS:
                log(
                    f"guest: its emulated boot hung ({stuck}); power-cycling it; its console ended: "
                    f"{machine.console_tail(self.dir)[-200:]}"
                )
                machine.restart(self.state, self.dir)
                access.close(self.inventory_path)
                since, restarts, began = 0, restarts + 1, time.monotonic()
            elif stuck:
                raise LabError(
                    f"the guest's {role} did not answer over SSH after {restarts} power cycles ({stuck}): {why}; "
                    f"its console ends: {machine.console_tail(self.dir)}"
                )
            time.sleep(2)

    def _wait_mounts(self, client: Ssh) -> None:
        """The client's boot mounts its shares once the NAS serves them; wait for that unit."""
        deadline = time.monotonic() + MOUNT_SECONDS
        state = ""
        while state != "active":
            state = run(client.argv(["systemctl", "is-active", CLIENT_UNIT]), check=False).stdout.strip()
            if state == "failed" or time.monotonic() > deadline:
                raise LabError(f"the client did not mount its shares ({state}): {_journal(client)}")
            time.sleep(1)

    def reboot(self, log: Callable[[str], None] = print) -> None:
        """Reboot the guest as an operator reboots a NAS (`systemctl reboot` on it; QEMU restarts
        the machine, its disks as they are) and wait until its NAS and client answer again."""
        hosts = inventory.load(self.inventory_path)
        nas, client = Ssh(hosts.nas), Ssh(hosts.clients[0])
        booted = run(nas.argv(["cat", BOOT_ID])).stdout.strip()
        run(nas.argv(["systemctl", "reboot"]), check=False)
        access.close(self.inventory_path)  # the shared connections died with the guest
        began = time.monotonic()

        def rebooted() -> str | None:
            if (why := nas.check(10, role="NAS")) is not None:
                return why
            if run(nas.argv(["cat", BOOT_ID]), check=False).stdout.strip() not in ("", booted):
                return None
            access.close(self.inventory_path)  # a connection from before the reboot
            return "the NAS still runs the boot from before the reboot"

        self._wait(rebooted, "NAS", began, log)
        self._wait(partial(client.check, 10, role="client"), "client", began, log)
        self._wait_mounts(client)
        _settled(nas)
        log(f"guest: rebooted; the NAS and its client answer after {time.monotonic() - began:.0f} s")

    def down(self, log: Callable[[str], None] = print) -> None:
        """Stop the guest and remove the taps, the bridge, the overlay and the lab's files;
        the cached image stays for the next `lab up --kernel`. The record is read again first:
        another process (optimize --lab --kernel) may have brought the guest up anew since."""
        self.state = State(self.dir)
        if not self.state.exists and not self.dir.exists():
            return
        access.close(self.inventory_path)
        procs.kill([r.pid for r in self.state.of(Process) if r.pid and procs.alive(r)])
        for link in self.state.of(Link):
            access.remove_link(link.name)
        machine.remove_network(self.dir)
        shutil.rmtree(self.dir, ignore_errors=True)
        self.state.clear()
        log("kernel lab removed")

    def status(self) -> list[dict]:
        return kernel_status.parts(self.state, self.inventory_path, services())


def _settled(nas: Ssh) -> None:
    """Wait until the guest's boot has run every unit (a unit nastune persisted among them)."""
    done = run(nas.argv(["systemctl", "is-system-running", "--wait"]), check=False, timeout=BOOT_SECONDS)
    if done.stdout.strip() not in ("running", "degraded"):
        jobs = run(nas.argv(["systemctl", "list-jobs", "--no-pager", "--no-legend"]), check=False).stdout.strip()
        raise LabError(
            f"the guest's boot did not finish: systemctl is-system-running says {done.stdout.strip()!r}; "
            f"its jobs: {jobs[-400:] or '(none)'}"
        )


def _checkout() -> Path:
    """The checkout (or install) nastune runs from: the guest mounts it at the same path, so the
    NAS and the client run this very nastune with this very Python's packages."""
    return Path(nastune.__file__).resolve().parents[2]


def _packages() -> Path:
    """This nastune's installed dependencies, which the guest's Python 3.11 imports from the
    checkout it mounts (the same minor version: compiled modules keep their ABI within it)."""
    found = Path(sysconfig.get_paths()["purelib"])
    if sys.version_info[:2] != (3, 11) or not found.is_relative_to(_checkout()):
        raise LabError(
            f"the kernel lab's guest runs nastune with Debian 12's Python 3.11 and the packages of {_checkout()}: "
            f"this nastune runs on Python {sys.version_info[0]}.{sys.version_info[1]} with its packages in {found} "
            "(run it from the checkout's .venv that scripts/setup makes)"
        )
    return found


def _journal(ssh: Ssh) -> str:
    out = run(ssh.argv(["journalctl", "-b", "-u", CLIENT_UNIT, "-n", "5", "--no-pager"]), check=False)
    return out.stdout.strip()[-400:] or "(no journal)"


def inventory_text(directory: Path, port: int, host_key: Path, rate: str) -> str:
    """The guest's NAS and client as an Ansible INI inventory: each reached by SSH through the
    guest's management namespace, where sshd runs per connection in the host's namespaces."""
    keydir = access.ssh_dir(directory)
    key = host_key.read_text().split()
    nas_name, client_name = names(port)
    (keydir / "known_hosts").write_text(
        "".join(f"{name} {key[0]} {key[1]}\n" for name in (f"[127.0.0.1]:{port}", nas_name, client_name))
    )
    base = ["-o", f"UserKnownHostsFile={keydir}/known_hosts", "-o", "StrictHostKeyChecking=yes"]
    mgmt = ["ssh", *base, "-i", str(keydir / "id_ed25519"), "-p", str(port), "-o", "BatchMode=yes", "root@127.0.0.1"]

    def through(*enter: str) -> str:
        proxy = shlex.join([*mgmt, shlex.join(["nsenter", *enter, "--", "/usr/sbin/sshd", "-i"])])
        return shlex.quote(shlex.join([*base, "-o", f"ProxyCommand={proxy}"]))

    # the checkout is mounted read-only: without a cache of its own, each command compiled every
    # module it imports again, which under emulation costs seconds a command
    python = ["python3", "-m", "nastune"]
    cached = f"PYTHONPYCACHEPREFIX={PYCACHE}"
    nas_cmd = shlex.join(["env", cached, *python])
    client_cmd = shlex.join(["env", cached, "NASTUNE_STATE_DIR=/var/lib/nastune-c1", *python])
    shares = " ".join(f"{p.share_var}={share(name)}" for name, p in PROTOCOLS.items())
    logins = " ".join(
        f"{p.login_file_var}={directory / 'credentials' / n}" for n, p in PROTOCOLS.items() if p.login_var
    )
    return "\n".join(
        [
            "# The kernel lab's hosts as an Ansible INI inventory: nastune diagnose --inventory THIS_FILE",
            "[nas]",
            f"nas ansible_host={nas_name} nastune_address={seed.NAS_IP} {shares} {logins} nastune_link_rate={rate} "
            f"nastune_command={shlex.quote(nas_cmd)} ansible_ssh_common_args={through('-t', '1', '-m', '-n')}",
            "",
            "[clients]",
            f"c1 ansible_host={client_name} nastune_mount={seed.NFS_MOUNT} nastune_command={shlex.quote(client_cmd)} "
            f"ansible_ssh_common_args={through(*CLIENT_NAMESPACES)}",
            "",
            "[all:vars]",
            "ansible_user=root",
            f"ansible_ssh_private_key_file={keydir}/id_ed25519",
            "",
        ]
    )
