"""Samba's smb.conf format: `[section]` headers and `name = value` lines.

Parameter names are case- and space-insensitive in Samba ("AIO Read Size" is
"aio read size"), so they are normalised to lower case with single spaces.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

MAX_LINE = 1 << 20
DEFAULTS_FROM = "Samba 4.17 (testparm -s -v of an empty smb.conf, samba-4.17-defaults.conf)"


def normalise(name: str) -> str:
    return " ".join(name.lower().split())


def parse(text: str) -> dict[str, dict[str, str]]:
    """Sections (lower-cased names, 'global' included) to their parameters."""
    sections: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    pending: list[str] = []  # continued lines, joined once (re-joining each time is quadratic)
    size = 0
    for number, raw in enumerate(text.splitlines(), 1):
        piece = raw.strip()
        size += len(piece)
        if size > MAX_LINE:
            raise ValueError(f"line {number}: a parameter longer than {MAX_LINE} characters")
        if piece.endswith("\\"):
            pending.append(piece[:-1].rstrip() + " ")
            continue
        line = "".join(pending) + piece
        pending, size = [], 0
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


@cache
def defaults() -> dict[str, str]:
    """Every [global] parameter's built-in default, as testparm prints it, so that a raw smb.conf
    reads as smbd (and testparm) would: the same findings live and from the file."""
    return parse((Path(__file__).parent / "samba-4.17-defaults.conf").read_text())["global"]
