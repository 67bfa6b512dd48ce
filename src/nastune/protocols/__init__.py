"""The file-serving protocols, one object each, found by name (the URL scheme). A new protocol
is one module here defining a Protocol subclass and its instance; PROTOCOLS finds it."""

from __future__ import annotations

from nastune.protocols import ftp, nfs, smb
from nastune.protocols.base import Protocol

PROTOCOLS: dict[str, Protocol] = {
    p.name: p for module in (smb, nfs, ftp) for p in vars(module).values() if isinstance(p, Protocol)
}

__all__ = ["PROTOCOLS", "Protocol"]
