"""SMB: smbclient as the client (Samba's smbd serves the lab: sites/lab/serving/smb.py)."""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from nastune.login import from_smbclient_file
from nastune.protocols import client
from nastune.protocols.base import Protocol
from nastune.protocols.client import BenchError, Call, Words, client_name, empty_files, located, on_client, timed

if TYPE_CHECKING:
    from nastune.commands import CommandResult
    from nastune.login import Login
    from nastune.protocols.client import Target


class Smb(Protocol):
    name, title, server, service = "smb", "SMB (Samba)", "smbd", "samba"
    tools = ("smbclient",)
    server_tools = ("smbd", "testparm")
    lab_share = "data"
    share_var = "nastune_smb_share"
    port, processes, order = 445, ("smbd",), 1
    client_version = ("smbclient", ("smbclient", "--version"))
    login_var, login_file_var, login_domain = "nastune_smb", "nastune_smb_credentials", True
    login_file_doc = "smbclient's authentication-file format (username, password, domain lines)"
    words = Words(
        not_found=("NT_STATUS_OBJECT_NAME_NOT_FOUND", "NT_STATUS_OBJECT_PATH_NOT_FOUND", "NT_STATUS_NO_SUCH_FILE"),
        refused=("NT_STATUS_LOGON_FAILURE", "NT_STATUS_WRONG_PASSWORD", "NT_STATUS_ACCOUNT_DISABLED")
        + ("NT_STATUS_ACCOUNT_LOCKED_OUT", "NT_STATUS_ACCESS_DENIED"),
        login_vars="nastune_smb_user and nastune_smb_password, or nastune_smb_credentials",
    )

    def login_from_file(self, path: Path, hosts: list[str]) -> Login:
        return from_smbclient_file(path)

    def login_file(self, login: Login, host: str) -> str:
        return login.smbclient_file()

    def check(self, host: str, share: str, login: Login | None = None) -> Call:
        return _smbclient(host, share, "ls", login)

    def _client(self, target: Target, verb: str, *names: str) -> Call:
        """smbclient running one command of its own language. That language splits the string on
        `;` (even inside quotes) and words on spaces outside double quotes, so every name is
        checked to hold neither `;` nor a quote and is passed in double quotes."""
        words = [verb, *(f'"{client_name(n, f"smbclient {verb}")}"' for n in names)]
        return _smbclient(*located(target), " ".join(words), target.login, target.protection)

    def upload(
        self, target: Target, local: str, name: str, sent: list[tuple[float, int]] | None = None
    ) -> tuple[float, float]:
        put = self._client(target, "put", local, name)
        return timed(target, put.argv, "smbclient put", failed=_status, words=self.words, input=put.input, sent=sent)

    def download(self, target: Target, name: str, from_root: bool = False) -> tuple[float, float]:
        get = self._client(target, "get", name, "/dev/null")
        return timed(target, get.argv, f"smbclient get {name}", failed=_status, words=self.words, input=get.input)

    def remove(self, target: Target, name: str) -> None:
        delete = self._client(target, "del", name)
        result = on_client(target, delete.argv, "smbclient del", input=delete.input, words=self.words)
        why = _status(result)
        if why and not any(word in why for word in self.words.not_found):
            raise BenchError(f"smbclient del {name}{target.on}: {why}")

    def make_dir(self, target: Target, name: str, count: int) -> None:
        """The empty files made on the client, then sent in one session (smbclient's mput)."""
        with empty_files(target, name, count, "smbclient mkdir") as local:
            self._session(target, f'mkdir "{name}"; cd "{name}"; lcd "{local}"; prompt off; mput *', "mput")

    def list_dir(self, target: Target, name: str, misses: int) -> dict[str, float]:
        """smbclient's `ls` and `allinfo` of missing names, each session less one that only enters
        the directory (login and tree connect); ten times `misses` lookups, so that they outweigh
        a session's own jitter."""
        enter = f'cd "{client_name(name, "smbclient cd")}"'
        count = 10 * misses
        looked = "; ".join(f'allinfo "missing-{i}"' for i in range(count))
        bare, listing = partial(self._timed, target, enter), partial(self._timed, target, f"{enter}; ls")
        lookups = partial(self._timed, target, f"{enter}; {looked}")
        return client.less_bare_sessions(bare, listing, lookups, count, f"smbclient{target.on}")

    def drop_dir(self, target: Target, name: str, count: int) -> None:
        self._session(target, f'deltree "{client_name(name, "smbclient deltree")}"', "deltree")

    def _session(self, target: Target, commands: str, what: str) -> None:
        call = _smbclient(*located(target), commands, target.login, target.protection)
        result = on_client(target, call.argv, f"smbclient {what}", input=call.input, words=self.words)
        why = _status(result)
        if why:
            raise BenchError(f"smbclient {what}{target.on}: {why}")

    def free(self, target: Target) -> int:
        """smbclient's `du`: the share's size as the server answers it ("N blocks of size M. K
        blocks available")."""
        call = self._client(target, "du")
        result = on_client(target, call.argv, "smbclient du", input=call.input, words=self.words)
        found = re.search(r"blocks of size (\d+)\. (\d+) blocks available", result.stdout)
        if not found:
            raise BenchError(f"smbclient du{target.on}: no free space in its answer: {result.tail(2)}")
        return int(found[1]) * int(found[2])

    def _timed(self, target: Target, commands: str) -> float:
        """Seconds of one smbclient session running `commands` (a missing name's status is expected)."""
        call = _smbclient(*located(target), commands, target.login, target.protection)
        start, end = timed(target, call.argv, "smbclient", words=self.words, input=call.input)
        return end - start


def _smbclient(host: str, share: str, command: str, login: Login | None, protection: str | None = None) -> Call:
    """smbclient with `login` as its authentication file on standard input (-A /dev/stdin: the
    password never on its command line), or as a guest (-N) without one; `protection` is what the
    client requires of the session (sign, encrypt, off), as the operator's own clients do."""
    auth = ["-A", "/dev/stdin"] if login else ["-N"]
    required = [f"--client-protection={protection}"] if protection else []
    argv = ["smbclient", *auth, *required, f"//{host}/{share}", "-c", command]
    return Call(argv, login.smbclient_file() if login else None)


def _status(result: CommandResult) -> str | None:
    """The NT status smbclient printed for a failed command: it can exit 0 after one."""
    for line in (result.stdout + "\n" + result.stderr).splitlines():
        if "NT_STATUS_" in line and "NT_STATUS_OK" not in line:
            return line.strip()[:300]
    return None


SMB = Smb()
