"""smb-client-single-channel: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.facts import Facts
from nastune.facts.mounts import FstabEntry, Mount
from tests.conftest import need
from tests.rules.kit import Case, F, changes, client, fail, nic

SHARE = "/mnt/smb"


def _fast_client(options: list[str]) -> Facts:
    """The NFS client's tree on a 10 Gbit link, with an SMB share mounted from /etc/fstab."""
    f = client()
    nic(f, "enp3s0").speed_mbps = nic(f, "enp3s0").rate_mbps = F(10000)
    mounts = need(f.mounts)
    mount = Mount(device="//nas/data", mountpoint=SHARE, fstype="cifs", options=options, pseudo=False)
    mounts.mounts = F([*need(mounts.mounts.value), mount], "/proc/mounts")
    entry = FstabEntry(spec="//nas/data", file=SHARE, vfstype="cifs", options=["credentials=/root/.smb"], line=9)
    mounts.fstab = F([*need(mounts.fstab.value), entry], "/etc/fstab")
    return f


CASE = Case(
    lambda: _fast_client(["rw", "vers=3.1.1", "rsize=4194304"]),
    lambda: _fast_client(["rw", "vers=3.1.1", "multichannel", "max_channels=4"]),
    lambda fs: (
        changes(fs) == [(SHARE, "multichannel", None, "multichannel"), (SHARE, "max_channels", None, 4)] or fail(fs)
    ),
)
