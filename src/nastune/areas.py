"""The areas facts are collected in, and their groups: plain names, kept apart from the
collectors so that the command line can list them without importing any collector."""

from __future__ import annotations

from collections.abc import Iterable

from nastune.errors import UsageError

AREAS = ("system", "sysctl", "network", "block", "md", "mounts", "zfs", "nfs_server", "nfs_client", "smb", "kernel_log")
GROUPS = {"storage": ("block", "md", "mounts", "zfs"), "nfs": ("nfs_server", "nfs_client"), "kernel": ("kernel_log",)}


def expand(areas: Iterable[str]) -> list[str]:
    """Area names and group names (storage, nfs, kernel) to area names, in canonical order."""
    wanted: set[str] = set()
    for name in areas:
        if name in GROUPS:
            wanted.update(GROUPS[name])
        elif name in AREAS:
            wanted.add(name)
        else:
            raise UsageError(f"unknown area {name!r}; choose from {', '.join(AREAS + tuple(GROUPS))}")
    return [a for a in AREAS if a in wanted]
