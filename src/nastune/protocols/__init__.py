"""The file-serving protocols, one object each, found by name (the URL scheme). A new protocol
is one module here defining a Protocol subclass and its instance: PROTOCOLS finds it (its tools' Debian
packages are in packages.py's table of every tool's package)."""

from __future__ import annotations

from nastune import plugins
from nastune.protocols.base import Protocol

PARTS = {"base", "client", "nfsops"}  # modules of this package that are not protocols


def _found() -> dict[str, Protocol]:
    found: dict[str, Protocol] = {}
    for module in plugins.submodules(__name__, __path__, PARTS):
        found |= {p.name: p for p in vars(module).values() if isinstance(p, Protocol)}
    return dict(sorted(found.items(), key=lambda item: item[1].order))


PROTOCOLS: dict[str, Protocol] = _found()

__all__ = ["PROTOCOLS", "Protocol"]
