"""tcp-slow-start-after-idle: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, changes, fail, nas, sysctl

CASE = Case(
    lambda: sysctl(nas(), net__ipv4__tcp_slow_start_after_idle=1),
    lambda: sysctl(nas(), net__ipv4__tcp_slow_start_after_idle=0),
    lambda fs: changes(fs) == [("net.ipv4.tcp_slow_start_after_idle", None, 1, 0)] or fail(fs),
)
