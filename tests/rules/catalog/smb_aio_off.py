"""smb-aio-off: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, changes, fail, nas, smb

CASE = Case(
    nas,
    lambda: smb(nas(), "global", aio_read_size="1", aio_write_size="1"),
    lambda fs: (
        changes(fs) == [("global", "aio read size", "0", "1"), ("global", "aio write size", "0", "1")] or fail(fs)
    ),
)
