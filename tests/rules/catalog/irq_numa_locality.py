"""irq-numa-locality: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, F, nic, one, server


def _irqs_local():
    f = server()
    i = nic(f, "ens1f0")
    for irq in i.irqs:
        irq.affinity = F(list(i.local_cpus.value))
    return f


def check_irq_numa(findings):
    f = one(findings)
    assert f.target == "ens1f0"
    assert len(f.changes) == 9
    assert {c.new for c in f.changes} == {str(c) for c in range(8, 16)}
    assert all(c.current == "0,1,2,3,4,5,6,7" for c in f.changes)
    return True


CASE = Case(server, _irqs_local, check_irq_numa)
