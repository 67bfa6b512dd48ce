"""xfs-external-log: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.conftest import need
from tests.rules.kit import Case, F, nas, one


def _no_fast_device():
    f = nas()
    need(need(f.block).device("sda")).rotational = F(True)
    return f


CASE = Case(nas, _no_fast_device, lambda fs: one(fs).target == "/srv/data" and "logdev" in one(fs).advice)
