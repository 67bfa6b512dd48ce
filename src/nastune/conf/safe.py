"""What a value written into a configuration file may contain.

A plan or a scenario file is data, and a value that carries a newline, a brace, a semicolon or a
quote can close the line, block or share it belongs to and open another (`root preexec = ...` in
smb.conf, a second EXPORT in ganesha.conf, `exec,suid` in fstab). Each format gets a whitelist;
anything else is refused with the field named, before any file is touched."""

from __future__ import annotations

import re

SAMBA_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _:.-]{0,79}")
SAMBA_SECTION = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _.$-]{0,79}")
SAMBA_VALUE = re.compile(r"[A-Za-z0-9 _.,:/=%@+*-]{0,512}")
GANESHA_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
GANESHA_VALUE = re.compile(r"[A-Za-z0-9_./:+-]{1,256}")
MOUNT_OPTION = re.compile(r"[A-Za-z0-9_.:/@+-]{1,128}")  # one option or value: no comma, no space
HOST = re.compile(r"[A-Za-z0-9_.:/*@\[\]-]{1,255}")


def check(pattern: re.Pattern, value: object, what: str) -> str:
    """`value` as text if it matches `pattern` whole; ValueError naming `what` otherwise."""
    text = str(value)
    if not pattern.fullmatch(text):
        shown = text if len(text) <= 60 else text[:57] + "..."
        raise ValueError(
            f"{what}: {shown!r} is not allowed here (no newlines, braces, semicolons, "
            "quotes or other characters that could change the file's structure)"
        )
    return text
