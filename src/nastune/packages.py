"""The Debian package of every tool nastune runs, for one error that tells an operator what to
install (`apt-get install ...`), wherever the tool is missing: collectors, lab, bench, tuning.
The one table of them, the protocols' client and server tools included (a test checks that
every tool the lab and the protocols run is in it and that scripts/setup installs its package)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

PACKAGES: Mapping[str, str] = MappingProxyType(
    {
        "bash": "bash",
        "blockdev": "util-linux",
        "curl": "curl",
        "dd": "coreutils",
        "dmesg": "util-linux",
        "ethtool": "ethtool",
        "exportfs": "nfs-kernel-server",
        "fallocate": "util-linux",
        "fio": "fio",
        "ganesha.nfsd": "nfs-ganesha nfs-ganesha-vfs",
        "ip": "iproute2",
        "iperf3": "iperf3",
        "losetup": "mount",
        "mkfs.ext4": "e2fsprogs",
        "mkfs.xfs": "xfsprogs",
        "mmdebstrap": "mmdebstrap",
        "mount": "mount",
        "nfs-cp": "libnfs-utils",
        "nfs-ls": "libnfs-utils",
        "nsenter": "util-linux",
        "numactl": "numactl",
        "ping": "iputils-ping",
        "python3": "python3",
        "qemu-img": "qemu-utils",
        "qemu-system-x86_64": "qemu-system-x86",
        "rpcbind": "rpcbind",
        "rpcinfo": "rpcbind",
        "smbclient": "smbclient",
        "smbcontrol": "samba-common-bin",
        "smbd": "samba",
        "smbnetfs": "smbnetfs",
        "ssh": "openssh-client",
        "ssh-keygen": "openssh-client",
        "sshd": "openssh-server",
        "sysctl": "procps",
        "tc": "iproute2",
        "testparm": "samba-common-bin",
        "umount": "mount",
        "unshare": "util-linux",
        "vsftpd": "vsftpd",
        "xfs_db": "xfsprogs",
        "xfs_freeze": "xfsprogs",
        "xfs_fsr": "xfsprogs",
        "xfs_info": "xfsprogs",
        "zfs": "zfsutils-linux",
        "zpool": "zfsutils-linux",
    }
)


def install_hint(tool: str) -> str:
    """What to run to get `tool`, for an error message."""
    return f"apt-get install {PACKAGES.get(tool, tool)}"
