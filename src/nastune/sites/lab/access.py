"""How nastune reaches the lab's hosts: exactly as it reaches real ones, with OpenSSH. A
management link from this host into each client namespace (out of band: its traffic never
shares the shaped data link), an OpenSSH server there with the lab's own host key and an
authorized key under the lab directory, listening only on the management address, and a fio
server for fio's client/server mode. The NAS gets no extra interface (that would change what
is diagnosed and tuned there): its sshd runs per connection in the nas network namespace as the SSH
client's ProxyCommand (`sshd -i`, as inetd runs it), so it listens nowhere at all.
`inventory_text` is the Ansible INI inventory that `--inventory` reads, for the lab as for a
real NAS."""

from __future__ import annotations

import os
import shlex
import sys
import zlib
from functools import partial
from pathlib import Path

from nastune.lab import network
from nastune.lab.procs import spawn, wait_for
from nastune.lab.sh import LabError, in_ns, run
from nastune.lab.state import Link, State
from nastune.protocols import PROTOCOLS
from nastune.remote import inventory
from nastune.remote.inventory import SHARE_VARS
from nastune.sites.lab import credentials
from nastune.sites.lab.servers import smbfs_path
from nastune.ssh import Ssh

FIO_PORT = 8765
SSHD_CONFIG = """# the lab's sshd for {ns}: keys only, root, this address only (none: run per connection)
{ip}
HostKey {dir}/host_ed25519
AuthorizedKeysFile {dir}/authorized_keys
PidFile none
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowUsers root
UsePAM no
# the key files live in the lab directory (a test's temporary one too), not under ~/.ssh
StrictModes no
PrintMotd no
# bash started by sshd at shell level 1 reads ~/.bashrc first (Debian builds it so): this host's
# root's, whatever it runs, before each of the lab's commands; at level 2 it does not
SetEnv SHLVL=1
MaxSessions 64
MaxStartups 64
"""


NAS_HOST = f"nastune-{network.NAS_NS}"  # the NAS's name for ssh: in known_hosts, reached by ProxyCommand
# the management links' /16: each lab prefix its own, so that two labs' links never share a route
MGMT_NET = f"10.{100 + zlib.crc32(network.PREFIX.encode()) % 150}"


def mgmt_ip(i: int) -> str:
    """Client i's management address (this host's end is .1 of the same /24)."""
    return f"{MGMT_NET}.{i}.2"


def ssh_dir(directory: Path) -> Path:
    return directory / "ssh"


def links(state: State, clients: int) -> None:
    """One veth per client: `PREFIXmI` here, `mgmt0` in the client's namespace."""
    for i in range(1, clients + 1):
        here, ns = f"{network.PREFIX}m{i}", network.client_ns(i)
        state.add(Link(name=here))
        run(["ip", "link", "add", here, "type", "veth", "peer", "name", f"{here}p"])
        run(["ip", "link", "set", f"{here}p", "netns", ns])
        run(["ip", "-n", ns, "link", "set", f"{here}p", "name", "mgmt0"])
        run(["ip", "addr", "add", f"{MGMT_NET}.{i}.1/24", "dev", here])
        run(["ip", "-n", ns, "addr", "add", f"{mgmt_ip(i)}/24", "dev", "mgmt0"])
        run(["ip", "link", "set", here, "up"])
        run(["ip", "-n", ns, "link", "set", "mgmt0", "up"])


def remove_link(name: str) -> None:
    """A management link left behind (removing the client namespace removes both ends)."""
    if run(["ip", "link", "show", name], check=False).returncode == 0:
        run(["ip", "link", "del", name], check=False)


def close(path: Path) -> None:
    """End the shared SSH connections to the lab's hosts (they outlive a command by design)."""
    if path.exists():
        try:
            found = inventory.load(path)
        except inventory.InventoryError:
            return  # a damaged inventory: its connections expire by themselves (ControlPersist)
        for host in [found.nas, *found.clients]:
            Ssh(host).close()


def keys(directory: Path) -> None:
    """The lab's host key and its client key; the client key is the only authorized one."""
    keydir = ssh_dir(directory)
    keydir.mkdir(mode=0o700, parents=True, exist_ok=True)
    for name, comment in (("host_ed25519", "nastune-lab-host"), ("id_ed25519", "nastune-lab-client")):
        if not (keydir / name).exists():
            run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(keydir / name)])
    (keydir / "authorized_keys").write_text((keydir / "id_ed25519.pub").read_text())


# a client's /var/tmp of its own, in the lab's directory, as a separate machine has: what it
# leaves there (a transfer's source file, when it died mid-run) goes with the lab. Bound inside the
# mount namespace `ip netns exec` made for its sshd, before sshd runs (its sessions inherit it),
# and never in the host's own namespace, whose /var/tmp it would hide
OWN_VAR_TMP = (
    "import os, subprocess, sys\n"
    "if os.readlink('/proc/self/ns/mnt') == sys.argv[1]:\n"
    "    sys.exit('not in a mount namespace of its own: /var/tmp left as it is')\n"
    "subprocess.run(['mount', '--bind', sys.argv[2], '/var/tmp'], check=True)\n"
    "os.execv(sys.argv[3], sys.argv[3:])\n"
)


def start(
    state: State, directory: Path, clients: int, rate: str, read_set: list[tuple[str, int]], protection: str | None
) -> None:
    """sshd and a fio server in every client namespace, each ready before this returns, the
    NAS's sshd configuration, and the lab's inventory written to `inventory.ini` (with the
    aged data set as the NAS's read set)."""

    keys(directory)
    keydir = ssh_dir(directory)
    host_key = (keydir / "host_ed25519.pub").read_text().split()
    (keydir / "known_hosts").write_text(
        "".join(f"{name} {host_key[0]} {host_key[1]}\n" for name in [NAS_HOST, *map(mgmt_ip, range(1, clients + 1))])
    )
    Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege separation directory
    (keydir / f"sshd-{network.NAS_NS}.conf").write_text(SSHD_CONFIG.format(ns=network.NAS_NS, ip="", dir=keydir))
    path = directory / "inventory.ini"
    path.write_text(inventory_text(directory, clients, rate, read_set, protection))
    hosts = inventory.load(path)
    why = Ssh(hosts.nas).check(30, role="NAS")
    if why:
        raise LabError(f"the lab's NAS does not answer over SSH: {why}")
    for i in range(1, clients + 1):
        ns = network.client_ns(i)
        conf = keydir / f"sshd-{ns}.conf"
        conf.write_text(SSHD_CONFIG.format(ns=ns, ip=f"ListenAddress {mgmt_ip(i)}:22", dir=keydir))
        argv = in_ns(
            ns, _own_var_tmp(directory / "hosts" / f"c{i}" / "var-tmp", ["/usr/sbin/sshd", "-D", "-e", "-f", str(conf)])
        )
        sshd = spawn(state, f"sshd-{ns}", argv, directory / "logs" / f"sshd-{ns}.out")
        wait_for(f"sshd-{ns}", sshd, partial(_answers, Ssh(hosts.clients[i - 1])), 30)
        fio = spawn(
            state,
            f"fio-{ns}",
            in_ns(ns, ["fio", f"--server=ip:{mgmt_ip(i)},{FIO_PORT}"]),
            directory / "logs" / f"fio-{ns}.out",
        )
        wait_for(f"fio-{ns}", fio, partial(_listening, ns, FIO_PORT))


def _own_var_tmp(where: Path, argv: list[str]) -> list[str]:
    """`argv` run with /var/tmp bound to `where` (OWN_VAR_TMP), never in this mount namespace."""
    where.mkdir(parents=True, exist_ok=True)
    return [sys.executable, "-c", OWN_VAR_TMP, os.readlink("/proc/self/ns/mnt"), str(where), *argv]


def _answers(ssh: Ssh) -> bool:
    return ssh.check(10) is None


def _listening(ns: str, port: int) -> bool:
    return bool(run(in_ns(ns, ["ss", "-Hltn", f"sport = :{port}"]), check=False).stdout.strip())


def _on_client(directory: Path, i: int) -> str:
    """nastune on a lab client: this very nastune, in the client's namespace (its TCP stack is the
    client's own), its journals kept in the lab (gone with it), never in this host's."""
    return shlex.join(["env", f"NASTUNE_STATE_DIR={directory}/hosts/c{i}", sys.executable, "-m", "nastune"])


def inventory_text(
    directory: Path, clients: int, rate: str, read_set: list[tuple[str, int]], protection: str | None = None
) -> str:
    keydir = ssh_dir(directory)
    shares = " ".join(f"{var}={PROTOCOLS[p].lab_share}" for p, var in SHARE_VARS.items())
    ssh_args = f"-o UserKnownHostsFile={keydir}/known_hosts -o StrictHostKeyChecking=yes"
    lab = [f"NASTUNE_LAB_DIR={directory}", f"NASTUNE_LAB_PREFIX={network.PREFIX}"]  # sshd passes no environment
    nastune = shlex.join(["env", *lab, sys.executable, "-m", "nastune"])
    # only the network namespace: the lab's NAS shares this host's mounts (its cgroups among
    # them), as its tuning on this host does; `inspect --lab` enters the rest itself
    sshd = ["nsenter", f"--net=/run/netns/{network.NAS_NS}", "/usr/sbin/sshd", "-i", "-f"]
    sshd.append(str(keydir / f"sshd-{network.NAS_NS}.conf"))
    nas_args = f"{ssh_args} -o {shlex.quote('ProxyCommand=' + shlex.join(sshd))}"
    read = ",".join(f"{path}:{size}" for path, size in read_set)
    logins = " ".join(f"{var}={shlex.quote(path)}" for var, path in credentials.inventory_vars(directory).items())
    nas = [
        f"nas ansible_host={NAS_HOST} nastune_address={network.NAS_IP} {shares}",
        logins,  # the shares need a login, as a real NAS's do: kept in files only root reads
        f"nastune_link_rate={rate}",  # shaped as real Ethernet: the default framing
        # the lab's NAS is a namespace sharing this kernel: its tuning commands take --lab
        f"nastune_lab=true nastune_command={shlex.quote(nastune)}",
        *([f"nastune_read_set={shlex.quote(read)}"] if read_set else []),
        f"ansible_ssh_common_args={shlex.quote(nas_args)}",
    ]
    lines = [
        "# The lab's hosts as an Ansible INI inventory: nastune bench --inventory THIS_FILE",
        "[nas]",
        " ".join(nas),
        "",
        "[clients]",
        *(
            f"c{i} ansible_host={mgmt_ip(i)} nastune_mount={smbfs_path(directory, i)} "
            f"nastune_fio_server={mgmt_ip(i)},{FIO_PORT} nastune_command={shlex.quote(_on_client(directory, i))}"
            + (f" nastune_smb_protection={protection}" if protection else "")  # as the scenario's clients require
            for i in range(1, clients + 1)
        ),
        "",
        "[all:vars]",
        "ansible_user=root",
        f"ansible_ssh_private_key_file={keydir}/id_ed25519",
        f"ansible_ssh_common_args={shlex.quote(ssh_args)}",
        "",
    ]
    return "\n".join(lines)
