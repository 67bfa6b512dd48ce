"""smb-sync-always: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, changes, nas, one, smb

CASE = Case(
    nas,
    lambda: smb(nas(), "data", sync_always="no"),
    lambda fs: one(fs).changes[0].durability_risk and changes(fs) == [("data", "sync always", "yes", "no")],
)
