"""Samba's smb.conf format: `[section]` headers and `name = value` lines.

Parameter names are case- and space-insensitive in Samba ("AIO Read Size" is
"aio read size"), so they are normalised to lower case with single spaces.
"""

from __future__ import annotations


def normalise(name: str) -> str:
    return " ".join(name.lower().split())


def parse(text: str) -> dict[str, dict[str, str]]:
    """Sections (lower-cased names, 'global' included) to their parameters."""
    sections: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    pending = ""
    for number, raw in enumerate(text.splitlines(), 1):
        line = pending + raw.strip()
        pending = ""
        if line.endswith("\\"):
            pending = line[:-1].rstrip() + " "
            continue
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            if not line.endswith("]"):
                raise ValueError(f"line {number}: section header without ']'")
            current = sections.setdefault(line[1:-1].strip().lower(), {})
            continue
        name, sep, value = line.partition("=")
        if not sep:
            raise ValueError(f"line {number}: expected 'name = value'")
        if current is None:
            current = sections.setdefault("global", {})
        current[normalise(name)] = value.strip()
    return sections
