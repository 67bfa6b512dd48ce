"""net-default-buffers-large: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, changes, fail, nas, sysctl

CASE = Case(
    lambda: sysctl(nas(), net__core__rmem_default=16777216),
    nas,
    lambda fs: changes(fs) == [("net.core.rmem_default", None, 16777216, 212992)] or fail(fs),
)
