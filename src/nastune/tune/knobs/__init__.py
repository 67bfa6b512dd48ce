"""Every kind of knob as one object, found by its kind: a declared read/write pair (the executor
reads back every write), its validation, what it needs, the service to reload, how it persists
and its doc. A new knob is one class in one of these modules, or in an installed package's
module named under the nastune.settings entry point (nastune.plugins); KNOBS finds it."""

from __future__ import annotations

from nastune import plugins
from nastune.rules.model import Change
from nastune.tune.knobs import daemons, kernel, network, storage
from nastune.tune.knobs.base import Knob, norm
from nastune.tune.knobs.daemons import ganesha_path, samba_path


def _collect() -> dict[str, Knob]:
    found: dict[str, Knob] = {}
    for module in (kernel, network, storage, daemons, *plugins.modules(plugins.SETTINGS)):
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, Knob) and obj.__module__ == module.__name__ and obj.doc:
                found[obj.kind] = obj()
    return found


KNOBS: plugins.Registry[Knob] = plugins.Registry(_collect)


def risks(change: Change, current: object = None, read: bool = False) -> list[str]:
    """The guarantees `change` trades, judged by its knob from the value it writes and the one
    it replaces: `current` when `read` (the value apply found), else the plan's own record."""
    knob = KNOBS.get(change.knob)  # persist's boot files are no plan's knob: their values were judged
    return knob.trades(change, current if read else change.current) if knob else []


__all__ = ["KNOBS", "Knob", "ganesha_path", "norm", "risks", "samba_path"]
