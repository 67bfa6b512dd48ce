"""smb-socket-buffers-fixed: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, changes, fail, nas, smb

CASE = Case(
    nas,
    lambda: smb(nas(), "global", socket_options="TCP_NODELAY"),
    lambda fs: changes(fs)[0][3] == "TCP_NODELAY" or fail(fs),
)
