"""The domains a tunable's values come from, what autotune may search for a setting: powers of
two or steps between bounds (ordered, so a rule's minimum snaps to the next value up) and a list
of choices."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from optuna.trial import Trial

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30


class Ordered:
    """A domain of whole numbers in increasing order."""

    def values(self) -> list[int]:
        raise NotImplementedError

    def snap(self, value: int) -> int | None:
        """The smallest value of the domain at least `value` (a rule's minimum, met)."""
        return next((v for v in self.values() if v >= value), None)

    def nearest(self, value: object) -> int | None:
        """The domain's value closest to `value` when `value` lies between its ends (a system's
        own value off its steps: an md array reads ahead 2560 KiB), else None."""
        points = self.values()
        if isinstance(value, bool) or not isinstance(value, int) or not points[0] <= value <= points[-1]:
            return None
        return min(points, key=lambda v: abs(v - value))


@dataclass(frozen=True)
class PowersOfTwo(Ordered):
    """Whole numbers 2**k between two powers of two: a log scale in doubling steps."""

    low: int
    high: int
    unit: str

    def values(self) -> list[int]:
        return [1 << k for k in range(self.low.bit_length() - 1, self.high.bit_length())]

    def check(self, value: object) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{value!r} is not a whole number of {self.unit}"
        if not self.low <= value <= self.high or value & (value - 1):
            return f"{value} is not a power of two from {self.low} to {self.high} {self.unit}"
        return None

    def suggest(self, trial: Trial, name: str) -> int:
        exponent = trial.suggest_int(name, self.low.bit_length() - 1, self.high.bit_length() - 1)
        return 1 << exponent

    def param(self, value: int) -> int:
        """What Optuna stores for `value` (the exponent)."""
        return value.bit_length() - 1

    def describe(self) -> str:
        return f"{self.low}..{self.high} {self.unit}, powers of two"


@dataclass(frozen=True)
class Steps(Ordered):
    """Whole numbers from low to high in equal steps."""

    low: int
    high: int
    step: int
    unit: str

    def values(self) -> list[int]:
        return list(range(self.low, self.high + 1, self.step))

    def check(self, value: object) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{value!r} is not a whole number"
        if value not in self.values():
            return f"{value} is not one of {self.low}..{self.high} in steps of {self.step} {self.unit}"
        return None

    def suggest(self, trial: Trial, name: str) -> int:
        return trial.suggest_int(name, self.low, self.high, step=self.step)

    def param(self, value: int) -> int:
        return value

    def describe(self) -> str:
        return f"{self.low}..{self.high} {self.unit} in steps of {self.step}"


@dataclass(frozen=True)
class Choice:
    options: tuple

    def values(self) -> list:
        return list(self.options)

    def check(self, value: object) -> str | None:
        return None if value in self.options else f"{value!r} is not one of {', '.join(map(str, self.options))}"

    def suggest(self, trial: Trial, name: str) -> Any:
        return trial.suggest_categorical(name, self.options)

    def param(self, value: Any) -> Any:
        return value

    def describe(self) -> str:
        return " | ".join(map(str, self.options))

    def snap(self, value: int) -> object | None:
        return value if value in self.options else None

    def nearest(self, value: Any) -> Any:
        return self.snap(value)
