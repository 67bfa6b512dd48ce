"""nfs-export-krb5-integrity: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, exports, fail, one

CASE = Case(
    lambda: exports("sync", sec="sec=krb5p:krb5"),
    lambda: exports("sync", sec="sec=krb5:krb5p"),
    lambda fs: (one(fs).target == "/srv/data" and "encrypts every RPC" in one(fs).message) or fail(fs),
)
