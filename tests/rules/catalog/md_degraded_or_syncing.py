"""md-degraded-or-syncing: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.conftest import need
from tests.rules.kit import Case, healthy_md, nas, one


def _pending_md():
    f = healthy_md()
    a = next(a for a in need(f.md).arrays if a.name == "md1")
    a.sync_action, a.sync_pending = "resync", "PENDING"
    return f


CASE = Case(nas, _pending_md, lambda fs: one(fs).target == "md1" and "recovery at 17.3%" in one(fs).message)
