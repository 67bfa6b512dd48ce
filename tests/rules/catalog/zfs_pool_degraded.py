"""zfs-pool-degraded: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.facts.zfs import Pool, Vdev
from nastune.rules.model import Severity
from tests.conftest import need
from tests.rules.kit import Case, F, one, zfs


def _pool(health: str, state: str):
    facts = zfs({})
    mirror = Vdev(kind="mirror", devices=["/dev/sda1", "/dev/sdb1"], state=state)
    need(facts.zfs).pools = F([Pool(name="tank", size=1, allocated=0, free=1, health=health, dedupratio="1.00x",
                                   vdevs=[mirror])])  # fmt: skip
    return facts


CASE = Case(
    lambda: _pool("DEGRADED", "DEGRADED"),
    lambda: _pool("ONLINE", "ONLINE"),
    lambda fs: (
        one(fs).severity == Severity.critical
        and "data mirror DEGRADED" in str(one(fs).evidence)
        and "zpool replace tank" in (one(fs).advice or "")
    ),
)
