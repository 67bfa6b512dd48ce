"""page-allocation-failures: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.conftest import need
from tests.rules.kit import Case, F, changes, fail, nas


def _no_failures():
    f = nas()
    need(f.kernel_log).page_allocation_failures = F(0)
    need(f.kernel_log).examples = []
    return f


CASE = Case(nas, _no_failures, lambda fs: changes(fs) == [("vm.min_free_kbytes", None, 2048, 4096)] or fail(fs))
