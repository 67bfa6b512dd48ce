"""smb-encryption-cost: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.tune.knobs import risks
from tests.rules.kit import Case, changes, fail, nas, one, smb

CASE = Case(
    lambda: smb(nas(), "data", smb_encrypt="required"),
    nas,
    lambda fs: (
        (changes(fs) == [("data", "smb encrypt", "required", "desired")] and risks(one(fs).changes[0]) == ["security"])
        or fail(fs)
    ),
)
