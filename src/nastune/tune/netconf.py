"""An interface's MTU kept where the system that configures the interface at boot reads it, when
that is not ifupdown: netplan (Ubuntu, and what its YAML generates for systemd-networkd or
NetworkManager), systemd-networkd's own .network files and NetworkManager's keyfiles. For the
first two nastune writes a file of its own beside the operator's, which rollback removes:
netplan merges a later file's settings for the same interface over the earlier ones (netplan(5),
"Multiple files"), and networkd reads a .network file's drop-ins after it (systemd.network(5),
[Link] MTUBytes=). NetworkManager has no drop-ins for a connection: its keyfile's [ethernet]
mtu= is set, as `nmcli connection modify` would (nm-settings-keyfile(5)), the file journaled
like any edit and its mode kept (NetworkManager ignores a keyfile others can read)."""

from __future__ import annotations

import fnmatch
import re

NETPLAN_DIR = "/etc/netplan"
NETWORKD_DIR = "/etc/systemd/network"
NM_DIR = "/etc/NetworkManager/system-connections"
SECTIONS = ("ethernets", "bonds", "bridges", "vlans")  # netplan's device types that carry an MTU
HEADER = "# Written by nastune apply --persist; removed by nastune rollback.\n"
# the only files these two ways write (persist's file knob refuses any other path)
OWN = re.compile(
    rf"{NETPLAN_DIR}/90-nastune-[A-Za-z0-9_.:@-]+\.yaml|{NETWORKD_DIR}/[A-Za-z0-9_.@-]+\.network\.d/90-nastune-mtu\.conf"
    rf"|{NM_DIR}/[A-Za-z0-9 _.@-]+\.nmconnection"
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


def keyfile_device(text: str) -> str | None:
    """The interface a NetworkManager keyfile's connection is bound to ([connection]
    interface-name=), or None (bound by MAC address, or to any device)."""
    section = ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            section = stripped
        elif section == "[connection]" and stripped.startswith("interface-name="):
            return stripped.partition("=")[2].strip() or None
    return None


def keyfile_with_mtu(text: str, mtu: int) -> str:
    """The keyfile with [ethernet] mtu= set: replaced where it is, else added after the section's
    last line, else in a new [ethernet] section at the end."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip().startswith("[")]
    begin = next((i for i in starts if lines[i].strip() == "[ethernet]"), None)
    if begin is None:
        return text.rstrip("\n") + f"\n\n[ethernet]\nmtu={mtu}\n"
    end = next((i for i in starts if i > begin), len(lines))
    at = next((i for i in range(begin + 1, end) if lines[i].strip().startswith("mtu=")), None)
    if at is not None:
        lines[at] = f"mtu={mtu}"
    else:
        lines.insert(max(i for i in range(begin, end) if lines[i].strip()) + 1, f"mtu={mtu}")
    return "\n".join(lines) + "\n"
