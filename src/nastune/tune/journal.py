"""The journal: one JSON line per step, fsynced before the step's effect, so that rollback
knows every original value even when apply was killed at any point.

A journal is read as untrusted input (a crash, a full disk or a person can leave it torn or
edited): it is read through the system's Root with a size bound, every line is checked, and
the lines that cannot be used are reported with their number instead of stopping the reader."""

from __future__ import annotations

import os
import re
import stat
import time
from dataclasses import dataclass, field

from nastune.jsonfile import dumps, loads
from nastune.root import Unavailable
from nastune.tune.system import System, TuneError

MAX_BYTES = 16 * 1024 * 1024
MAX_LINES = 10_000  # a plan of every knob with persistence journals well under 200 lines
NAME = re.compile(r"\d{8}T\d{6}(\.\d{6})?-\d+\.jsonl")  # microseconds: an A/B run applies twice a second
STATES = ("started", "applied", "failed", "rolled_back")


@dataclass
class Contents:
    header: dict | None
    changes: list[dict]  # merged per seq: change, before, latest state, and the line numbers
    extra: list[dict]  # confirm records and other typed lines
    problems: list[str] = field(default_factory=list)  # "line N: why", for lines that were not usable


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
        journal = cls(system, f"{system.journal_dir}/{name}")
        os.makedirs(os.path.dirname(journal.host), exist_ok=True)
        fd = os.open(journal.host, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        os.close(fd)
        journal.record({"type": "header", **header})
        return journal

    @classmethod
    def latest(cls, system: System) -> Journal:
        try:
            names = [n for n in system.root.listdir(system.journal_dir) if NAME.fullmatch(n)]
        except Unavailable:
            names = []
        if not names:
            raise TuneError(f"no journal in {system.journal_dir}: nothing was applied here")
        return cls(system, f"{system.journal_dir}/{max(names)}")

    @classmethod
    def at(cls, system: System, path: str) -> Journal:
        journal = cls(system, path)
        if not system.root.exists(path):
            raise TuneError(f"{path}: no such journal")
        return journal

    def mtime(self) -> float:
        try:
            return os.lstat(self.host).st_mtime
        except (OSError, Unavailable):
            return 0.0

    def record(self, entry: dict) -> None:
        """Append one line and fsync it; only ever to a regular file nastune created."""
        try:
            fd = os.open(self.host, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError as e:
            raise TuneError(f"{self.path}: cannot write the journal: {e.strerror}") from e
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
                raise TuneError(f"{self.path}: not a journal nastune can write (not a plain file)")
            os.write(fd, (dumps(entry, indent=None) + "\n").encode())
            os.fsync(fd)
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
        merged: dict[int, dict] = {}
        for n, line in enumerate(raw, 1):
            try:
                entry = loads(line, f"line {n}")
                if not isinstance(entry, dict):
                    raise ValueError(f"line {n}: not a JSON object")
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
                    merged.setdefault(seq, {"lines": []}).update(entry)
                    merged[seq]["lines"].append(n)
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

    def changes(self) -> list[dict]:
        return self.read().changes

    def has(self, kind: str) -> bool:
        return any(e.get("type") == kind for e in self.read().extra)


def find(root: str, path: str | None = None, lab: bool = False) -> Journal:
    """The journal to act on, bound to the system it was applied to: `path`, or the newest of
    this root's and (on the live system) the running lab's; with `lab`, only the lab's."""
    from nastune.tune.system import for_root, lab_system

    host = for_root(root)
    try:
        if path:
            found = Journal.at(host, path)
            if found.header().get("lab") is True and root == "/":
                return Journal(lab_system(), found.path)
            if lab:
                raise TuneError(f"{found.path}: not a journal of the lab")
            return found
        systems = [lab_system()] if lab else [host]
        if root == "/" and not lab:
            try:
                systems.append(lab_system())
            except TuneError:
                pass
        candidates = []
        for system in systems:
            try:
                candidates.append(Journal.latest(system))
            except TuneError:
                continue
    except Unavailable as e:
        raise TuneError(str(e)) from e
    if not candidates:
        raise TuneError("no journal: nothing was applied here (or the lab it was applied to is gone)")
    return max(candidates, key=lambda j: j.mtime())
