"""Which boot-time file sets a sysctl last, so that nastune never persists a value that another
file silently overrides at boot (and never fights the tool that wrote that file).

The order is sysctl.d(5)'s, which systemd-sysctl and procps's `sysctl --system` share: every
*.conf in /etc/sysctl.d, /run/sysctl.d, /usr/local/lib/sysctl.d, /usr/lib/sysctl.d and
/lib/sysctl.d, where a file name in an earlier directory hides the same name in a later one;
the files apply in the lexical order of their names, a later one overriding an earlier one's
key. procps then reads /etc/sysctl.conf last (Debian also links it as 99-sysctl.conf). A key
may be written with '/' for '.', and a leading '-' only silences errors."""

from __future__ import annotations

from dataclasses import dataclass

from nastune.root import Unavailable
from nastune.tune.system import System

DIRS = ("/etc/sysctl.d", "/run/sysctl.d", "/usr/local/lib/sysctl.d", "/usr/lib/sysctl.d", "/lib/sysctl.d")
LAST = "/etc/sysctl.conf"


@dataclass(frozen=True)
class Setting:
    path: str
    line: int
    value: str


def files(system: System, ours: str | None = None) -> list[str]:
    """The boot-time sysctl files in the order they apply; `ours` (in /etc/sysctl.d) counted
    as present, as it will be once written."""
    chosen: dict[str, str] = {ours.rsplit("/", 1)[1]: ours} if ours else {}
    for directory in DIRS:
        try:
            names = system.root.listdir(directory)
        except Unavailable:
            continue
        for name in names:
            if name.endswith(".conf") and name not in chosen:
                chosen[name] = f"{directory}/{name}"
    ordered = [chosen[name] for name in sorted(chosen)]
    return [*ordered, LAST] if system.root.exists(LAST) else ordered


def _key(text: str) -> str:
    return text.strip().lstrip("-").strip().replace("/", ".")


def settings(system: System, ours: str | None = None) -> dict[str, list[Setting]]:
    """Every file line that sets each key, in the order they apply (the last one wins)."""
    out: dict[str, list[Setting]] = {}
    for path in files(system, ours):
        text = system.read(path) or ""
        for n, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line or line[0] in "#;" or "=" not in line:
                continue
            key, _, value = line.partition("=")
            out.setdefault(_key(key), []).append(Setting(path, n, value.strip()))
    return out


def overridden(system: System, ours: str, keys: list[str]) -> list[str]:
    """For each of `keys`, why a value persisted in `ours` would not be the one set at boot:
    a file that applies after it sets the same key."""
    rank = {path: i for i, path in enumerate(files(system, ours))}
    found = settings(system, ours)
    why = []
    for key in keys:
        later = [s for s in found.get(_key(key), []) if rank[s.path] > rank[ours]]
        if later:
            last = later[-1]
            why.append(f"{key}: {last.path} line {last.line} sets it to {last.value} and is read after {ours} at boot")
    return why
