"""xfs-fragmentation: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.facts import Facts
from tests.conftest import need
from tests.rules.kit import Case, F, changes, nas, one


def _frag(percent: float) -> Facts:
    from nastune.facts.mounts import XfsFragmentation

    f = nas()
    need(f.mounts).fragmentation["/srv/data"] = F(
        XfsFragmentation(actual=99813, ideal=1008, percent=percent, extents_per_file=99.0, method="frozen")
    )
    return f


CASE = Case(
    lambda: _frag(98.99),
    lambda: _frag(5.0),
    lambda fs: one(fs).impact == 30 and changes(fs) == [("/srv/data", None, "99.0%", "defragmented")],
)
