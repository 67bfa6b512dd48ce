"""irq-single-cpu: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, changes, fail, nic, server


def _irq_single_fires():
    f = server()
    for irq in nic(f, "ens1f0").irqs:
        irq.counts = {c: (2_000_000 if c == 3 else 0) for c in irq.counts}
    return f


CASE = Case(
    _irq_single_fires, server, lambda fs: {c[3] for c in changes(fs)} == {str(c) for c in range(8, 16)} or fail(fs)
)
