"""ganesha-io-size-small: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.facts import Facts
from tests.conftest import need
from tests.rules.kit import Case, F, changes, fail, nas


def _ganesha(max_read: int | None) -> Facts:
    from nastune.facts.nfs_server import GaneshaConfig, GaneshaExport

    f = nas()
    export = GaneshaExport(
        export_id=1,
        path="/srv/data",
        pseudo="/data",
        protocols=["3", "4"],
        transports=["TCP"],
        access_type="RW",
        squash="No_Root_Squash",
        fsal="VFS",
        max_read=max_read,
        max_write=max_read,
        pref_read=None,
        pref_write=None,
        line=4,
    )
    need(f.nfs_server).ganesha = F(
        GaneshaConfig(path="/etc/ganesha/ganesha.conf", core={}, exports=[export], includes=[])
    )
    return f


CASE = Case(
    lambda: _ganesha(8192),
    lambda: _ganesha(None),
    lambda fs: changes(fs) == [("1", "MaxRead", 8192, 1048576), ("1", "MaxWrite", 8192, 1048576)] or fail(fs),
)
