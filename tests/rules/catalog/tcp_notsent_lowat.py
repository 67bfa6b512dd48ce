"""tcp-notsent-lowat: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, changes, fail, nas, sysctl

CASE = Case(
    lambda: sysctl(nas(), net__ipv4__tcp_notsent_lowat=4294967295, net__ipv4__tcp_wmem="4096 16384 16777216"),
    lambda: sysctl(nas(), net__ipv4__tcp_notsent_lowat=4294967295, net__ipv4__tcp_wmem="4096 16384 4194304"),
    lambda fs: changes(fs) == [("net.ipv4.tcp_notsent_lowat", None, 4294967295, 131072)] or fail(fs),
)
