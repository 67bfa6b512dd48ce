"""smb-signing-cost: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.tune.knobs import risks
from tests.rules.kit import Case, changes, fail, nas, one, smb

CASE = Case(
    lambda: smb(
        nas(), "global", server_smb3_signing_algorithms="HMAC-SHA256, AES-128-CMAC", server_signing="mandatory"
    ),
    lambda: smb(nas(), "global", server_signing="default"),  # Samba's own GMAC-first order, not required
    lambda fs: (
        (
            changes(fs)
            == [
                (
                    "global",
                    "server smb3 signing algorithms",
                    "HMAC-SHA256, AES-128-CMAC",
                    "AES-128-GMAC, AES-128-CMAC, HMAC-SHA256",
                ),
                ("global", "server signing", "mandatory", "default"),
            ]
            and [risks(c) for c in one(fs).changes] == [[], ["security"]]
            and "lacks AES" in one(fs).message  # the Atom N330
        )
        or fail(fs)
    ),
)
