"""NFS-Ganesha (FSAL VFS, v3 and v4) serving the lab's share, with rpcbind in a private mount
namespace whose /run is the lab's own."""

from __future__ import annotations

from pathlib import Path

from nastune.lab import network
from nastune.lab.procs import private_mounts, spawn, wait_for, write_file
from nastune.lab.scenario import Scenario
from nastune.lab.sh import run
from nastune.lab.state import Process, State
from nastune.login import Login
from nastune.protocols.nfs import NFS
from nastune.sites.lab.serving.base import Serving


def ganesha_conf(directory: Path, share: str, scenario: Scenario) -> str:
    export = {
        "Export_Id": 1,
        "Path": share,
        "Pseudo": f"/{NFS.lab_share}",
        "Access_Type": "RW",
        "Squash": "No_Root_Squash",
        "Protocols": "3, 4",
        "Transports": "TCP",
        "SecType": "sys",
        **scenario.ganesha_export,
    }
    body = "\n".join(f"    {k} = {v};" for k, v in export.items())
    return (
        f"NFS_CORE_PARAM {{\n    Protocols = 3, 4;\n    Mount_Path_Pseudo = true;\n"
        f"    Bind_addr = {network.NAS_IP};\n}}\n"
        f"NFSV4 {{\n    RecoveryBackend = fs;\n    RecoveryRoot = {directory / 'ganesha' / 'recovery'};\n"
        f"    Graceless = true;\n}}\n"
        f"EXPORT {{\n{body}\n    FSAL {{\n        Name = VFS;\n    }}\n}}\n"
    )


class NfsServing(Serving):
    protocol = NFS

    def start(
        self, state: State, directory: Path, share: str, scenario: Scenario, cgroups: list[str], login: Login
    ) -> Process:
        logs = directory / "logs"
        enter = private_mounts(state, "mount-namespace", logs)
        run(enter + ["mount", "-t", "tmpfs", "lab-run", "/run"])
        run(enter + ["mkdir", "-p", "/run/rpcbind"])
        rpcbind = spawn(state, "rpcbind", enter + ["rpcbind", "-f", "-w"], logs / "rpcbind.out", cgroups)
        wait_for("rpcbind", rpcbind, lambda: run(enter + ["rpcinfo", "-p"], check=False).returncode == 0, 10)
        (directory / "ganesha" / "recovery").mkdir(parents=True, exist_ok=True)
        conf = write_file(directory / "ganesha.conf", ganesha_conf(directory, share, scenario))
        argv = [
            "ganesha.nfsd",
            "-F",
            "-f",
            str(conf),
            "-L",
            str(logs / "ganesha.log"),
            "-p",
            str(directory / "ganesha" / "ganesha.pid"),
            "-N",
            "NIV_EVENT",
        ]
        entry = spawn(state, self.protocol.server, enter + argv, logs / "ganesha.out", cgroups)
        return self.ready(entry, None, 60)


SERVING = NfsServing()
