"""Objects found by name: nastune's own catalogs (a package of one module per rule, protocol or
lab server) and extensions. An installed Python package that names its modules under nastune's
entry-point groups adds settings (a knob and the range autotune searches) and rules, and nothing
in nastune changes (the way pytest and Ansible find their plugins). The registries they join are
filled when first read, after every module of nastune is imported.

What the installed packages declare is kept in a cache file, as stevedore keeps it for OpenStack
("stevedore: Manage dynamic plugins for Python applications", OpenStack, its _cache module,
https://docs.openstack.org/stevedore/latest/): reading every package's metadata (importlib.metadata)
was a tenth of what `nastune explain` took to start. The cache is keyed by each import path and
its modification time, which installing or removing a package changes."""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import sys
import zlib
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import TypeVar

from nastune.errors import Failure

SETTINGS = "nastune.settings"  # modules holding Knob classes and a TUNABLES list
RULES = "nastune.rules"  # modules holding a RULE, with its .md beside

V = TypeVar("V")


class PluginError(Failure):
    """An installed extension that cannot be loaded; names its package's entry point."""


def submodules(package: str, path: Iterable[str], parts: Collection[str] = ()) -> list[ModuleType]:
    """Each module of one of nastune's own packages (its `__name__` and `__path__`), imported in
    the order of their names, but for `parts`, which hold what they share: the one place besides
    the extensions where a module is imported by its name."""
    names = sorted(m.name for m in pkgutil.iter_modules(path) if m.name not in parts)
    return [importlib.import_module(f"{package}.{name}") for name in names]


@cache
def modules(group: str) -> tuple[ModuleType, ...]:
    """The modules the installed packages name in `group`, imported, in the order of their names."""
    found = []
    for name, value in sorted(declared()[group]):
        try:
            module = _load(value)
        except Exception as e:  # any error of a third party's import: named, not a traceback
            raise PluginError(f"the extension {name} ({value}) in {group} does not load: {e}") from e
        if not isinstance(module, ModuleType):
            raise PluginError(f"the extension {name} in {group} names {value}, which is not a module")
        found.append(module)
    return tuple(found)


def _load(value: str) -> object:
    """What an entry point's value names (`module` or `module:attribute`), as EntryPoint.load reads it."""
    module, _, attributes = value.partition(":")
    found: object = importlib.import_module(module.strip())
    for attribute in filter(None, attributes.strip().split(".")):
        found = getattr(found, attribute)
    return found


@cache
def declared() -> dict[str, list[tuple[str, str]]]:
    """Each group's (name, value) pairs the installed packages declare: from the cache file while
    the import paths are as they were when it was written, else read anew and written there."""
    key = _paths()
    cached = _cache_file()
    try:
        held = json.loads(cached.read_text())
        if held["paths"] == key:
            return {group: [(n, v) for n, v in held["points"][group]] for group in (SETTINGS, RULES)}
    except (OSError, ValueError, KeyError, TypeError):
        pass  # no cache yet, or another version's: read the packages
    from importlib.metadata import entry_points  # lazy: the slow part this cache spares

    points = {group: [(p.name, p.value) for p in entry_points(group=group)] for group in (SETTINGS, RULES)}
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        written = cached.with_name(f"{cached.name}.{os.getpid()}")
        written.write_text(json.dumps({"paths": key, "points": points}))
        written.replace(cached)  # whole or not at all, for a nastune started beside this one
    except OSError:
        pass  # a read-only home: the next start reads the packages again
    return points


def _paths() -> list[list]:
    """Each import path with its modification time (0: not there)."""
    stamps: list[list] = []
    for entry in sys.path:
        try:
            stamps.append([entry, os.stat(entry or ".").st_mtime_ns])
        except OSError:
            stamps.append([entry, 0])
    return stamps


def _cache_file() -> Path:
    """One file per Python installation, in the user's cache directory (XDG's)."""
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(home) / "nastune" / f"entry-points-{zlib.crc32(sys.prefix.encode()):08x}.json"


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
    declared.cache_clear()
    for registry in _REGISTRIES:
        registry._found = None
