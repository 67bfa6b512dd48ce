"""nic-ring-buffers-small: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, F, changes, client, fail, nic


def _rings_quiet():
    f = client()
    i = nic(f, "enp3s0")
    i.rings = F(i.rings.value.model_copy(update={"current": {"rx": 4096, "tx": 4096}}))
    return f


CASE = Case(
    client,
    _rings_quiet,
    lambda fs: changes(fs) == [("enp3s0", "rx", 256, 4096), ("enp3s0", "tx", 256, 4096)] or fail(fs),
)
