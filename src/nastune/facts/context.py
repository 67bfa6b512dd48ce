"""What a collector works with: the root, typed readers that never raise, and warnings."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from nastune.facts.model import Fact, Warning_
from nastune.root import CommandResult, Root, Unavailable
from nastune.units import rate_text

T = TypeVar("T")


class NoValue(Exception):
    """Raised by a parser when well-formed content means 'no value' (a speed of -1)."""


FRAGMENTATION = ("sample", "exact")


@dataclass(frozen=True)
class Reading:
    """What a collection may do beyond reading files, and what its caller knows that the system
    cannot tell: XFS fragmentation measured on a sample of files ("sample", which never freezes
    or writes) or exactly with xfs_db ("exact", which freezes each file system for the reading;
    /, /usr and /var are sampled even then); the address clients reach the NAS at (the interface
    holding it is the NAS's link); the link's rate in bit/s (an inventory's nastune_link_rate,
    before shaping and nominal speed)."""

    fragmentation: str | None = None
    address: str | None = None
    link_bps: int | None = None

    def __post_init__(self) -> None:
        if self.fragmentation not in (None, *FRAGMENTATION):
            raise ValueError(f"fragmentation {self.fragmentation!r}: one of {', '.join(FRAGMENTATION)}")

    def knowing(self, address: str | None, link_bps: int | None) -> Reading:
        """This reading with what a site knows of its NAS's link, where the caller gave none."""
        return Reading(self.fragmentation, self.address or address, self.link_bps or link_bps)

    def args(self) -> list[str]:
        """The same reading as nastune's options (for a collection run elsewhere: the NAS, the lab)."""
        frag = {"sample": ["--xfs-fragmentation"], "exact": ["--xfs-fragmentation-exact"]}
        return (
            frag.get(self.fragmentation or "", [])
            + (["--address", self.address] if self.address else [])
            + (["--link-rate", rate_text(self.link_bps)] if self.link_bps else [])
        )


class Context:
    """A root plus the warnings collected so far, and what the reading may do and knows."""

    def __init__(self, root: Root, reading: Reading | None = None):
        self.root = root
        self.reading = reading or Reading()
        self.warnings: list[Warning_] = []
        self._cache: dict[str, str | Unavailable] = {}
        self._commands: dict[tuple[str, ...], CommandResult] = {}

    def warn(self, source: str, message: str, line: int | None = None) -> None:
        self.warnings.append(Warning_(source=source, line=line, message=message))

    def text(self, path: str) -> str | None:
        """A file's text, read once per collection; None if it cannot be read."""
        got = self._cache.get(path)
        if got is None:
            try:
                got = self.root.read(path)
            except Unavailable as e:
                got = e
                if "refused" in e.reason:  # a tree's file nastune will not read: the operator must know
                    self.warn(path, f"not read: {e.reason}")
            self._cache[path] = got
        return None if isinstance(got, Unavailable) else got

    def why(self, path: str) -> str:
        got = self._cache.get(path)
        return got.reason if isinstance(got, Unavailable) else "missing"

    def fact(self, path: str, parse: Callable[[str], T] = str.strip) -> Fact[T]:  # type: ignore[assignment]
        """A file's content parsed into a typed fact; unreadable or malformed content is unknown."""
        text = self.text(path)
        if text is None:
            return Fact.missing(path, self.why(path))
        try:
            return Fact(value=parse(text), source=path)
        except NoValue as e:
            return Fact.missing(path, str(e))
        except (ValueError, IndexError, KeyError) as e:
            self.warn(path, f"unexpected content {text.strip()[:60]!r}: {e}")
            return Fact.missing(path, f"malformed: {text.strip()[:60]!r}")

    def listdir(self, path: str) -> list[str]:
        """Names in a directory; a name that is not UTF-8 cannot be reported (or read back
        through JSON), so it is left out with a warning."""
        try:
            names = self.root.listdir(path)
        except Unavailable:
            return []
        kept = [n for n in names if n.isprintable() and not any("\udc80" <= c <= "\udcff" for c in n)]
        if len(kept) != len(names):
            self.warn(path, f"{len(names) - len(kept)} name(s) that are not printable UTF-8 were left out")
        return kept

    def run(self, argv: Sequence[str]) -> CommandResult:
        """A command's result, run (or replayed) at most once per collection."""
        key = tuple(argv)
        if key not in self._commands:
            self._commands[key] = self.root.run(key)
        return self._commands[key]

    def command_fact(self, argv: Sequence[str], parse: Callable[[str], T]) -> Fact[T]:
        """A command's stdout parsed into a typed fact; a failed or missing command is unknown."""
        result = self.run(argv)
        if not result.ok:
            return Fact.missing(result.source, result.reason)
        try:
            return Fact(value=parse(result.stdout), source=result.source)
        except (ValueError, IndexError, KeyError, TypeError, AttributeError) as e:  # output of any shape
            self.warn(result.source, f"unexpected output: {e}")
            return Fact.missing(result.source, f"unparsable output: {e}")


MAX_CPU = 8191  # the kernel's largest NR_CPUS


def cpu_list(text: str) -> list[int]:
    """Parse a kernel CPU list such as '0-3,8,10-11' (empty means none); ids beyond any
    kernel's CPU count are malformed, not a reason to allocate a billion-entry list."""
    cpus: list[int] = []
    for part in text.strip().split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        start = integer(lo, 0, MAX_CPU)
        end = integer(hi, 0, MAX_CPU) if hi else start
        if end < start:
            raise ValueError(f"bad CPU range {part!r}")
        cpus.extend(range(start, end + 1))
        if len(cpus) > MAX_CPU + 1:
            raise ValueError("more CPUs than any kernel has")
    return cpus


_DIGITS = re.compile(r"[0-9]{1,18}")
_INT = re.compile(r"[+-]?[0-9]{1,20}")
_FLOAT = re.compile(r"[+-]?(?:[0-9]{1,30}(?:\.[0-9]{0,30})?|\.[0-9]{1,30})(?:[eE][+-]?[0-9]{1,3})?")


def digits(text: str) -> bool:
    """Whether `text` is a whole number in ASCII digits of sane length: str.isdigit() also
    accepts superscripts and other scripts' digits, which int() then refuses or misreads."""
    return _DIGITS.fullmatch(text) is not None


def integer(text: str, low: int | None = None, high: int | None = None) -> int:
    """A whole number written in ASCII digits (no superscripts, no 5,000-digit values),
    optionally within [low, high]; ValueError otherwise."""
    stripped = text.strip()
    if not _INT.fullmatch(stripped):
        raise ValueError(f"not a whole number: {stripped[:40]!r}")
    value = int(stripped)
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{value} is out of range")
    return value


def number(text: str, low: float | None = None, high: float | None = None) -> float:
    """A finite decimal number (no nan, no 1e999), optionally within [low, high]."""
    stripped = text.strip()
    if not _FLOAT.fullmatch(stripped):
        raise ValueError(f"not a number: {stripped[:40]!r}")
    value = float(stripped)
    if not math.isfinite(value) or (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{stripped[:40]} is out of range")
    return value
