"""The kernel NFS server's /etc/exports format: a path, then clients with options."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator

from pydantic import BaseModel

from nastune.errors import UsageError

CLIENT = re.compile(r"^([^()\s]*)(?:\(([^()]*)\))?$")


class ExportClient(BaseModel):
    host: str
    options: list[str]

    def last(self, *choices: str) -> str | None:
        """Which of exclusive options (rw/ro, sync/async) holds: the last one written, as the
        line's `-defaults` come first and a client's own options after them."""
        return next((o for o in reversed(self.options) if o in choices), None)


class Export(BaseModel):
    path: str
    clients: list[ExportClient]
    source: str
    line: int

    def has(self, option: str) -> bool:
        return any(option in c.options for c in self.clients)


MAX_LINE = 65536  # far beyond any real export line; bounds the parser's work on a hostile file


def logical(text: str, source: str = "/etc/exports") -> Iterator[tuple[int, int, str]]:
    """(first, last, line) of each entry as exportfs reads it, its physical lines counted from 0:
    comments cut, lines that end in a backslash joined with the next, blank ones skipped."""
    parts: list[str] = []
    size = start = 0
    lines = text.splitlines()
    for number, raw in enumerate(lines):
        line = raw.split("#", 1)[0].rstrip()
        if not parts:
            start, size = number, 0
        size += len(line)
        if size > MAX_LINE:
            raise UsageError(f"{source} line {start + 1}: longer than {MAX_LINE} characters")
        if line.endswith("\\"):
            parts.append(line[:-1] + " ")
            continue
        parts.append(line)
        if "".join(parts).strip():
            yield start, number, "".join(parts)
        parts = []
    if "".join(parts).strip():
        yield start, len(lines) - 1, "".join(parts)


def parse(text: str, source: str, problems: list[str] | None = None) -> list[Export]:
    """Every entry; one that cannot be read raises ValueError, or with `problems` is named
    there and skipped, the rest read (exportfs, too, skips a bad line and goes on)."""
    exports = []
    for start, _, line in logical(text, source):
        try:
            exports.append(_entry(line, source, start + 1))
        except ValueError as e:
            if problems is None:
                raise
            problems.append(str(e))
    return exports


def _entry(line: str, source: str, number: int) -> Export:
    try:
        words = shlex.split(line)
    except ValueError as e:
        raise UsageError(f"line {number}: {e}") from e
    path, rest = words[0], words[1:]
    defaults: list[str] = []  # `-opts` (exports(5)): for the clients after it on this line
    clients = []
    for word in rest:
        if word.startswith("-"):
            defaults = defaults + word[1:].split(",")
            continue
        m = CLIENT.match(word)
        if not m:
            raise UsageError(f"line {number}: cannot parse client {word!r}")
        options = m.group(2).split(",") if m.group(2) else []
        clients.append(ExportClient(host=m.group(1) or "*", options=defaults + options))
    if not clients:  # a path alone is exported to every host with the defaults
        clients.append(ExportClient(host="*", options=defaults))
    return Export(path=path, clients=clients, source=source, line=number)
