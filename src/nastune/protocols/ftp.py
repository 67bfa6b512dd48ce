"""FTP: vsftpd in the lab (anonymous, writable), curl as the client."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar
from urllib.parse import quote

from nastune.lab import network
from nastune.lab.procs import client_ok, spawn, wait_for, write_file
from nastune.lab.sh import in_ns
from nastune.protocols.base import Protocol
from nastune.protocols.client import client_name, on_client, timed


def vsftpd_conf(directory: Path, share: str) -> str:
    return "\n".join(
        [
            "listen=YES",
            "listen_ipv6=NO",
            f"listen_address={network.NAS_IP}",
            "background=NO",
            "anonymous_enable=YES",
            "local_enable=NO",
            "write_enable=YES",
            "anon_upload_enable=YES",
            "anon_mkdir_write_enable=YES",
            "anon_other_write_enable=YES",
            "anon_umask=022",
            f"anon_root={share}",
            "no_anon_password=YES",
            f"secure_chroot_dir={directory / 'ftp-empty'}",
            "pasv_enable=YES",
            "pasv_min_port=30000",
            "pasv_max_port=30100",
            "xferlog_enable=NO",
            "seccomp_sandbox=NO",
            "",
        ]
    )


class Ftp(Protocol):
    name, title, server = "ftp", "FTP (vsftpd)", "vsftpd"
    tools = ("curl",)
    server_tools = ("vsftpd",)
    lab_share = "pub"
    share_var = "nastune_ftp_dir"
    port, processes, order = 21, ("vsftpd",), 3
    client_version = ("curl", ("curl", "--version"))
    packages: ClassVar[dict[str, str]] = {"curl": "curl", "vsftpd": "vsftpd"}
    not_found = ("curl: (78)",)  # CURLE_REMOTE_FILE_NOT_FOUND: the server's 550

    def check(self, host, share):
        return ["curl", "-s", "--max-time", "5", f"ftp://{host}/{share}/"]

    def start_lab(self, state, directory, share, scenario, cgroups):
        (directory / "ftp-empty").mkdir(exist_ok=True)
        conf = write_file(directory / "vsftpd.conf", vsftpd_conf(directory, share))
        entry = spawn(
            state, self.server, in_ns(network.NAS_NS, ["vsftpd", str(conf)]), directory / "logs" / "vsftpd.out", cgroups
        )
        wait_for(self.server, entry, lambda: client_ok(self.check(network.NAS_IP, self.lab_share)))
        return entry

    def _url(self, target, *names: str) -> str:
        """An FTP URL with every name percent-encoded (curl decodes it into the FTP commands)."""
        path = "/".join(quote(client_name(n, "curl"), safe="/") for n in names)
        return f"ftp://{target.host}/{path}"

    def upload(self, target, local, name):
        return timed(target, ["curl", "-sS", "-T", str(local), self._url(target, target.share, name)], "curl upload")

    def download(self, target, name, from_root=False):
        url = self._url(target, name) if from_root else self._url(target, target.share, name)
        return timed(target, ["curl", "-sS", "-o", "/dev/null", url], f"curl download {name}", not_found=self.not_found)

    def remove(self, target, name):
        # -Q sends its text as one FTP command line: the name holds no CR or LF (client_name)
        dele = f"-DELE {client_name(name, 'curl DELE')}"
        directory = self._url(target, target.share) + "/"
        on_client(target, ["curl", "-sS", "-o", "/dev/null", directory, "-Q", dele], "curl DELE")


FTP = Ftp()
