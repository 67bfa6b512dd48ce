"""mtu-jumbo-frames: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, F, changes, fail, nas, nic


def _mtu_quiet():
    f = nas()
    i = nic(f, "enp1s0")
    i.mtu = F(9000)
    return f


CASE = Case(nas, _mtu_quiet, lambda fs: changes(fs) == [("enp1s0", None, 1500, 9000)] or fail(fs))
