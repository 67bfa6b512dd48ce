"""irqbalance-absent: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.facts import Facts
from tests.conftest import need
from tests.rules.kit import Case, base, nic, one


def vm() -> Facts:
    return base("debian12-vm")


def _multi_queue_vm():
    """This VM with its virtio NIC given four queues, as a multi-queue virtio or PCI NIC has."""
    f = vm()
    eth0 = need(nic(f, "eth0"))
    eth0.rx_queues = eth0.tx_queues = 4
    return f


CASE = Case(_multi_queue_vm, vm, lambda fs: one(fs).target == "eth0" and one(fs).advice)
