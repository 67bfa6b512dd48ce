"""nic-offloads-disabled: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, F, changes, fail, nas, nic


def _offloads_quiet():
    f = nas()
    feats = dict(nic(f, "enp1s0").features.value)
    feats["generic-receive-offload"] = feats["generic-receive-offload"].model_copy(update={"active": True})
    nic(f, "enp1s0").features = F(feats)
    return f


CASE = Case(
    nas,
    _offloads_quiet,
    lambda fs: changes(fs) == [("enp1s0", "generic-receive-offload", "off", "on")] or fail(fs),
)
