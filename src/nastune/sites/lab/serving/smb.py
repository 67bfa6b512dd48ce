"""Samba's smbd serving the lab's share, its configuration and state under the lab's directory."""

from __future__ import annotations

from pathlib import Path

from nastune.conf import samba
from nastune.lab import network
from nastune.lab.procs import spawn, write_file
from nastune.lab.scenario import Scenario
from nastune.lab.sh import LabError, in_ns, run
from nastune.lab.state import Process, State
from nastune.login import Login
from nastune.protocols.smb import SMB
from nastune.sites.lab.serving.base import Serving

SAMBA_DIRS = ("private", "lock", "state", "cache", "pid", "ncalrpc")
USER_MAP = "usermap"  # the lab's one SMB user is root on the NAS, as `force user` makes every user


def samba_conf(directory: Path, share: str, scenario: Scenario) -> str:
    state = directory / "samba"
    base = {
        "workgroup": "LAB",
        "server role": "standalone server",
        "map to guest": "Never",  # as on a NAS whose shares need a login
        "username map": str(directory / USER_MAP),
        "bind interfaces only": "yes",
        "interfaces": f"{network.NAS_IP}/24",
        "smb ports": "445",
        "disable netbios": "yes",
        "load printers": "no",
        "printing": "bsd",
        "printcap name": "/dev/null",
        "disable spoolss": "yes",
        "log file": str(state / "log.smbd"),
        "log level": "1",
        **{f"{d} dir" if d in ("private", "ncalrpc") else f"{d} directory": str(state / d) for d in SAMBA_DIRS},
        **scenario.samba,
    }
    share_params = {"path": share, "read only": "no", "guest ok": "no", "force user": "root", **scenario.samba_share}
    return samba.written({"global": base, SMB.lab_share: share_params})


class SmbServing(Serving):
    protocol = SMB

    def start(
        self, state: State, directory: Path, share: str, scenario: Scenario, cgroups: list[str], login: Login
    ) -> Process:
        for d in SAMBA_DIRS:
            (directory / "samba" / d).mkdir(parents=True, exist_ok=True)
        write_file(directory / USER_MAP, f"root = {login.user}\n")
        conf = write_file(directory / "smb.conf", samba_conf(directory, share, scenario))
        parsed = run(["testparm", "-s", str(conf)], check=False)
        if parsed.returncode != 0:
            raise LabError(f"{conf}: Samba rejects the generated configuration: {parsed.stderr.strip()[-300:]}")
        secret = login.password.get_secret_value()  # pdbedit reads it twice on its standard input
        run(["pdbedit", "-s", str(conf), "-a", "-u", "root", "-t"], input=f"{secret}\n{secret}\n")
        entry = spawn(
            state,
            self.protocol.server,
            in_ns(network.NAS_NS, ["smbd", "--foreground", "--no-process-group", "-s", str(conf)]),
            directory / "logs" / "smbd.out",
            cgroups,
        )
        return self.ready(entry, login)


SERVING = SmbServing()
