"""smb-sendfile-off: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, changes, fail, nas, smb

CASE = Case(
    nas,
    lambda: smb(nas(), "global", use_sendfile="yes"),
    lambda fs: changes(fs) == [("global", "use sendfile", "no", "yes")] or fail(fs),
)
