"""vm-dirty-writeback: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, changes, fail, nas, sysctl

CASE = Case(
    nas,
    lambda: sysctl(nas(), vm__dirty_ratio=20, vm__dirty_background_ratio=10),
    lambda fs: (
        changes(fs) == [("vm.dirty_ratio", None, 40, 20), ("vm.dirty_background_ratio", None, 20, 10)] or fail(fs)
    ),
)
