"""Every setting nastune changes, one module per family: each kind of knob as one object, found
by its kind (a declared read/write pair the executor reads back, its validation, what it needs,
the service to reload, how it persists and its doc), and in the same module the tunables that
autotune searches among that knob's values (a module's TUNABLES list). A new setting is a class
(and a tunable) in one of these modules, or an installed package's module named under the
nastune.settings entry point (nastune.plugins), which is read the same way: KNOBS and TUNABLES
find both."""

from __future__ import annotations

from types import ModuleType

from nastune import plugins
from nastune.rules.model import Change
from nastune.tune.knobs import daemons, irqbalance, kernel, network, storage, zfs
from nastune.tune.knobs.base import Knob, norm
from nastune.tune.knobs.daemons import ganesha_path, samba_path
from nastune.tune.knobs.tunable import Bound, Config, Tunable


def _modules() -> list[ModuleType]:
    return [kernel, network, storage, zfs, daemons, irqbalance, *plugins.modules(plugins.SETTINGS)]


def _knobs() -> dict[str, Knob]:
    found: dict[str, Knob] = {}
    for module in _modules():
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, Knob) and obj.__module__ == module.__name__ and obj.doc:
                found[obj.kind] = obj()
    return found


def _tunables() -> dict[str, Tunable]:
    return {t.name: t for module in _modules() for t in getattr(module, "TUNABLES", ())}


KNOBS: plugins.Registry[Knob] = plugins.Registry(_knobs)
TUNABLES: plugins.Registry[Tunable] = plugins.Registry(_tunables)


def risks(change: Change, current: object = None, read: bool = False) -> list[str]:
    """The guarantees `change` trades, judged by its knob from the value it writes and the one
    it replaces: `current` when `read` (the value apply found), else the plan's own record."""
    knob = KNOBS.get(change.knob)  # persist's boot files are no plan's knob: their values were judged
    return knob.trades(change, current if read else change.current) if knob else []


__all__ = ["KNOBS", "TUNABLES", "Bound", "Config", "Knob", "Tunable", "ganesha_path", "norm", "risks", "samba_path"]
