"""md-chunk-size: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, one, raid10

CASE = Case(lambda: raid10(32), lambda: raid10(512), lambda fs: "32K chunks" in one(fs).message)
