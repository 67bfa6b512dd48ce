"""smb-strict-sync-off: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.tune.knobs import risks
from tests.rules.kit import Case, changes, nas, one, smb

CASE = Case(
    lambda: smb(nas(), "data", strict_sync="no"),
    lambda: smb(nas(), "data", strict_sync="yes"),
    lambda fs: risks(one(fs).changes[0]) == ["durability"] and changes(fs) == [("data", "strict sync", "no", "yes")],
)
