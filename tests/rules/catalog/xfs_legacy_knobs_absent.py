"""xfs-legacy-knobs-absent: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, nas, one, sysctl


def _legacy_xfs_knobs():
    return sysctl(nas(), fs__xfs__xfsbufd_centisecs=100, fs__xfs__age_buffer_centisecs=1500)


CASE = Case(nas, _legacy_xfs_knobs, lambda fs: one(fs).changes == [] and "xfsbufd" in one(fs).message)
