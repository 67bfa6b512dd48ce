"""vsftpd serving the lab's directory to one local user, writable."""

from __future__ import annotations

from pathlib import Path

from nastune.lab import network
from nastune.lab.procs import private_mounts, spawn, write_file
from nastune.lab.scenario import Scenario
from nastune.lab.sh import run
from nastune.lab.state import Process, State
from nastune.login import Login
from nastune.protocols.ftp import FTP
from nastune.sites.lab.serving.base import Serving


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


class FtpServing(Serving):
    protocol = FTP

    def start(
        self, state: State, directory: Path, share: str, scenario: Scenario, cgroups: list[str], login: Login
    ) -> Process:
        (directory / "ftp-empty").mkdir(exist_ok=True)
        conf = write_file(directory / "vsftpd.conf", vsftpd_conf(directory, share))
        enter = private_mounts(state, "ftp-mount-namespace", directory / "logs")
        for where, source in accounts(directory, share, login).items():
            run([*enter, "mount", "--bind", str(source), where])
        entry = spawn(
            state, self.protocol.server, [*enter, "vsftpd", str(conf)], directory / "logs" / "vsftpd.out", cgroups
        )
        return self.ready(entry, login)


SERVING = FtpServing()
