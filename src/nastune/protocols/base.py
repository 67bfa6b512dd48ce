"""What a file-serving protocol is to nastune: its client operations for the bench (put, get,
delete, each through the protocol's own client tool, whose Debian package packages.py names),
the readiness check a real client makes, its logins and its inventory variables. One object per
protocol, found by its name, which is also its URL scheme and target kind; what serves it in the
lab is the lab's own (sites/lab/serving/)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from nastune.protocols.client import Call, Target, Words

if TYPE_CHECKING:
    from nastune.login import Login


class Protocol:
    name = ""  # URL scheme and target kind: smb, nfs, ftp
    title = ""
    server = ""  # the lab's server process, as the lab's state names it
    service: str | None = None  # what tune/services reloads after its configuration changes
    tools: tuple[str, ...] = ()  # the client tools its operations run
    server_tools: tuple[str, ...] = ()  # what the lab runs to serve it
    lab_share = ""  # the share, export or directory clients name in the lab
    share_var = ""  # the inventory variable (on the NAS) that names what clients use of it
    port = 0  # where its server listens (the profiler counts the connections there)
    processes: tuple[str, ...] = ()  # its servers' process names (their threads are the profiler's)
    words = Words()  # its client tool's words for a file that is not on the server, a refused login
    # its login, where it has one: the inventory variables' prefix (nastune_smb: _user, _password,
    # _domain), the variable naming a file operators keep such logins in, and that file's format
    login_var = ""
    login_file_var = ""
    login_file_doc = ""
    login_domain = False  # its logins may name a domain (SMB's workgroup or AD domain)
    order = 0  # its place in listings (smb, nfs, ftp)
    # its client's name and the command whose first line is its version, for a run's provenance
    client_version: tuple[str, tuple[str, ...]] = ("", ())

    def url(self, host: str, share: str) -> str:
        return f"{self.name}://{host}/{share}"

    def login_from_file(self, path: Path, hosts: list[str]) -> Login:
        """The login a credentials file of `login_file_var`'s format gives `hosts` (the NAS's
        names, best first); LoginError names the file."""
        raise NotImplementedError

    def login_file(self, login: Login, host: str) -> str:
        """`login` for `host` as a credentials file of `login_file_var`'s format."""
        raise NotImplementedError

    def check(self, host: str, share: str, login: Login | None = None) -> Call:
        """A client command that succeeds only when the server serves `share` (to `login`)."""
        raise NotImplementedError

    def upload(
        self, target: Target, local: str, name: str, sent: list[tuple[float, int]] | None = None
    ) -> tuple[float, float]:
        """Send the client's file `local` to the target as `name`; its span on the client's clock.
        `sent` gets the client's sent bytes each second while it ran (client.timed)."""
        raise NotImplementedError

    def download(self, target: Target, name: str, from_root: bool = False) -> tuple[float, float]:
        """Fetch `name` into /dev/null (`from_root`: a path from the server's root); its span."""
        raise NotImplementedError

    def remove(self, target: Target, name: str) -> None:
        """Delete a test file through the protocol."""
        raise NotImplementedError

    # Optional operations, for the workloads that measure them through the protocol's own client.

    def write_latency(self, target: Target, name: str, record: int, count: int, sync: bool) -> list[float]:
        """Microseconds of each of `count` writes of `record` bytes (each followed by a commit with `sync`)."""
        raise NotImplementedError

    def small_files(self, target: Target, name: str, count: int, size: int) -> dict[str, list[float]]:
        """Microseconds of each create, stat, read and delete of `count` files of `size` bytes."""
        raise NotImplementedError

    def make_dir(self, target: Target, name: str, count: int) -> None:
        """A directory `name` of `count` empty files (f-0, f-1, ...)."""
        raise NotImplementedError

    def list_dir(self, target: Target, name: str, misses: int) -> dict[str, float]:
        """Microseconds to list the directory with its entries' attributes ("list_us") and of one
        lookup of a name it does not hold ("miss_us", over `misses` of them)."""
        raise NotImplementedError

    def drop_dir(self, target: Target, name: str, count: int) -> None:
        """The directory and its files, gone."""
        raise NotImplementedError

    def free(self, target: Target) -> int:
        """The bytes the share has free for the client's login, as the server tells its client."""
        raise NotImplementedError

    def can(self, operation: str) -> bool:
        """Whether this protocol implements an optional operation."""
        return getattr(type(self), operation) is not getattr(Protocol, operation)
