"""/etc/nfs.conf as nfs-utils reads it: `[section]` headers and `key = value` lines."""

from __future__ import annotations

MAX_LINES = 10_000  # a real nfs.conf has a few dozen


def section(text: str, name: str) -> dict[str, str]:
    """The keys of one section (names lowercased, as nfs-utils compares them); a later line wins.
    Lines that are neither a header nor an assignment are ValueError, naming the line."""
    found: dict[str, str] = {}
    current = None
    for number, raw in enumerate(text.splitlines()[:MAX_LINES], 1):
        line = raw.split("#", 1)[0].strip()
        if not line or line.startswith(";"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1].strip().lower()
        elif "=" in line:
            key, _, value = line.partition("=")
            if current == name:
                found[key.strip().lower()] = value.strip()
        else:
            raise ValueError(f"line {number}: neither [section] nor key = value: {line[:60]!r}")
    return found
