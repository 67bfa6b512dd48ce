"""Making a daemon take up an edited configuration: Samba reloads, Ganesha restarts, the
kernel NFS server re-exports. On the lab, the lab's own servers; on a tree, nothing runs."""

from __future__ import annotations

import shutil

from nastune.tune.system import System, TuneError


def reload(system: System, service: str, log=print) -> str:
    if not system.live:
        return f"{service}: not reloaded (not a live system)"
    if service == "samba":
        from nastune.tune.knobs import samba_path

        system.run(["smbcontrol", "-s", samba_path(system), "smbd", "reload-config"], what="reload Samba")
        return "samba: configuration reloaded (new connections use it)"
    if service == "ganesha":
        if system.lab_dir is not None:
            from nastune.lab.lab import Lab, LabError

            try:
                Lab(system.lab_dir).restart("ganesha")
            except LabError as e:
                raise TuneError(f"restart the lab's NFS-Ganesha: {e}") from e
        elif shutil.which("systemctl"):
            system.run(["systemctl", "restart", "nfs-ganesha"], what="restart NFS-Ganesha")
        else:
            raise TuneError("restart NFS-Ganesha: no systemctl here; restart it by hand")
        return "ganesha: restarted (clients reconnect)"
    if service == "exportfs":
        system.run(["exportfs", "-ra"], what="re-export NFS")
        return "exportfs: exports reloaded"
    raise TuneError(f"unknown service {service!r}")
