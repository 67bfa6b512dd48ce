"""The lab's servers, one object per protocol (sites/lab/serving/<protocol>.py defining SERVING),
found by the protocol's name: a new protocol is its module in nastune.protocols (what a client
measures) and its module here (what serves it in the lab)."""

from __future__ import annotations

import importlib
import pkgutil

from nastune.sites.lab.serving.base import Serving


def _found() -> dict[str, Serving]:
    found: dict[str, Serving] = {}
    for module in pkgutil.iter_modules(__path__):
        if module.name != "base":
            serving = importlib.import_module(f"{__name__}.{module.name}").SERVING
            found[serving.protocol.name] = serving
    return found


SERVING: dict[str, Serving] = _found()

__all__ = ["SERVING", "Serving"]
