"""Running the lab's tools: argv lists only (never a shell), clear errors that name
the command, its output, and the Debian package of a missing tool."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence

PACKAGES = {
    "ip": "iproute2",
    "tc": "iproute2",
    "mkfs.xfs": "xfsprogs",
    "xfs_db": "xfsprogs",
    "xfs_info": "xfsprogs",
    "losetup": "mount",
    "mount": "mount",
    "umount": "mount",
    "unshare": "util-linux",
    "nsenter": "util-linux",
    "fallocate": "util-linux",
    "smbd": "samba",
    "testparm": "samba-common-bin",
    "smbclient": "smbclient",
    "ganesha.nfsd": "nfs-ganesha nfs-ganesha-vfs",
    "rpcbind": "rpcbind",
    "vsftpd": "vsftpd",
    "nfs-cp": "libnfs-utils",
    "nfs-ls": "libnfs-utils",
    "curl": "curl",
    "iperf3": "iperf3",
    "fio": "fio",
}


class LabError(Exception):
    """A lab step failed; the message says which and why."""


def need(*tools: str) -> None:
    """Fail with the apt packages to install when any of `tools` is missing."""
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        packages = sorted({PACKAGES.get(t, t) for t in missing})
        raise LabError(f"missing {', '.join(missing)}: install with apt-get install {' '.join(packages)}")


def run(
    argv: Sequence[str],
    check: bool = True,
    timeout: float = 120,
    input: str | None = None,
) -> subprocess.CompletedProcess:
    """Run a command; on failure raise LabError with the command and the tail of its output."""
    env = {**os.environ, "LC_ALL": "C"}
    try:
        proc = subprocess.run(
            list(argv),
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            input=input,
            stdin=None if input is not None else subprocess.DEVNULL,
        )
    except FileNotFoundError as e:
        need(argv[0])
        raise LabError(f"{argv[0]}: {e}") from e
    except subprocess.TimeoutExpired as e:
        raise LabError(f"{' '.join(argv)}: timed out after {timeout:g} s") from e
    if check and proc.returncode != 0:
        lines = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
        shown = lines if len(lines) <= 6 else lines[:2] + ["..."] + lines[-3:]  # tools print the cause first or last
        raise LabError(f"{' '.join(argv)} failed (exit {proc.returncode}): " + " | ".join(shown))
    return proc


def in_ns(ns: str, argv: Sequence[str]) -> list[str]:
    return ["ip", "netns", "exec", ns, *argv]
