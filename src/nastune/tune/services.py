"""Making a daemon take up an edited configuration: Samba reloads, Ganesha restarts, the
kernel NFS server re-exports. On the lab, the lab's own servers; on a tree, nothing runs."""

from __future__ import annotations

from collections.abc import Callable

from nastune.tune.knobs import samba_path
from nastune.tune.system import System, TuneError


def reload(system: System, service: str, log: Callable[[str], None] = print) -> str:
    if not system.live:
        return f"{service}: not reloaded (not a live system)"
    if service == "samba":
        system.run(["smbcontrol", "-s", samba_path(system), "smbd", "reload-config"], what="reload Samba")
        return "samba: configuration reloaded (new connections use it)"
    if service == "ganesha":
        system.restart("ganesha")
        return "ganesha: restarted (clients reconnect)"
    if service == "exportfs":
        system.run(["exportfs", "-ra"], what="re-export NFS")
        return "exportfs: exports reloaded"
    raise TuneError(f"unknown service {service!r}")
