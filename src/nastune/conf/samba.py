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


@dataclass(frozen=True)
class Entry:
    """One line of smb.conf as Samba reads it, continuation lines joined: a section header (key
    None) or a parameter, with the span of physical lines it takes (first and last, from 0), so
    that an edit replaces all of it. `section` is "" before the file's first header: smbd puts
    such parameters in the section open where the file is included, [global] in the main file."""

    section: str
    key: str | None
    value: str
    first: int
    last: int

    def within(self, section: str) -> bool:
        """In [section] of the main file (its parameters before any header are [global]'s)."""
        return (self.section or "global") == section.lower()


def entries(text: str, file: str = "", problems: list[str] | None = None) -> Iterator[Entry]:
    """The headers and parameters of one file, includes not followed; a line Samba ignores is
    skipped, and named in `problems`."""
    skipped = [] if problems is None else problems
    section = ""
    for first, last, line in _lines(text, file, skipped):
        where = f"{file} line {last + 1}"
        if line.startswith("["):
            if not line.endswith("]"):
                skipped.append(f"{where}: section header without ']' (Samba ignores the line)")
                continue
            section = line[1:-1].strip().lower()
            yield Entry(section, None, "", first, last)
            continue
        name, sep, value = line.partition("=")
        if not sep:
            skipped.append(f"{where}: expected 'name = value' (Samba ignores the line)")
            continue
        yield Entry(section, normalise(name), value.strip(), first, last)


class _Reader:
    def __init__(self, fetch: Callable[[str], str | None] | None, why: Callable[[str], str]):
        self.fetch, self.why = fetch, why
        self.done = Read()
        self.section = ""  # no section open yet: a parameter before one is [global]'s

    def feed(self, file: str, text: str, depth: int = 0) -> None:
        self.done.files.append(file)
        for entry in entries(text, file, self.done.problems):
            where = f"{file} line {entry.last + 1}"
            if entry.key is None:  # headers as they come, an included file's too: a section it opens stays open
                self.section = entry.section
                self.done.sections.setdefault(self.section, {})
                continue
            self.section = self.section or "global"
            self.done.sections.setdefault(self.section, {})[entry.key] = entry.value
            self.done.origin[self.section, entry.key] = where
            if entry.key == "config file":
                self.done.external.append(f"{entry.value} (config file, {where}: smbd reloads from it; not read)")
            elif entry.key == "include" and self.fetch is not None:
                self.include(self.fetch, entry.value, where, depth)

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


def _lines(text: str, file: str, problems: list[str]) -> Iterator[tuple[int, int, str]]:
    """(first, last, line) of each parameter or header, its physical lines counted from 0:
    continuations joined, comments and blank lines skipped."""
    pending: list[str] = []  # continued lines, joined once (re-joining each time is quadratic)
    size, first = 0, 0
    for number, raw in enumerate(text.splitlines()):
        piece = raw.strip()
        size += len(piece)
        if size > MAX_LINE:
            problems.append(f"{file} line {number + 1}: a parameter longer than {MAX_LINE} characters")
            return
        if not pending:
            first = number
        if piece.endswith("\\"):
            pending.append(piece[:-1].rstrip() + " ")
            continue
        line = "".join(pending) + piece
        pending, size = [], 0
        if line and line[0] not in "#;":
            yield first, number, line


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


# Edits read the file with the same grammar as the facts (continuation lines, a parameter before
# any header in [global], the last of two settings the one smbd keeps): what an edit changes is
# what smbd reads, and nothing else.
def param(text: str, section: str, key: str) -> str | None:
    found = [e.value for e in entries(text) if e.key == normalise(key) and e.within(section)]
    return found[-1] if found else None


def with_param(text: str, section: str, key: str, value: str | None) -> str:
    """Set `key` in [section] where smbd reads it (its last setting there, continuation lines and
    all), or after the section's last line, adding the section if it is missing; None removes
    every setting of it there. A line it writes ends as the file's lines do (CRLF in a file
    written on Windows); a value already as asked leaves the text as it was."""
    eol = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    inside = [e for e in entries(text) if e.within(section)]
    mine = [e for e in inside if e.key == normalise(key)]
    if mine and value is not None:
        if mine[-1].value == value:
            return text
        first = lines[mine[-1].first]
        indent = first[: len(first) - len(first.lstrip())]
        lines[mine[-1].first : mine[-1].last + 1] = [f"{indent}{key} = {value}{eol}"]
    elif mine:
        for e in reversed(mine):
            del lines[e.first : e.last + 1]
    elif value is not None and inside:
        last = inside[-1].last
        if not lines[last].endswith("\n"):
            lines[last] += eol
        lines.insert(last + 1, f"   {key} = {value}{eol}")
    elif value is not None:
        return text + ("" if text.endswith("\n") or not text else eol) + f"{eol}[{section}]{eol}   {key} = {value}{eol}"
    return "".join(lines)


def written(sections: Sections) -> str:
    """A new smb.conf of these sections and parameters, written by the same edits."""
    text = ""
    for section, params in sections.items():
        for key, value in params.items():
            text = with_param(text, section, key, value)
    return text.lstrip("\n")
