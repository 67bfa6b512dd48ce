"""What a collector works with: the root, typed readers that never raise, and warnings."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from nastune.facts.model import Fact, Warning_
from nastune.root import CommandResult, Root, Unavailable

T = TypeVar("T")


class NoValue(Exception):
    """Raised by a parser when well-formed content means 'no value' (a speed of -1)."""


class Context:
    """A root plus the warnings collected so far, and options such as freezing XFS."""

    def __init__(self, root: Root, xfs_fragmentation: bool = False):
        self.root = root
        self.xfs_fragmentation = xfs_fragmentation
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
        try:
            return self.root.listdir(path)
        except Unavailable:
            return []

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
        except (ValueError, IndexError, KeyError) as e:
            self.warn(result.source, f"unexpected output: {e}")
            return Fact.missing(result.source, f"unparsable output: {e}")


def cpu_list(text: str) -> list[int]:
    """Parse a kernel CPU list such as '0-3,8,10-11' (empty means none)."""
    cpus: list[int] = []
    for part in text.strip().split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        start = int(lo)
        end = int(hi) if hi else start
        if end < start:
            raise ValueError(f"bad CPU range {part!r}")
        cpus.extend(range(start, end + 1))
    return cpus


def integer(text: str) -> int:
    return int(text.strip())
