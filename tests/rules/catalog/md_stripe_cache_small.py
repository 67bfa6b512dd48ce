"""md-stripe-cache-small: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, changes, md_sysfs, nas, one


def check_stripe(findings):
    f = one(findings)
    # 1.9 GiB box, 3 disks: 8192 entries take 96 MiB, under RAM/16 (122 MiB)
    assert changes(findings) == [("/sys/block/md0/md/stripe_cache_size", None, 256, 8192)]
    assert "96 MiB" in f.tradeoff
    return True


CASE = Case(nas, lambda: md_sysfs(nas(), "md0", "stripe_cache_size", "8192"), check_stripe)
