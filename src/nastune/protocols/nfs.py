"""NFS: libnfs's nfs-cp and nfs-ls (and its library) as the client (NFS-Ganesha serves the lab:
sites/lab/serving/nfs.py)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from nastune.protocols import nfsops  # there is no nfs-rm: the library's nfs_unlink
from nastune.protocols.base import Protocol
from nastune.protocols.client import Call, Words, client_name, located, on_client, timed

if TYPE_CHECKING:
    from nastune.login import Login
    from nastune.protocols.client import Target


class Nfs(Protocol):
    name, title, server, service = "nfs", "NFS (NFS-Ganesha)", "ganesha", "ganesha"
    tools = ("nfs-cp", "nfs-ls", "python3")  # python3 runs the libnfs operations (nfsops.py)
    server_tools = ("ganesha.nfsd", "rpcbind")
    lab_share = "data"
    share_var = "nastune_nfs_export"
    port, processes, order = 2049, ("ganesha.nfsd", "nfsd"), 2
    client_version = ("libnfs", ("dpkg-query", "-W", "-f=${Version}", "libnfs13"))
    words = Words(not_found=("NFS3ERR_NOENT", "NFS4ERR_NOENT"))  # libnfs names the server's status

    def check(self, host: str, share: str, login: Login | None = None) -> Call:
        return Call(["nfs-ls", f"nfs://{host}/{share}"])  # NFS with AUTH_SYS has no login

    def _url(self, target: Target, name: str) -> str:
        """libnfs's URL: its path is taken as written up to a `?` (its options), which
        client_name keeps out of both parts, as it keeps out `%` and `#`."""
        host, share = located(target)
        return f"nfs://{host}/{client_name(share, 'nfs-cp')}/{client_name(name, 'nfs-cp')}"

    def upload(
        self, target: Target, local: str, name: str, sent: list[tuple[float, int]] | None = None
    ) -> tuple[float, float]:
        return timed(target, ["nfs-cp", str(local), self._url(target, name)], "nfs-cp", sent=sent)

    def free(self, target: Target) -> int:
        return int(nfsops.remote(target, {"op": "free"})["bytes"])

    def download(self, target: Target, name: str, from_root: bool = False) -> tuple[float, float]:
        # nfs-cp cannot write to /dev/null: a tmpfs file on the client, removed at once
        sink = f"/dev/shm/nastune-{uuid.uuid4().hex[:8]}-{Path(name).name}"
        try:
            return timed(target, ["nfs-cp", self._url(target, name), sink], "nfs-cp", words=self.words)
        finally:
            on_client(target, ["rm", "-f", "--", sink], "rm")

    def remove(self, target: Target, name: str) -> None:
        nfsops.remote(target, {"op": "unlink", "name": client_name(name, "libnfs unlink")})

    def write_latency(self, target: Target, name: str, record: int, count: int, sync: bool) -> list[float]:
        request = {"op": "write-latency", "name": name, "record": record, "count": count, "sync": sync}
        return nfsops.remote(target, request)["us"]

    def small_files(self, target: Target, name: str, count: int, size: int) -> dict[str, list[float]]:
        return nfsops.remote(target, {"op": "small-files", "name": name, "count": count, "size": size})

    def make_dir(self, target: Target, name: str, count: int) -> None:
        nfsops.remote(target, {"op": "make-dir", "name": client_name(name, "libnfs mkdir"), "count": count})

    def list_dir(self, target: Target, name: str, misses: int) -> dict[str, float]:
        return nfsops.remote(target, {"op": "list-dir", "name": name, "misses": misses})

    def drop_dir(self, target: Target, name: str, count: int) -> None:
        nfsops.remote(target, {"op": "drop-dir", "name": name, "count": count})


NFS = Nfs()
