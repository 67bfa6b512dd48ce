"""smb-sync-always: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.tune.knobs import risks
from tests.rules.kit import Case, changes, nas, one, smb

CASE = Case(
    nas,
    lambda: smb(nas(), "data", sync_always="no"),
    lambda fs: risks(one(fs).changes[0]) == ["durability"] and changes(fs) == [("data", "sync always", "yes", "no")],
)
