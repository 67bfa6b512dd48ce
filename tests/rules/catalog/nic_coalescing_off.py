"""nic-coalescing-off: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, F, changes, fail, nas, nic


def _coalesce_quiet():
    f = nas()
    i = nic(f, "enp1s0")
    i.coalesce = F(i.coalesce.value.model_copy(update={"params": {"rx-usecs": 30}}))
    return f


CASE = Case(nas, _coalesce_quiet, lambda fs: changes(fs) == [("enp1s0", "rx-usecs", 0, 50)] or fail(fs))
