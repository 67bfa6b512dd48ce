"""Which boot-time file sets a sysctl last, so that nastune never persists a value that another
file silently overrides at boot (and never fights the tool that wrote that file). The files and
their order are conf/sysctl.py's (sysctl.d(5))."""

from __future__ import annotations

from nastune.conf import sysctl as sysctl_conf
from nastune.conf.sysctl import Setting
from nastune.root import Unavailable
from nastune.tune.system import System


def files(system: System, ours: str | None = None) -> list[str]:
    def names(directory: str) -> list[str]:
        try:
            return system.root.listdir(directory)
        except Unavailable:
            return []

    return sysctl_conf.order(names, system.root.exists, ours)


def settings(system: System, ours: str | None = None) -> dict[str, list[Setting]]:
    """Every file line that sets each key, in the order they apply (the last one wins)."""
    out: dict[str, list[Setting]] = {}
    for path in files(system, ours):
        for name, setting in sysctl_conf.parse(system.read(path) or "", path)[0].items():
            out.setdefault(name, []).append(setting)
    return out


def overridden(system: System, ours: str, keys: list[str]) -> list[str]:
    """For each of `keys`, why a value persisted in `ours` would not be the one set at boot:
    a file that applies after it sets the same key."""
    rank = {path: i for i, path in enumerate(files(system, ours))}
    found = settings(system, ours)
    why = []
    for key in keys:
        later = [s for s in found.get(sysctl_conf.key(key), []) if rank[s.path] > rank[ours]]
        if later:
            last = later[-1]
            why.append(f"{key}: {last.path} line {last.line} sets it to {last.value} and is read after {ours} at boot")
    return why
