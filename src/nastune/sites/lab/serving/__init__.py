"""The lab's servers, one object per protocol (sites/lab/serving/<protocol>.py defining SERVING),
found by the protocol's name: a new protocol is its module in nastune.protocols (what a client
measures) and its module here (what serves it in the lab)."""

from __future__ import annotations

from nastune import plugins
from nastune.sites.lab.serving.base import Serving


def _found() -> dict[str, Serving]:
    servers = [module.SERVING for module in plugins.submodules(__name__, __path__, {"base"})]
    return {serving.protocol.name: serving for serving in servers}


SERVING: dict[str, Serving] = _found()

__all__ = ["SERVING", "Serving"]
