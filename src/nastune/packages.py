"""The Debian package of every tool nastune runs, for one error that tells an operator what to
install (`apt-get install ...`), wherever the tool is missing: collectors, lab, bench, tuning.
Each protocol adds its own tools' packages (nastune.protocols)."""

from __future__ import annotations

PACKAGES = {
    "bash": "bash",
    "blockdev": "util-linux",
    "dd": "coreutils",
    "dmesg": "util-linux",
    "ethtool": "ethtool",
    "exportfs": "nfs-kernel-server",
    "fallocate": "util-linux",
    "fio": "fio",
    "ip": "iproute2",
    "iperf3": "iperf3",
    "losetup": "mount",
    "mkfs.xfs": "xfsprogs",
    "mount": "mount",
    "nsenter": "util-linux",
    "numactl": "numactl",
    "ping": "iputils-ping",
    "python3": "python3",
    "rpcinfo": "rpcbind",
    "smbcontrol": "samba-common-bin",
    "smbnetfs": "smbnetfs",
    "ssh": "openssh-client",
    "ssh-keygen": "openssh-client",
    "sshd": "openssh-server",
    "sysctl": "procps",
    "tc": "iproute2",
    "testparm": "samba-common-bin",
    "umount": "mount",
    "unshare": "util-linux",
    "xfs_db": "xfsprogs",
    "xfs_freeze": "xfsprogs",
    "xfs_fsr": "xfsprogs",
    "xfs_info": "xfsprogs",
    "zfs": "zfsutils-linux",
    "zpool": "zfsutils-linux",
}


def install_hint(tool: str) -> str:
    """What to run to get `tool`, for an error message."""
    return f"apt-get install {PACKAGES.get(tool, tool)}"
