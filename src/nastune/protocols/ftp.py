"""FTP: curl as the client (vsftpd serves the lab: sites/lab/serving/ftp.py)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from nastune.login import from_netrc
from nastune.protocols import client
from nastune.protocols.base import Protocol
from nastune.protocols.client import Call, Words, client_name, empty_files, located, on_client, timed

if TYPE_CHECKING:
    from nastune.login import Login
    from nastune.protocols.client import Target


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

    def _url(self, target: Target, *names: str) -> str:
        """An FTP URL with every name percent-encoded (curl decodes it into the FTP commands)."""
        path = "/".join(quote(client_name(n, "curl"), safe="/") for n in names)
        return f"ftp://{target.host}/{path}"

    def upload(
        self, target: Target, local: str, name: str, sent: list[tuple[float, int]] | None = None
    ) -> tuple[float, float]:
        put = _curl(["-sS", "-T", str(local), self._url(target, located(target)[1], name)], target.login)
        return timed(target, put.argv, "curl upload", words=self.words, input=put.input, sent=sent)

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

    def make_dir(self, target: Target, name: str, count: int) -> None:
        """The empty files made on the client, then stored in one session (curl's upload glob)."""
        with empty_files(target, name, count, "curl mkdir") as local:
            url = self._url(target, located(target)[1], name) + "/"
            put = _curl(["-sS", "--ftp-create-dirs", "-T", f"{local}/f-[0-{count - 1}]", url], target.login)
            on_client(target, put.argv, "curl upload", input=put.input, words=self.words)

    def list_dir(self, target: Target, name: str, misses: int) -> dict[str, float]:
        """curl's LIST of the directory (vsftpd reads every entry's attributes for it) and SIZE of
        missing names, each session less one that fetches an empty file of it (login, CWD, a data
        connection); ten times `misses` lookups, so that they outweigh a session's own jitter,
        sent in the directory (`+`) as commands whose failure curl expects (`*`)."""
        directory = self._url(target, located(target)[1], name) + "/"
        count = 10 * misses
        looked = tuple(f"+*SIZE missing-{i}" for i in range(count))
        bare, listing = partial(self._timed, target, directory + "f-0"), partial(self._timed, target, directory)
        lookups = partial(self._timed, target, directory + "f-0", looked)
        return client.less_bare_sessions(bare, listing, lookups, count, f"curl{target.on}")

    def drop_dir(self, target: Target, name: str, count: int) -> None:
        """Each file deleted, then the directory, in one session after listing the share (`-`: a
        listing sends no commands before it); a file never made is passed by (`*`)."""
        folder = client_name(name, "curl RMD")
        quoted = [f"-*DELE {folder}/f-{i}" for i in range(count)] + [f"-RMD {folder}"]
        call = _curl(["-sS", "-o", "/dev/null", self._url(target, located(target)[1]) + "/"], target.login, quoted)
        on_client(target, call.argv, "curl RMD", input=call.input, words=self.words)

    def _timed(self, target: Target, url: str, quoted: tuple[str, ...] = ()) -> float:
        """Seconds of one curl session fetching `url` after the FTP commands `quoted`."""
        call = _curl(["-sS", "-o", "/dev/null", url], target.login, quoted)
        start, end = timed(target, call.argv, "curl", words=self.words, input=call.input)
        return end - start


def _curl(args: list[str], login: Login | None, quoted: Sequence[str] = ()) -> Call:
    """curl with `login` in its configuration on standard input (-K -: the password never on
    its command line), or anonymous without one; `quoted`, FTP commands sent around the
    transfer, go there too (thousands of them would not fit on an SSH command line)."""
    config = (login.curl_config() if login else "") + "".join(f'quote = "{q}"\n' for q in quoted)
    if not config:
        return Call(["curl", *args])
    return Call(["curl", "-K", "-", *args], config)


FTP = Ftp()
