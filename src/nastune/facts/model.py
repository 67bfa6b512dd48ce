"""Typed facts: each value carries the file or command it came from, or why it is unknown."""

from __future__ import annotations

from typing import Generic, TypeVar

from pydantic import BaseModel, ConfigDict

T = TypeVar("T")


class Fact(BaseModel, Generic[T]):
    """One observed value. `unknown` says why `value` is missing (never a crash)."""

    model_config = ConfigDict(frozen=True)

    value: T | None = None
    source: str
    unknown: str | None = None

    @property
    def known(self) -> bool:
        return self.unknown is None

    @property
    def known_value(self) -> T | None:
        """The value where it is known, typed for a check that it is there (a known value may be None)."""
        return self.value if self.known else None

    @classmethod
    def missing(cls, source: str, reason: str) -> Fact[T]:
        return cls(source=source, unknown=reason)


class Warning_(BaseModel):
    """Malformed input noticed while collecting: the file (and line) and what is wrong."""

    source: str
    line: int | None = None
    message: str

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line else self.source
        return f"{where}: {self.message}"


class Section(BaseModel):
    """Base of every area's facts."""

    model_config = ConfigDict(extra="forbid")
