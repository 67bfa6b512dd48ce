"""smb-strict-sync-off: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, changes, nas, one, smb

CASE = Case(
    lambda: smb(nas(), "data", strict_sync="no"),
    lambda: smb(nas(), "data", strict_sync="yes"),
    lambda fs: one(fs).changes[0].durability_risk and changes(fs) == [("data", "strict sync", "no", "yes")],
)
