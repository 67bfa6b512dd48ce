"""Choosing where a command works from its options: an inventory's NAS, the lab, or this host."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nastune.sites.base import Site
from nastune.sites.inventory import InventorySite
from nastune.sites.lab import site as lab_site
from nastune.sites.live import LiveSite


def choose(
    lab: bool,
    inventory: Path | None,
    target: str | None,
    clients: str | None = None,
    *,
    root: str = "/",
    scenario: str | None = None,
    resume: bool = False,
    log=print,
    **options: Any,
) -> Site:
    """An inventory's NAS measured from its clients; the lab (with `scenario`, a fresh lab of it,
    or on `resume` the lab as it runs, through its own inventory; with `clients`, through its
    inventory; else from its first client); or this host (`root`) measured at `target`.
    `options` go to the inventory (confirm_timeout, scaling). NasError, InventoryError and
    LabError say why it cannot be reached."""
    if inventory:
        return InventorySite.load(inventory, clients or "all", **options)
    if lab:
        if scenario:
            return lab_site.started(scenario, resume, clients or "all", log, **options)
        if clients is not None:
            return lab_site.inventory_site(clients, **options)
        return lab_site.LabSite()
    return LiveSite(target, root)
