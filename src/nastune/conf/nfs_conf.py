"""/etc/nfs.conf as nfs-utils reads it (nfs.conf(5)): `[section]` headers and `key = value`
lines, `#` starting a comment anywhere and `;` a comment line, names compared in lower case, a
later line winning over an earlier one. One grammar for reading it (the facts) and for writing it
(persisting nfsd's threads, the kernel lab's seed), so that an edit changes what nfs-utils reads
and nothing else."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

MAX_LINES = 10_000  # a real nfs.conf has a few dozen


@dataclass(frozen=True)
class Entry:
    """A header (key None) or an assignment, and the line it is on (from 0)."""

    section: str | None  # None: before any header, where nfs-utils reads nothing
    key: str | None
    value: str
    line: int


def entries(text: str) -> Iterator[Entry]:
    """Each header and assignment; a line that is neither is ValueError, naming the line."""
    current = None
    for number, raw in enumerate(text.splitlines()[:MAX_LINES]):
        line = raw.split("#", 1)[0].strip()
        if not line or line.startswith(";"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1].strip().lower()
            yield Entry(current, None, "", number)
        elif "=" in line:
            key, _, value = line.partition("=")
            yield Entry(current, key.strip().lower(), value.strip(), number)
        else:
            raise ValueError(f"line {number + 1}: neither [section] nor key = value: {line[:60]!r}")


def section(text: str, name: str) -> dict[str, str]:
    """The keys of one section (a later line wins)."""
    return {e.key: e.value for e in entries(text) if e.section == name and e.key is not None}


def with_value(text: str, name: str, key: str, value: str) -> str:
    """`text` with `key = value` the only setting of `key` in [name], just below the section's
    first header (added at the end when there is none); every other line as it was, and the text
    itself when the key is already set so, once."""
    found = [e for e in entries(text) if e.section == name]
    mine = [e for e in found if e.key == key]
    if len(mine) == 1 and mine[0].value == value:
        return text
    if not found:
        return text + ("\n" if text and not text.endswith("\n") else "") + f"[{name}]\n{key}={value}\n"
    lines = text.splitlines(keepends=True)
    gone = {e.line for e in mine}
    head = found[0].line
    kept = [line for i, line in enumerate(lines) if i not in gone]
    at = head - sum(1 for i in gone if i < head) + 1
    if not kept[at - 1].endswith("\n"):
        kept[at - 1] += "\n"
    return "".join(kept[:at] + [f"{key}={value}\n"] + kept[at:])
