"""The lab's settings for its guest, as files the guest copies into place at its first boot (the
NAS's /etc as an operator's Debian NAS has it, the client's /etc/fstab, the lab's login) and
the few facts its start script reads at every boot (addresses, MAC addresses, the IRQs' node)."""

from __future__ import annotations

from pathlib import Path

from nastune.conf import nfs_conf, samba
from nastune.lab.guest.image import UID
from nastune.lab.guest.machine import LOG_SERIAL, MACS, data_serial
from nastune.lab.scenario import Scenario, TunedProfile, Zfs

NAS_IP, CLIENT_IP, PREFIX = "10.79.0.10", "10.79.0.11", 24
NFS_MOUNT, SMB_MOUNT = "/mnt/nfs", "/mnt/smb"
SHARE, DATA = "data", "/srv/data"  # the SMB share and the NFS export of the data file system
CREDENTIALS = "/etc/nastune-lab-smb.cred"  # in the client's own /etc, mode 600


def interfaces(mtu: int) -> str:
    """ifupdown's configuration, where a Debian NAS keeps its address and its MTU."""
    return (
        "auto lo\niface lo inet loopback\n\n"
        f"auto eth0\niface eth0 inet static\n    address {NAS_IP}/{PREFIX}\n    mtu {mtu}\n"
    )


def shared(scenario: Scenario) -> dict[str, str]:
    """Every share by name and path: the lab's measured one (data), and each other dataset of a
    ZFS pool that the scenario shares."""
    zfs = scenario.storage.zfs
    others = [d.name for d in zfs.datasets if d.shared and not d.data] if zfs else []
    return {SHARE: DATA, **{name: f"/{zfs.pool}/{name}" for name in others if zfs}}


def smb_conf(scenario: Scenario, user: str) -> str:
    base = {"server role": "standalone server", "map to guest": "never", "load printers": "no", **scenario.samba}
    share = {"read only": "no", "valid users": user, **scenario.samba_share}
    return samba.written({"global": base, **{name: {"path": path, **share} for name, path in shared(scenario).items()}})


def exports(scenario: Scenario) -> str:
    """Each share for the lab's subnet, every client user mapped to the share's owner (a client's
    root could write nothing there otherwise, as with a NAS's "map all users")."""
    squash = f"all_squash,anonuid={UID},anongid={UID}"
    subnet = f"{CLIENT_IP.rsplit('.', 1)[0]}.0/{PREFIX}"
    return "".join(f"{path} {subnet}(rw,sync,no_subtree_check,{squash})\n" for path in shared(scenario).values())


def storage(scenario: Scenario, user: str) -> str:
    """The guest's first boot makes its data storage with this script: mounts the XFS disk from
    fstab, or makes the scenario's ZFS pool and datasets; the shares are the lab user's."""
    zfs = scenario.storage.zfs
    made = ["mount -a -t xfs"] if zfs is None else _pool(zfs)
    return "\n".join([*made, *(f"chown {user} {path}" for path in shared(scenario).values())]) + "\n"


def _pool(zfs: Zfs) -> list[str]:
    """zpool create as an operator types it (4 KiB sectors, as TrueNAS and most guides have it),
    then each dataset with its own properties; the lab's measured one mounted at /srv/data."""
    disks = [f"/dev/disk/by-id/virtio-{data_serial(n)}" for n in range(zfs.disks)]
    log = ["log", f"/dev/disk/by-id/virtio-{LOG_SERIAL}"] if zfs.log else []
    options = [f"-O {k}={v}" for k, v in zfs.properties.items()]
    lines = ["modprobe zfs", "udevadm settle"]
    lines.append(" ".join(["zpool create -f -o ashift=12", *options, zfs.pool, zfs.layout, *disks, *log]))
    for d in zfs.datasets:
        mount = [f"-o mountpoint={DATA}"] if d.data else []
        lines.append(
            " ".join(["zfs create", *(f"-o {k}={v}" for k, v in d.properties.items()), *mount])
            + f" {zfs.pool}/{d.name}"
        )
    return lines


VSFTPD = """listen=YES
listen_ipv6=NO
anonymous_enable=NO
local_enable=YES
write_enable=YES
local_root=/srv/data
pasv_min_port=30000
pasv_max_port=30100
seccomp_sandbox=NO
"""


def nas_fstab(scenario: Scenario) -> str:
    """The NAS's fstab: its root, and the XFS data disk (a ZFS pool mounts its own datasets)."""
    root = "LABEL=nastune-root / ext4 defaults 0 1\n"
    if scenario.storage.zfs is not None:
        return root
    options = ",".join(scenario.storage.mount_options) or "defaults"
    return f"{root}LABEL=nastune-data /srv/data xfs {options} 0 2\n"


def client_fstab(scenario: Scenario) -> str:
    nfs = scenario.guest.nfs_mount
    smb = f"{scenario.guest.smb_mount},credentials={CREDENTIALS}"
    return (
        "LABEL=nastune-root / ext4 defaults 0 1\n"
        f"{NAS_IP}:/srv/data {NFS_MOUNT} nfs {nfs},_netdev 0 0\n"
        f"//{NAS_IP}/{SHARE} {SMB_MOUNT} cifs {smb},_netdev 0 0\n"
    )


def tuned(profile: TunedProfile | None) -> dict[str, str]:
    """A site's TuneD profile, made active (manual: TuneD starts with it, not with its own pick);
    boot.sh turns TuneD on and sets reapply_sysctl in its main configuration from `tuned`."""
    if profile is None:
        return {}
    lines = "".join(f"{key}={value}\n" for key, value in profile.sysctl.items())
    return {
        f"root/etc/tuned/{profile.profile}/tuned.conf": f"[main]\nsummary=The site's NAS profile\n\n[sysctl]\n{lines}",
        "root/etc/tuned/active_profile": f"{profile.profile}\n",
        "root/etc/tuned/profile_mode": "manual\n",
        "tuned": "1" if profile.reapply_sysctl else "0",
    }


def write(
    directory: Path, scenario: Scenario, user: str, password: str, authorized: str, source: Path, packages: Path
) -> Path:
    """The seed directory the guest mounts read-only; files with the password are mode 600."""
    seed = directory / "seed"
    files = {
        "root/etc/network/interfaces": interfaces(scenario.network.mtu),
        "root/etc/exports": exports(scenario),
        "root/etc/nfs.conf": nfs_conf.with_value("", "nfsd", "threads", str(scenario.guest.nfsd_threads)),
        "root/etc/samba/smb.conf": smb_conf(scenario, user),
        "root/etc/vsftpd.conf": VSFTPD,
        "root/etc/fstab": nas_fstab(scenario),
        "storage.sh": storage(scenario, user),
        "root/root/.ssh/authorized_keys": authorized,
        "c1/fstab": client_fstab(scenario),
        "user": user,
        "src": str(source),
        "packages": str(packages),
        "mac-nas": MACS["nas"],
        "mac-c1": MACS["c1"],
        "mac-mgmt": MACS["mgmt"],
        "c1-address": f"{CLIENT_IP}/{PREFIX}",
        "c1-mtu": str(scenario.network.mtu),
        "irq-node": "" if scenario.guest.irq_node is None else str(scenario.guest.irq_node),
        "c1-delay": scenario.guest.delay or "",
        **tuned(scenario.guest.tuned),
    }
    secret = {"password": password, "c1/nastune-lab-smb.cred": f"username={user}\npassword={password}\n"}
    for name, text in {**files, **secret}.items():
        path = seed / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600 if name in secret else 0o644)
        path.write_text(text)
    return seed
