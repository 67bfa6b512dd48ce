"""Extensions found by name: an installed Python package that names its modules under nastune's
entry-point groups adds settings (a knob and the range autotune searches) and rules, and nothing
in nastune changes (the way pytest and Ansible find their plugins). The registries they join are
filled when first read, after every module of nastune is imported."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import cache
from importlib.metadata import entry_points
from types import ModuleType
from typing import TypeVar

from nastune.errors import Failure

SETTINGS = "nastune.settings"  # modules holding Knob classes and a TUNABLES list
RULES = "nastune.rules"  # modules holding a RULE, with its .md beside

V = TypeVar("V")


class PluginError(Failure):
    """An installed extension that cannot be loaded; names its package's entry point."""


@cache
def modules(group: str) -> tuple[ModuleType, ...]:
    """The modules the installed packages name in `group`, imported, in the order of their names."""
    found = []
    for point in sorted(entry_points(group=group), key=lambda p: p.name):
        try:
            module = point.load()
        except Exception as e:  # any error of a third party's import: named, not a traceback
            raise PluginError(f"the extension {point.name} ({point.value}) in {group} does not load: {e}") from e
        if not isinstance(module, ModuleType):
            raise PluginError(f"the extension {point.name} in {group} names {point.value}, which is not a module")
        found.append(module)
    return tuple(found)


_REGISTRIES: list[Registry] = []


class Registry(Mapping[str, V]):
    """A read-only mapping by name, collected on first use (built-in objects and the extensions')."""

    def __init__(self, collect: Callable[[], dict[str, V]]):
        self._collect = collect
        self._found: dict[str, V] | None = None
        _REGISTRIES.append(self)

    def _all(self) -> dict[str, V]:
        if self._found is None:
            self._found = self._collect()
        return self._found

    def __getitem__(self, name: str) -> V:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


def reset() -> None:
    """Find the extensions again (a package installed while nastune runs: its tests)."""
    modules.cache_clear()
    for registry in _REGISTRIES:
        registry._found = None
