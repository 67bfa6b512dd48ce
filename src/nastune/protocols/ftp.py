"""FTP: vsftpd in the lab (one local user, writable), curl as the client."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from nastune.lab import network
from nastune.lab.procs import client_ok, private_mounts, spawn, wait_for, write_file
from nastune.lab.sh import run
from nastune.login import from_netrc
from nastune.protocols.base import Protocol
from nastune.protocols.client import Call, Words, client_name, located, on_client, timed

if TYPE_CHECKING:
    from nastune.lab.scenario import Scenario
    from nastune.lab.state import Process, State
    from nastune.login import Login
    from nastune.protocols.client import Target


def vsftpd_conf(directory: Path, share: str) -> str:
    """One local user, chrooted to the share's parent; PAM checks
    its password with the lab's own service file (see accounts)."""
    return "\n".join(
        [
            "listen=YES",
            "listen_ipv6=NO",
            f"listen_address={network.NAS_IP}",
            "background=NO",
            "anonymous_enable=NO",
            "local_enable=YES",
            f"pam_service_name={PAM_SERVICE}",
            "write_enable=YES",
            "local_umask=022",
            f"local_root={share}",
            "chroot_local_user=YES",
            "allow_writeable_chroot=YES",
            f"secure_chroot_dir={directory / 'ftp-empty'}",
            "pasv_enable=YES",
            "pasv_min_port=30000",
            "pasv_max_port=30100",
            "xferlog_enable=NO",
            "seccomp_sandbox=NO",
            "",
        ]
    )


PAM_SERVICE = "nastune-lab-ftp"


def accounts(directory: Path, share: str, login: Login) -> dict[str, Path]:
    """What vsftpd's private mount namespace sees at /etc/pam.d, /etc/passwd and /etc/shadow:
    the lab's PAM service (pam_unix), and accounts of its own, the FTP user's password hash
    among them, so this host's accounts and PAM configuration are neither read nor changed. The
    user is root on the NAS, as Samba's `force user` makes every SMB user: the lab's directory
    may lie below one only root can enter (a test's temporary directory)."""
    base = directory / "ftp-etc"
    (base / "pam.d").mkdir(parents=True, exist_ok=True)
    write_file(base / "pam.d" / PAM_SERVICE, "".join(f"{k} required pam_unix.so\n" for k in ("auth", "account")))
    users = ["root:x:0:0::/root:/bin/sh", "nobody:x:65534:65534::/nonexistent:/usr/sbin/nologin"]
    users.append(f"{login.user}:x:0:0::{share}:/usr/sbin/nologin")  # home: where it is chrooted
    write_file(base / "passwd", "\n".join(users) + "\n")
    hashed = run(["openssl", "passwd", "-6", "-stdin"], input=login.password.get_secret_value()).stdout.strip()
    shadow = write_file(base / "shadow", f"{login.user}:{hashed}:19000:0:99999:7:::\n")
    shadow.chmod(0o600)
    return {"/etc/pam.d": base / "pam.d", "/etc/passwd": base / "passwd", "/etc/shadow": shadow}


class Ftp(Protocol):
    name, title, server = "ftp", "FTP (vsftpd)", "vsftpd"
    tools = ("curl",)
    server_tools = ("vsftpd",)
    lab_share = "pub"
    share_var = "nastune_ftp_dir"
    port, processes, order = 21, ("vsftpd",), 3
    client_version = ("curl", ("curl", "--version"))
    login_var, login_file_var = "nastune_ftp", "nastune_ftp_netrc"
    login_file_doc = "netrc format, with a `machine` entry for the NAS (or a `default`)"
    words = Words(
        not_found=("curl: (78)",),  # CURLE_REMOTE_FILE_NOT_FOUND: the server's 550
        refused=("curl: (67)",),  # CURLE_LOGIN_DENIED: the server's 530
        login_vars="nastune_ftp_user and nastune_ftp_password, or nastune_ftp_netrc",
    )

    def login_from_file(self, path: Path, hosts: list[str]) -> Login:
        return from_netrc(path, hosts)

    def login_file(self, login: Login, host: str) -> str:
        return f"machine {host} login {login.user} password {login.password.get_secret_value()}\n"

    def check(self, host: str, share: str, login: Login | None = None) -> Call:
        return _curl(["-s", "--max-time", "5", f"ftp://{host}/{share}/"], login)

    def start_lab(
        self, state: State, directory: Path, share: str, scenario: Scenario, cgroups: list[str], login: Login
    ) -> Process:
        (directory / "ftp-empty").mkdir(exist_ok=True)
        conf = write_file(directory / "vsftpd.conf", vsftpd_conf(directory, share))
        enter = private_mounts(state, "ftp-mount-namespace", directory / "logs")
        for where, source in accounts(directory, share, login).items():
            run([*enter, "mount", "--bind", str(source), where])
        entry = spawn(state, self.server, [*enter, "vsftpd", str(conf)], directory / "logs" / "vsftpd.out", cgroups)
        wait_for(self.server, entry, lambda: client_ok(self.check(network.NAS_IP, self.lab_share, login)))
        return entry

    def _url(self, target: Target, *names: str) -> str:
        """An FTP URL with every name percent-encoded (curl decodes it into the FTP commands)."""
        path = "/".join(quote(client_name(n, "curl"), safe="/") for n in names)
        return f"ftp://{target.host}/{path}"

    def upload(self, target: Target, local: str, name: str) -> tuple[float, float]:
        put = _curl(["-sS", "-T", str(local), self._url(target, located(target)[1], name)], target.login)
        return timed(target, put.argv, "curl upload", words=self.words, input=put.input)

    def download(self, target: Target, name: str, from_root: bool = False) -> tuple[float, float]:
        url = self._url(target, name) if from_root else self._url(target, located(target)[1], name)
        get = _curl(["-sS", "-o", "/dev/null", url], target.login)
        return timed(target, get.argv, f"curl download {name}", words=self.words, input=get.input)

    def remove(self, target: Target, name: str) -> None:
        # -Q sends its text as one FTP command line: the name holds no CR or LF (client_name)
        dele = f"-DELE {client_name(name, 'curl DELE')}"
        directory = self._url(target, located(target)[1]) + "/"
        call = _curl(["-sS", "-o", "/dev/null", directory, "-Q", dele], target.login)
        on_client(target, call.argv, "curl DELE", input=call.input, words=self.words)


def _curl(args: list[str], login: Login | None) -> Call:
    """curl with `login` in its configuration on standard input (-K -: the password never on
    its command line), or anonymous without one."""
    if login is None:
        return Call(["curl", *args])
    return Call(["curl", "-K", "-", *args], login.curl_config())


FTP = Ftp()
