"""Samba's smb.conf format: `[section]` headers and `name = value` lines, with Samba's own
include rules.

Parameter names are case- and space-insensitive in Samba ("AIO Read Size" is
"aio read size"), so they are normalised to lower case with single spaces. `include = FILE`
is read where it stands, as if the file's lines were there: its parameters land in the
section that is open, and a section it opens stays open after it (testparm reads it so).
A path with a per-client substitution (%m, %U, ...) or `registry` is read by smbd per
connection, never by nastune; `config file =` makes smbd reload from another file, which
testparm does not follow (nor does nastune), so both are recorded as external sources.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from nastune.errors import UsageError

MAX_LINE = 1 << 20
INCLUDE_DEPTH = 8
# `case sensitive` values under which smbd matches names without case (auto: so for Windows
# clients), searching a directory for a name's other cases when it is not there as spelled
CASELESS = frozenset(("auto", "no", "false", "0", "off"))
DEFAULTS_FROM = "Samba 4.17 (testparm -s -v of an empty smb.conf, samba-4.17-defaults.conf)"
Sections = dict[str, dict[str, str]]


def normalise(name: str) -> str:
    return " ".join(name.lower().split())


@dataclass
class Read:
    """A configuration as smbd reads it: its sections, the files read, what was not read."""

    sections: Sections = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)  # includes not read, each with why
    problems: list[str] = field(default_factory=list)  # lines Samba ignores, with file and line
    origin: dict[tuple[str, str], str] = field(default_factory=dict)  # (section, key): "file line N"


class _Reader:
    def __init__(self, fetch: Callable[[str], str | None] | None, why: Callable[[str], str]):
        self.fetch, self.why = fetch, why
        self.done = Read()
        self.section = ""  # no section open yet: a parameter before one is [global]'s

    def feed(self, file: str, text: str, depth: int = 0) -> None:
        self.done.files.append(file)
        for number, line in _lines(text, file, self.done.problems):
            where = f"{file} line {number}"
            if line.startswith("["):
                if not line.endswith("]"):
                    self.done.problems.append(f"{where}: section header without ']' (Samba ignores the line)")
                    continue
                self.section = line[1:-1].strip().lower()
                self.done.sections.setdefault(self.section, {})
                continue
            name, sep, value = line.partition("=")
            if not sep:
                self.done.problems.append(f"{where}: expected 'name = value' (Samba ignores the line)")
                continue
            self.section = self.section or "global"
            key, value = normalise(name), value.strip()
            self.done.sections.setdefault(self.section, {})[key] = value
            self.done.origin[self.section, key] = where
            if key == "config file":
                self.done.external.append(f"{value} (config file, {where}: smbd reloads from it; not read)")
            elif key == "include" and self.fetch is not None:
                self.include(self.fetch, value, where, depth)

    def include(self, fetch: Callable[[str], str | None], target: str, where: str, depth: int) -> None:
        if "%" in target or target == "registry":
            self.done.external.append(f"{target} (include, {where}: read by smbd per connection; not read)")
            return
        path = posixpath.normpath(posixpath.join("/", target))  # smbd runs in /
        if path in self.done.files or depth >= INCLUDE_DEPTH:
            self.done.external.append(f"{target} (include, {where}: included again or nested too deep; not read)")
            return
        text = fetch(path)
        if text is None:
            self.done.external.append(f"{target} (include, {where}: {self.why(path)})")
            return
        self.feed(path, text, depth + 1)


def _lines(text: str, file: str, problems: list[str]) -> Iterator[tuple[int, str]]:
    """(number, line) of each parameter or header: continuations joined, comments skipped."""
    pending: list[str] = []  # continued lines, joined once (re-joining each time is quadratic)
    size = 0
    for number, raw in enumerate(text.splitlines(), 1):
        piece = raw.strip()
        size += len(piece)
        if size > MAX_LINE:
            problems.append(f"{file} line {number}: a parameter longer than {MAX_LINE} characters")
            return
        if piece.endswith("\\"):
            pending.append(piece[:-1].rstrip() + " ")
            continue
        line = "".join(pending) + piece
        pending, size = [], 0
        if line and line[0] not in "#;":
            yield number, line


def read(path: str, text: str, fetch: Callable[[str], str | None], why: Callable[[str], str]) -> Read:
    """The file at `path` with the files it includes, each fetched by `fetch` (None: unreadable,
    `why` says why); a badly formed line is skipped and named, as Samba skips it."""
    reader = _Reader(fetch, why)
    reader.feed(path, text)
    return reader.done


def parse(text: str) -> Sections:
    """One file's sections (lower-cased names, 'global' included) to their parameters, includes
    not followed (testparm's output has them resolved); ValueError on a line Samba would skip."""
    reader = _Reader(None, str)
    reader.feed("", text)
    if reader.done.problems:
        raise UsageError(reader.done.problems[0].lstrip())
    return reader.done.sections


@cache
def defaults() -> dict[str, str]:
    """Every [global] parameter's built-in default, as testparm prints it, so that a raw smb.conf
    reads as smbd (and testparm) would: the same findings live and from the file."""
    return parse((Path(__file__).parent / "samba-4.17-defaults.conf").read_text())["global"]
