"""smb-case-big-dir: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.facts import Facts
from nastune.facts.shares import ShareLook
from tests.conftest import need
from tests.rules.kit import Case, changes, fail, nas, one, smb


def big(facts: Facts) -> Facts:
    """The small NAS's [data] share with a directory of 50,000 files (Samba's default case handling)."""
    seen = ShareLook(path="/srv/data", looked=4, largest="/srv/data/scans", entries=50_000)
    need(facts.smb).looks["data"] = seen
    return facts


CASE = Case(
    lambda: big(nas()),
    lambda: smb(big(nas()), "data", case_sensitive="yes"),
    lambda fs: (
        (
            changes(fs) == [("data", "case sensitive", "Auto", "yes")]
            and one(fs).target == "data:case sensitive"
            and "/srv/data/scans: 50,000 entries" in [e.value for e in one(fs).evidence]
            and "case sensitive = yes; default case = lower" in one(fs).advice
        )
        or fail(fs)
    ),
)
