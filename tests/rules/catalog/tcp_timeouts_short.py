"""tcp-timeouts-short: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, changes, fail, nas, sysctl

CASE = Case(
    lambda: sysctl(nas(), net__ipv4__tcp_retries2=5, net__ipv4__tcp_keepalive_time=30),
    lambda: sysctl(nas(), net__ipv4__tcp_retries2=15, net__ipv4__tcp_keepalive_time=7200),
    lambda fs: (
        (
            changes(fs) == [("net.ipv4.tcp_retries2", None, 5, 15)]
            and [f.target for f in fs] == ["net.ipv4.tcp_retries2", "net.ipv4.tcp_keepalive_time"]
        )
        or fail(fs)
    ),
)
