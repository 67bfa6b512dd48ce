"""The kernel NFS server's /etc/exports format: a path, then clients with options."""

from __future__ import annotations

import re
import shlex

from pydantic import BaseModel

_CLIENT = re.compile(r"^([^()\s]*)(?:\(([^()]*)\))?$")


class ExportClient(BaseModel):
    host: str
    options: list[str]


class Export(BaseModel):
    path: str
    clients: list[ExportClient]
    source: str
    line: int

    def has(self, option: str) -> bool:
        return any(option in c.options for c in self.clients)


MAX_LINE = 65536  # far beyond any real export line; bounds the parser's work on a hostile file


def parse(text: str, source: str) -> list[Export]:
    exports = []
    parts: list[str] = []
    size = start = 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].rstrip()
        if not parts:
            start, size = number, 0
        size += len(line)
        if size > MAX_LINE:
            raise ValueError(f"line {start}: longer than {MAX_LINE} characters")
        if line.endswith("\\"):
            parts.append(line[:-1] + " ")
            continue
        parts.append(line)
        logical = "".join(parts)
        if logical.strip():
            exports.append(_entry(logical, source, start))
        parts = []
    if "".join(parts).strip():
        exports.append(_entry("".join(parts), source, start))
    return exports


def _entry(line: str, source: str, number: int) -> Export:
    try:
        words = shlex.split(line)
    except ValueError as e:
        raise ValueError(f"line {number}: {e}") from e
    path, rest = words[0], words[1:]
    defaults: list[str] = []
    if rest and rest[0].startswith("-"):
        defaults = rest.pop(0)[1:].split(",")
    clients = []
    for word in rest or ["*"]:
        m = _CLIENT.match(word)
        if not m:
            raise ValueError(f"line {number}: cannot parse client {word!r}")
        options = m.group(2).split(",") if m.group(2) else []
        clients.append(ExportClient(host=m.group(1) or "*", options=defaults + options))
    return Export(path=path, clients=clients, source=source, line=number)
