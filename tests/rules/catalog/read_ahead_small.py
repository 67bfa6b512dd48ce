"""read-ahead-small: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.facts import Facts
from tests.conftest import need
from tests.rules.kit import Case, F, changes, client, fail


def _read_ahead(kb: int) -> Facts:
    f = client()
    need(need(f.block).device("sda")).read_ahead_kb = F(kb)
    return f


CASE = Case(
    lambda: _read_ahead(128),
    lambda: _read_ahead(4096),
    lambda fs: changes(fs) == [("/sys/block/sda/queue/read_ahead_kb", None, 128, 4096)] or fail(fs),
)
