"""SMB: Samba's smbd in the lab, smbclient as the client."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from nastune.lab import network
from nastune.lab.procs import client_ok, spawn, wait_for, write_file
from nastune.lab.scenario import Scenario
from nastune.lab.sh import LabError, in_ns, run
from nastune.protocols.base import Protocol
from nastune.protocols.client import BenchError, client_name, on_client, timed

SAMBA_DIRS = ("private", "lock", "state", "cache", "pid", "ncalrpc")


def samba_conf(directory: Path, share: str, scenario: Scenario) -> str:
    state = directory / "samba"
    base = {
        "workgroup": "LAB",
        "server role": "standalone server",
        "map to guest": "Bad User",
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
    share_params = {"path": share, "read only": "no", "guest ok": "yes", "force user": "root", **scenario.samba_share}
    lines = ["[global]"] + [f"   {k} = {v}" for k, v in base.items()]
    lines += ["", f"[{SMB.lab_share}]"] + [f"   {k} = {v}" for k, v in share_params.items()]
    return "\n".join(lines) + "\n"


class Smb(Protocol):
    name, title, server, service = "smb", "SMB (Samba)", "smbd", "samba"
    tools = ("smbclient",)
    server_tools = ("smbd", "testparm")
    lab_share = "data"
    share_var = "nastune_smb_share"
    port, processes, order = 445, ("smbd",), 1
    client_version = ("smbclient", ("smbclient", "--version"))
    packages: ClassVar[dict[str, str]] = {"smbclient": "smbclient", "smbd": "samba", "testparm": "samba-common-bin"}
    not_found = ("NT_STATUS_OBJECT_NAME_NOT_FOUND", "NT_STATUS_OBJECT_PATH_NOT_FOUND", "NT_STATUS_NO_SUCH_FILE")

    def check(self, host, share):
        return ["smbclient", "-N", f"//{host}/{share}", "-c", "ls"]

    def start_lab(self, state, directory, share, scenario, cgroups):
        for d in SAMBA_DIRS:
            (directory / "samba" / d).mkdir(parents=True, exist_ok=True)
        conf = write_file(directory / "smb.conf", samba_conf(directory, share, scenario))
        parsed = run(["testparm", "-s", str(conf)], check=False)
        if parsed.returncode != 0:
            raise LabError(f"{conf}: Samba rejects the generated configuration: {parsed.stderr.strip()[-300:]}")
        entry = spawn(
            state,
            self.server,
            in_ns(network.NAS_NS, ["smbd", "--foreground", "--no-process-group", "-s", str(conf)]),
            directory / "logs" / "smbd.out",
            cgroups,
        )
        wait_for(self.server, entry, lambda: client_ok(self.check(network.NAS_IP, self.lab_share)))
        return entry

    def _client(self, target, verb: str, *names: str) -> list[str]:
        """smbclient running one command of its own language. That language splits the string on
        `;` (even inside quotes) and words on spaces outside double quotes, so every name is
        checked to hold neither `;` nor a quote and is passed in double quotes."""
        words = [verb, *(f'"{client_name(n, f"smbclient {verb}")}"' for n in names)]
        return ["smbclient", "-N", f"//{target.host}/{target.share}", "-c", " ".join(words)]

    def upload(self, target, local, name):
        return timed(target, self._client(target, "put", local, name), "smbclient put", failed=_status)

    def download(self, target, name, from_root=False):
        get = self._client(target, "get", name, "/dev/null")
        return timed(target, get, f"smbclient get {name}", failed=_status, not_found=self.not_found)

    def remove(self, target, name):
        result = on_client(target, self._client(target, "del", name), "smbclient del")
        why = _status(result)
        if why and not any(word in why for word in self.not_found):
            raise BenchError(f"smbclient del {name}{target.on}: {why}")


def _status(result) -> str | None:
    """The NT status smbclient printed for a failed command: it can exit 0 after one."""
    for line in (result.stdout + "\n" + result.stderr).splitlines():
        if "NT_STATUS_" in line and "NT_STATUS_OK" not in line:
            return line.strip()[:300]
    return None


SMB = Smb()
