"""swappiness-high: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.conftest import need
from tests.rules.kit import Case, F, changes, fail, nas


def _no_swap():
    f = nas()
    need(f.system).swap_bytes = F(0)
    return f


CASE = Case(nas, _no_swap, lambda fs: changes(fs) == [("vm.swappiness", None, 60, 10)] or fail(fs))
