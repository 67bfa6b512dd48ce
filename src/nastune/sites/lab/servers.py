"""The lab's servers, each configured from the scenario with all its state under the lab's
directory: one per protocol (sites/lab/serving: Samba, NFS-Ganesha, vsftpd), and the SMB share
mounted on the client through smbnetfs. (The network workload starts a one-off iperf3 server for
each test, as on a real NAS: nothing listens for it in between.) Each is checked by a real client
before `up` returns."""

from __future__ import annotations

from pathlib import Path

from nastune.faults import checkpoint
from nastune.lab import network
from nastune.lab.procs import spawn, wait_for
from nastune.lab.scenario import Scenario
from nastune.lab.state import Mounted, Process, State
from nastune.login import Login
from nastune.protocols import PROTOCOLS
from nastune.protocols.client import Call
from nastune.sites.lab.serving import SERVING


def targets() -> dict[str, str]:
    urls = {name: p.url(network.NAS_IP, p.lab_share) for name, p in PROTOCOLS.items()}
    return {**urls, "iperf3": network.NAS_IP}


def checks(login: Login) -> dict[str, Call]:
    """Each protocol's server and the client command that proves it serves its share to `login`."""
    return {p.server: p.check(network.NAS_IP, p.lab_share, login) for p in PROTOCOLS.values()}


def wait_ready(name: str, entry: Process, login: Login) -> None:
    """Wait for a (re)started server (by its process's name) to answer its client check."""
    for serving in SERVING.values():
        if serving.protocol.server == name:
            serving.ready(entry, login, 60)


def start(state: State, directory: Path, share: str, scenario: Scenario, cgroups: list[str], login: Login) -> None:
    (directory / "logs").mkdir(exist_ok=True)
    for name, protocol in PROTOCOLS.items():
        SERVING[name].start(state, directory, share, scenario, cgroups, login)
        checkpoint(f"lab:{protocol.server}")
    for client in range(1, scenario.clients + 1):
        mount_smbnetfs(state, directory, client, login)


SMBNETFS_CONF = """show_$_shares "false"
smb_query_browsers "false"
auth "{ip}" "{user}" "{password}"
host {ip} visible=true
"""


def smbfs_path(directory: Path, client: int = 1) -> Path:
    """Where client `client` sees the share through smbnetfs (a path for fio)."""
    return _smbfs_mount(directory, client) / network.NAS_IP / PROTOCOLS["smb"].lab_share


def _smbfs_mount(directory: Path, client: int) -> Path:
    return directory / ("smb-client" if client == 1 else f"smb-client{client}")


def mount_smbnetfs(state: State, directory: Path, client: int, login: Login) -> None:
    """The SMB share mounted with the FUSE client smbnetfs, in the host's mount namespace but
    client `client`'s network namespace (so its traffic is that client's), with large FUSE
    requests (big_writes, 1 MiB reads/writes)."""
    home = directory / "smbnetfs-home"
    (home / ".smb").mkdir(parents=True, exist_ok=True)
    conf = home / ".smb" / "smbnetfs.conf"
    conf.touch(mode=0o600)  # smbnetfs ignores auth lines in a config others can read
    conf.write_text(
        SMBNETFS_CONF.format(ip=network.NAS_IP, user=login.user, password=login.password.get_secret_value())
    )
    (home / ".smb" / "smb.conf").touch()
    mnt = _smbfs_mount(directory, client)
    mnt.mkdir(exist_ok=True)
    state.add(Mounted(path=str(mnt)))
    options = f"config={conf},big_writes,max_read=1048576,max_write=1048576,max_rw_block_size=1048576"
    name = "smbnetfs" if client == 1 else f"smbnetfs-c{client}"
    entry = spawn(
        state,
        name,
        ["nsenter", f"--net=/run/netns/{network.client_ns(client)}", "smbnetfs", str(mnt), "-f", "-o", options],
        directory / "logs" / f"{name}.out",
        env={"HOME": str(home)},
    )
    wait_for(name, entry, lambda: (smbfs_path(directory, client) / "pub").is_dir())
