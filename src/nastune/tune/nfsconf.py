"""nfs-utils' /etc/nfs.conf, where Debian's nfs-kernel-server reads nfsd's thread count each time
it starts: threads persisted there survive a reboot and a restart of nfs-server alike (nfs.conf(5)).
Read and written with conf/nfs_conf.py's grammar."""

from __future__ import annotations

from nastune.conf import nfs_conf
from nastune.tune.system import TuneError

PATH = "/etc/nfs.conf"


def with_threads(text: str, threads: int) -> str:
    """`text` with `threads` as the only threads of its [nfsd] section; comments and the other
    sections untouched."""
    try:
        return nfs_conf.with_value(text, "nfsd", "threads", str(threads))
    except ValueError as e:
        raise TuneError(f"{PATH}: {e}: nfsd's threads are not written into a file nfs-utils cannot read") from e
