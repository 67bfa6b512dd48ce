"""nfs-export-sync-mode: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, changes, exports, fail

CASE = Case(
    lambda: exports("async"),
    lambda: exports("async", access="ro"),  # a read-only export has no writes to lose
    lambda fs: changes(fs) == [("/srv/data", "192.168.1.0/24:sync", "async", "sync")] or fail(fs),
)
