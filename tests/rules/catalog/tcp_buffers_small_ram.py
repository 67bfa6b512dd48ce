"""tcp-buffers-small-ram: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.facts import Facts
from tests.conftest import need
from tests.rules.kit import Case, F, changes, fail, nas, sysctl


def _small_ram(ram: int, rmem: str) -> Facts:
    f = nas()
    need(f.system).memory_bytes = F(ram)
    return sysctl(f, net__ipv4__tcp_rmem=rmem, net__ipv4__tcp_wmem="4096 16384 65536")


CASE = Case(
    lambda: _small_ram(512 << 20, "4096 131072 6291456"),
    lambda: _small_ram(512 << 20, "4096 131072 1048576"),
    lambda fs: changes(fs) == [("net.ipv4.tcp_rmem", None, "4096 131072 6291456", "4096 131072 4194304")] or fail(fs),
)
