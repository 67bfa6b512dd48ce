"""Whole-file transfers through each protocol's own client: smbclient for SMB, libnfs's
nfs-cp for NFS, curl for FTP. Throughput is the file size over the client's wall time."""

from __future__ import annotations

import os
from pathlib import Path

from nastune.bench.drivers import nfsops
from nastune.bench.drivers.common import run
from nastune.bench.targets import Target


def _smb(target: Target, command: str) -> list[str]:
    return target.client(["smbclient", "-N", f"//{target.host}/{target.share}", "-c", command])


def upload(target: Target, local: Path, name: str) -> float:
    """Seconds to send `local` to the target as `name`."""
    if target.kind == "smb":
        return run(_smb(target, f"put {local} {name}"), what="smbclient put")[1]
    if target.kind == "nfs":
        return run(target.client(["nfs-cp", str(local), f"nfs://{target.host}/{target.share}/{name}"]), what="nfs-cp")[
            1
        ]
    if target.kind == "ftp":
        return run(
            target.client(["curl", "-sS", "-T", str(local), f"ftp://{target.host}/{target.share}/{name}"]),
            what="curl upload",
        )[1]
    raise ValueError(f"no transfer client for {target.kind}")


def download(target: Target, name: str, from_root: bool = False) -> float:
    """Seconds to fetch `name` from the target into /dev/null (`from_root`: a path from the
    server's root, for FTP whose writable directory is below it)."""
    if target.kind == "smb":
        return run(_smb(target, f"get {name} /dev/null"), what="smbclient get")[1]
    if target.kind == "nfs":  # nfs-cp cannot write to /dev/null: a tmpfs file, removed at once
        sink = Path("/dev/shm") / f"nastune-{os.getpid()}-{Path(name).name}"
        try:
            return run(
                target.client(["nfs-cp", f"nfs://{target.host}/{target.share}/{name}", str(sink)]), what="nfs-cp"
            )[1]
        finally:
            sink.unlink(missing_ok=True)
    if target.kind == "ftp":
        url = f"ftp://{target.host}/{name}" if from_root else f"ftp://{target.host}/{target.share}/{name}"
        return run(target.client(["curl", "-sS", "-o", "/dev/null", url]), what="curl download")[1]
    raise ValueError(f"no transfer client for {target.kind}")


def remove(target: Target, name: str) -> None:
    """Delete a test file through the protocol (Ganesha caches handles: never behind its back)."""
    if target.kind == "smb":
        run(_smb(target, f"del {name}"), what="smbclient del")
    elif target.kind == "nfs":
        nfsops.remote(target, {"op": "unlink", "name": name})
    elif target.kind == "ftp":
        run(
            target.client(
                ["curl", "-sS", "-o", "/dev/null", f"ftp://{target.host}/{target.share}/", "-Q", f"-DELE {name}"]
            ),
            what="curl DELE",
        )
