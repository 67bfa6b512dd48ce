"""/etc/fstab as mount(8) reads it (fstab(5)): one file system a line, its fields separated by
blanks, a space in a path written as the kernel writes it (\\040), the options field "defaults"
when it is left out, a line starting with # a comment. One grammar for reading it (the facts)
and for editing an entry's options (a mount option's change and its persistence), so that an
edit changes that entry's options and nothing else: not its spacing, not a comment, not
another entry."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

ATIME = ("atime", "noatime", "relatime", "strictatime", "lazytime")
EXCLUSIVE = {
    "sync": ("sync", "async"),
    "async": ("sync", "async"),
    **{a: ATIME for a in ATIME},
    "nodiratime": ("diratime", "nodiratime"),
}


def unescape(field: str) -> str:
    """Undo the kernel's octal escapes (\\040 for a space) in mount table fields."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


@dataclass(frozen=True)
class Entry:
    spec: str
    file: str  # the mount point, unescaped
    vfstype: str
    options: list[str]
    line: int  # from 0


def entries(text: str, warn: Callable[[str, int], None] | None = None) -> Iterator[Entry]:
    """Each entry; a line of fewer than 3 fields is skipped, and told to `warn` with its number."""
    for number, raw in enumerate(text.splitlines()):
        fields = raw.split("#", 1)[0].split()
        if not fields:
            continue
        if len(fields) < 3:
            if warn:
                warn(f"expected at least 3 fields, got {len(fields)}", number + 1)
            continue
        given = fields[3] if len(fields) > 3 else "defaults"
        yield Entry(unescape(fields[0]), unescape(fields[1]), fields[2], given.split(","), number)


def options(text: str, mountpoint: str) -> list[str] | None:
    """The options of `mountpoint`'s entry (the last one: mount(8) mounts a later one over it)."""
    found = [e for e in entries(text) if e.file == mountpoint]
    return found[-1].options if found else None


def set_option(options: list[str], option: str, value: str | None) -> list[str]:
    """Options with `option` set: a flag (noatime) replaces its exclusive siblings; a
    key (rsize) gets `=value`; value None for a key, or option with value '-', removes it."""
    key = option.split("=", 1)[0]
    kept = [o for o in options if o.split("=", 1)[0] not in EXCLUSIVE.get(key, (key,))]
    if value is None:
        return kept or ["defaults"]
    return [o for o in kept if o != "defaults"] + [f"{key}={value}" if value not in ("", key) else key]


def with_option(text: str, mountpoint: str, option: str, value: str | None) -> str | None:
    """`text` with `option` set in `mountpoint`'s entry (None: there is no such entry). Only the
    options field changes; an entry that left it out gets one after its type."""
    found = [e for e in entries(text) if e.file == mountpoint]
    if not found:
        return None
    lines = text.splitlines(keepends=True)
    number = found[-1].line
    body, hash_, comment = lines[number].partition("#")
    new = ",".join(set_option(found[-1].options, option, value))
    spans = [m.span() for m in re.finditer(r"\S+", body)]
    if len(spans) > 3:
        start, end = spans[3]
        lines[number] = body[:start] + new + body[end:] + hash_ + comment
    else:
        end = spans[2][1]
        lines[number] = body[:end] + " " + new + body[end:] + hash_ + comment
    return "".join(lines)
