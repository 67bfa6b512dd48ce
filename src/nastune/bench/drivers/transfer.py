"""Whole-file transfers through each protocol's own client (nastune.protocols: smbclient for SMB,
libnfs's nfs-cp for NFS, curl for FTP), timed by the client's own clock around the tool: each
returns the transfer's (start, end) in epoch seconds."""

from __future__ import annotations

from nastune.bench.targets import Target
from nastune.errors import UsageError
from nastune.protocols import PROTOCOLS, Protocol


def _protocol(target: Target) -> Protocol:
    found = PROTOCOLS.get(target.kind)
    if found is None:
        raise UsageError(f"no transfer client for {target.kind}")
    return found


def upload(target: Target, local: str, name: str, sent: list[tuple[float, int]] | None = None) -> tuple[float, float]:
    """Send the client's file `local` to the target as `name` (`sent`: the client's sent bytes
    each second meanwhile)."""
    return _protocol(target).upload(target, local, name, sent)


def free(target: Target) -> int:
    """The bytes the target's share has free, as its server tells the protocol's client."""
    return _protocol(target).free(target)


def download(target: Target, name: str, from_root: bool = False) -> tuple[float, float]:
    """Fetch `name` from the target into /dev/null (`from_root`: a path from the server's
    root, for FTP whose writable directory is below it)."""
    return _protocol(target).download(target, name, from_root)


def remove(target: Target, name: str) -> None:
    """Delete a test file through the protocol (Ganesha caches handles: never behind its back)."""
    _protocol(target).remove(target, name)
