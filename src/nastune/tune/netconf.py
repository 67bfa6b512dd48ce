"""An interface's MTU kept where the system that configures the interface at boot reads it, when
that is not ifupdown: netplan (Ubuntu, and what its YAML generates for systemd-networkd or
NetworkManager) and systemd-networkd's own .network files. nastune writes a file of its own
beside the operator's, which rollback removes, and edits none of theirs: netplan merges a later
file's settings for the same interface over the earlier ones (netplan(5), "Multiple files"), and
networkd reads a .network file's drop-ins after it (systemd.network(5), [Link] MTUBytes=)."""

from __future__ import annotations

import fnmatch
import re

NETPLAN_DIR = "/etc/netplan"
NETWORKD_DIR = "/etc/systemd/network"
SECTIONS = ("ethernets", "bonds", "bridges", "vlans")  # netplan's device types that carry an MTU
HEADER = "# Written by nastune apply --persist; removed by nastune rollback.\n"
# the only files these two ways write (persist's file knob refuses any other path)
OWN = re.compile(
    rf"{NETPLAN_DIR}/90-nastune-[A-Za-z0-9_.:@-]+\.yaml|{NETWORKD_DIR}/[A-Za-z0-9_.@-]+\.network\.d/90-nastune-mtu\.conf"
)


def netplan_section(text: str, device: str) -> str | None:
    """The netplan device type (ethernets, bonds, ...) under which `text` defines `device` by its
    id, or None. A line scan, not a YAML parser: the NAS runs nastune's core only."""
    section, depth = None, None
    for line in text.splitlines():
        stripped = line.split("#", 1)[0].rstrip()
        if not stripped:
            continue
        indent = len(stripped) - len(stripped.lstrip())
        key = stripped.strip().rstrip(":").strip("\"'")
        if stripped.endswith(":") and key in SECTIONS:
            section, depth = key, indent
        elif section and depth is not None and indent <= depth:
            section = None
        elif section and stripped.endswith(":") and key == device:
            return section
    return None


def netplan_file(device: str, section: str, mtu: int) -> tuple[str, str]:
    """Where and what nastune writes for netplan: the interface's MTU alone, merged over its definition."""
    text = f"{HEADER}network:\n  version: 2\n  {section}:\n    {device}:\n      mtu: {mtu}\n"
    return f"{NETPLAN_DIR}/90-nastune-{device}.yaml", text


def networkd_match(text: str, device: str) -> bool:
    """Whether a .network file's [Match] names `device` (Name= takes globs, several per line)."""
    in_match, globs = False, []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            in_match = stripped == "[Match]"
        elif in_match and stripped.startswith("Name="):
            globs += stripped[len("Name=") :].split()
    return any(fnmatch.fnmatchcase(device, glob) for glob in globs)


def networkd_dropin(network_file: str, mtu: int) -> tuple[str, str]:
    """Where and what nastune writes for networkd: a drop-in of the .network file that matches."""
    return f"{network_file}.d/90-nastune-mtu.conf", f"{HEADER}[Link]\nMTUBytes={mtu}\n"
