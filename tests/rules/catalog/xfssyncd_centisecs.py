"""xfssyncd-centisecs: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.conftest import need
from tests.rules.kit import Case, F, changes, fail, nas


def _big_box():
    f = nas()
    need(f.system).memory_bytes = F(64 << 30)
    need(f.system).cpus = F(16)
    return f


CASE = Case(nas, _big_box, lambda fs: changes(fs) == [("fs.xfs.xfssyncd_centisecs", None, 3000, 500)] or fail(fs))
