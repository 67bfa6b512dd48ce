"""The kernel lab as a Site: its NAS and client through the inventory it writes, measured where
the client mounts the NAS's NFS export with the kernel's client (the mount whose options the
NFS article tunes), since the user-space clients never see a client's mount options."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nastune.lab import scenario as scenarios
from nastune.sites.inventory import InventorySite
from nastune.sites.lab.kernel import KernelLab
from nastune.sites.lab.lab import require_root


class KernelLabSite(InventorySite):
    def kinds(self, target: str | None) -> list[str]:
        return [target] if target else ["mount"]

    def default_workloads(self) -> list[str]:
        return ["seq-write", "seq-read"]


def only_up() -> bool:
    """Whether the kernel lab is the one lab up: then --lab means it (the namespace lab when both are)."""
    from nastune.sites.lab.lab import Lab  # lazy: the namespace lab's parts, only to ask whether it is up

    return KernelLab().state.up and not Lab().state.up


def running(clients: str = "all", **options: Any) -> KernelLabSite:
    """The kernel lab as it runs, through its inventory."""
    return KernelLabSite.load(KernelLab().inventory_path, clients, **options)


def started(
    scenario_name: str, clients: str = "all", log: Callable[[str], None] = print, **options: Any
) -> KernelLabSite:
    """A fresh kernel lab of `scenario_name` (a guest running is taken down first: optimize starts
    from the NAS as it ships), through its inventory."""
    require_root()
    chosen = scenarios.load(scenario_name)
    log(f"kernel lab: starting from a fresh {chosen.name}")
    guest = KernelLab()
    if guest.state.exists:
        guest.down(log)
    guest.up(chosen, log)
    return KernelLabSite.load(guest.inventory_path, clients, **options)
