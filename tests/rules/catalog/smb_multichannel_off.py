"""smb-multichannel-off: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, changes, fail, nas, smb

CASE = Case(
    lambda: smb(nas(), "global", server_multi_channel_support="No"),
    nas,
    lambda fs: changes(fs) == [("global", "server multi channel support", "No", "yes")] or fail(fs),
)
