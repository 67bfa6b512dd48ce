"""The journal: one JSON line per step, fsynced before the step's effect, so that rollback
knows every original value even when apply was killed at any point.

A journal is read as untrusted input (a crash, a full disk or a person can leave it torn or
edited): it is read through the system's Root with a size bound, every line is checked, and
the lines that cannot be used are reported with their number instead of stopping the reader.

Its first line is a header, `steps` lines list the changes apply is about to make (in the order
of their seq), and an `end` line closes it: a journal without one was cut short (apply killed,
or lines lost), and rollback then checks every listed step that has no line of its own."""

from __future__ import annotations

import os
import re
import stat
import time
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict

from nastune.errors import UsageError
from nastune.jsonfile import dumps, loads
from nastune.root import Unavailable
from nastune.tune.system import System, TuneError

MAX_BYTES = 16 * 1024 * 1024
MAX_LINES = 10_000  # a plan of every knob with persistence journals well under 200 lines
NAME = re.compile(r"\d{8}T\d{6}(\.\d{6})?-\d+\.jsonl")  # microseconds: an A/B run applies twice a second
STATES = ("started", "applied", "failed", "rolled_back")


class Entry(TypedDict):
    """One change of a journal, its lines merged: its seq and latest state (both checked as
    read), the line numbers it was read from, and what its lines recorded, unchecked (the
    change as apply announced it, the original value or files, the value read back, the error)."""

    seq: int
    state: str
    lines: list[int]
    change: NotRequired[object]
    before: NotRequired[object]
    after: NotRequired[object]
    error: NotRequired[object]


@dataclass
class Contents:
    header: dict | None
    changes: list[Entry]  # one per seq, in seq order
    extra: list[dict]  # confirm records and other typed lines
    problems: list[str] = field(default_factory=list)  # "line N: why", for lines that were not usable

    @property
    def ended(self) -> bool:
        """Whether apply closed the journal (an `end` line): otherwise it may be incomplete."""
        return any(e.get("type") == "end" for e in self.extra)

    def steps(self) -> dict[int, dict]:
        """seq -> the change apply announced for it (from `steps` lines; malformed ones skipped)."""
        out: dict[int, dict] = {}
        for entry in self.extra:
            listed = entry.get("changes") if entry.get("type") == "steps" else None
            first = entry.get("first")
            if not isinstance(listed, list) or not isinstance(first, int) or isinstance(first, bool):
                continue
            for offset, change in enumerate(listed[:MAX_LINES]):
                if isinstance(change, dict):
                    out[first + offset] = change
        return out

    @property
    def outstanding(self) -> bool:
        """Whether some change is still applied (or in the middle of being applied)."""
        return any(c.get("state") in ("started", "applied", "failed") for c in self.changes)


class Journal:
    def __init__(self, system: System, path: str):
        self.system = system
        self.path = path  # inside the system's root

    @property
    def host(self) -> str:
        return self.system.root.host_path(self.path)

    @classmethod
    def create(cls, system: System, header: dict) -> Journal:
        now = time.time()
        name = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now)) + f".{int(now % 1 * 1e6):06d}-{os.getpid()}.jsonl"
        try:
            journal = cls(system, f"{system.journal_dir}/{name}")
            os.makedirs(os.path.dirname(journal.host), exist_ok=True)
            fd = os.open(journal.host, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            os.close(fd)
        except (OSError, Unavailable) as e:
            reason = e.reason if isinstance(e, Unavailable) else e.strerror
            raise TuneError(f"{system.journal_dir}: cannot create a journal there: {reason}") from e
        journal.record({"type": "header", **header})
        return journal

    @classmethod
    def all(cls, system: System) -> list[Journal]:
        """This system's journals, oldest first."""
        try:
            names = [n for n in system.root.listdir(system.journal_dir) if NAME.fullmatch(n)]
        except Unavailable:
            names = []
        return [cls(system, f"{system.journal_dir}/{n}") for n in sorted(names)]

    @classmethod
    def latest(cls, system: System) -> Journal:
        """The newest journal that records a change: an empty one (an apply that found nothing to
        change, or was refused) never hides the one that holds changes."""
        journals = cls.all(system)
        if not journals:
            raise TuneError(f"no journal in {system.journal_dir}: nothing was applied here")
        for journal in reversed(journals):
            try:
                contents = journal.read()
            except TuneError:
                return journal  # unreadable: the newest, so the command names what is wrong with it
            if contents.changes or contents.problems or contents.steps():
                return journal
        return journals[-1]

    def others_outstanding(self) -> list[Journal]:
        """The system's other journals that still hold applied changes."""
        found = []
        for journal in Journal.all(self.system):
            if journal.path == self.path:
                continue
            try:
                if journal.read().outstanding:
                    found.append(journal)
            except TuneError:
                continue
        return found

    @classmethod
    def at(cls, system: System, path: str) -> Journal:
        journal = cls(system, path)
        if not system.root.exists(path):
            raise TuneError(f"{path}: no such journal")
        return journal

    def record(self, entry: dict) -> None:
        """Append one line and fsync it; only ever to a regular file nastune created. A line that
        cannot be written whole is cut off again, so the journal never ends in half a line."""
        try:
            fd = os.open(self.host, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
        except (OSError, Unavailable) as e:
            reason = e.reason if isinstance(e, Unavailable) else e.strerror
            raise TuneError(f"{self.path}: cannot write the journal: {reason}") from e
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
                raise TuneError(f"{self.path}: not a journal nastune can write (not a plain file)")
            data = (dumps(entry, indent=None) + "\n").encode()
            try:
                while data:
                    data = data[os.write(fd, data) :]
                os.fsync(fd)
            except OSError as e:
                os.ftruncate(fd, info.st_size)
                raise TuneError(f"{self.path}: cannot write the journal: {e.strerror}") from e
        finally:
            os.close(fd)

    def read(self) -> Contents:
        """Every usable line; the others are named in `problems`. Raises only when the journal
        as a whole cannot be read (missing, not a file, too large, not a nastune journal)."""
        try:
            text = self.system.root.read(self.path, limit=MAX_BYTES)
        except Unavailable as e:
            raise TuneError(f"{self.path}: cannot read the journal: {e.reason}") from e
        raw = text.splitlines()
        if len(raw) > MAX_LINES:
            raise TuneError(f"{self.path}: {len(raw)} lines, more than a journal nastune writes ({MAX_LINES})")
        contents = Contents(None, [], [])
        merged: dict[int, Entry] = {}
        for n, line in enumerate(raw, 1):
            try:
                entry = loads(line, f"line {n}")
                if not isinstance(entry, dict):
                    raise UsageError(f"line {n}: not a JSON object")
            except ValueError as e:
                if n < len(raw) or text.endswith("\n"):
                    contents.problems.append(f"{e}")
                continue  # a torn last line is what a kill during a write leaves: nothing to report
            kind = entry.get("type")
            if n == 1:
                if kind != "header":
                    raise TuneError(f"{self.path}: not a nastune journal (line 1 is not its header)")
                contents.header = entry
            elif kind == "change":
                seq, state = entry.get("seq"), entry.get("state")
                if not isinstance(seq, int) or isinstance(seq, bool) or not 0 < seq < 1_000_000:
                    contents.problems.append(f"line {n}: a change without a valid seq")
                elif state not in STATES:
                    contents.problems.append(f"line {n}: unknown state {str(state)[:40]!r}")
                else:
                    merged.setdefault(seq, Entry(seq=seq, state=state, lines=[]))
                    _merge(merged[seq], entry, n)
            else:
                contents.extra.append(entry)
        if contents.header is None:
            raise TuneError(f"{self.path}: not a nastune journal (empty)")
        contents.changes = [merged[k] for k in sorted(merged)]
        return contents

    def header(self) -> dict:
        header = self.read().header
        assert header is not None
        return header

    def changes(self) -> list[Entry]:
        return self.read().changes

    def has(self, kind: str) -> bool:
        return any(e.get("type") == kind for e in self.read().extra)


def _merge(into: Entry, line: dict, n: int) -> None:
    """A change line's state and what it recorded, over what earlier lines of its seq said."""
    into["state"], into["lines"] = line["state"], [*into["lines"], n]
    for key in ("change", "before", "after", "error"):
        if key in line:
            into[key] = line[key]


def find(host: System, path: str | None = None, lab: System | None = None) -> Journal:
    """The journal to act on, bound to the system it was applied to: `path`, or the newest of
    `host`'s and (when a lab is up, `lab`) the lab's."""
    try:
        if path:
            found = Journal.at(host, path)
            if lab is not None and found.path.startswith(lab.journal_dir + "/"):
                return Journal(lab, found.path)  # the lab's journals live in its directory
            return found
        candidates = []
        for system in [s for s in (host, lab) if s is not None]:
            try:
                candidates.append(Journal.latest(system))
            except TuneError:
                continue
    except Unavailable as e:
        raise TuneError(str(e)) from e
    if not candidates:
        raise TuneError("no journal: nothing was applied here (or the lab it was applied to is gone)")
    return max(candidates, key=lambda j: j.path.rsplit("/", 1)[-1])  # named by the time apply started
