"""numa-remote-bandwidth: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.facts import Facts
from tests.rules.kit import Case, F, server


def _numa(remote: float) -> Facts:
    f = server()
    f.numa_bandwidth = F([[46.0, remote], [remote, 46.0]], "matrix.json")
    return f


CASE = Case(lambda: _numa(6.3), lambda: _numa(25.0), lambda fs: len(fs) == 2 and "snoop" in (fs[0].advice or ""))
