"""tcp-buffers-below-bdp: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, changes, fail, nas, sysctl


def _big_tcp_buffers():
    return sysctl(
        nas(),
        net__ipv4__tcp_rmem="4096 131072 6291456",
        net__ipv4__tcp_wmem="4096 16384 6291456",
        net__core__rmem_max=6291456,
        net__core__wmem_max=6291456,
    )


CASE = Case(
    nas,
    _big_tcp_buffers,
    lambda fs: (
        changes(fs)
        == [
            ("net.ipv4.tcp_rmem", None, "4096 16384 65536", "4096 16384 6291456"),
            ("net.ipv4.tcp_wmem", None, "4096 16384 65536", "4096 16384 6291456"),
            ("net.core.rmem_max", None, 65536, 6291456),
            ("net.core.wmem_max", None, 65536, 6291456),
        ]
        or fail(fs)
    ),
)
