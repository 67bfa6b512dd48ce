"""Collectors: read-only facts about a NAS, one module per area, all through one Root."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, Field

from nastune.areas import AREAS, expand
from nastune.facts import block, kernel_log, mdraid, mounts, network, nfs_client, nfs_server, smb, sysctl, system, zfs
from nastune.facts.block import BlockFacts
from nastune.facts.context import Context, Reading
from nastune.facts.kernel_log import KernelLogFacts
from nastune.facts.mdraid import MdFacts
from nastune.facts.model import Fact, Warning_
from nastune.facts.mounts import MountFacts
from nastune.facts.network import NetworkFacts
from nastune.facts.nfs_client import NfsClientFacts
from nastune.facts.nfs_server import NfsServerFacts
from nastune.facts.smb import SmbFacts
from nastune.facts.sysctl import SysctlFacts
from nastune.facts.system import SystemFacts
from nastune.facts.write_course import WriteCourse
from nastune.facts.zfs import ZfsFacts
from nastune.root import Root

__all__ = ["AREAS", "Facts", "Reading", "collect", "expand"]

SCHEMA = "nastune.facts/1"


class Facts(BaseModel):
    """Everything the collectors saw, by area; an area not collected is None."""

    schema_: str = Field(SCHEMA, alias="schema")
    system: SystemFacts | None = None
    sysctl: SysctlFacts | None = None
    network: NetworkFacts | None = None
    block: BlockFacts | None = None
    md: MdFacts | None = None
    mounts: MountFacts | None = None
    zfs: ZfsFacts | None = None
    nfs_server: NfsServerFacts | None = None
    nfs_client: NfsClientFacts | None = None
    smb: SmbFacts | None = None
    kernel_log: KernelLogFacts | None = None
    numa_bandwidth: Fact[list[list[float]]] | None = None  # measured (GB/s), supplied with --numa-matrix
    write_course: Fact[WriteCourse] | None = None  # measured: a sustained-write run, supplied with --profile
    warnings: list[Warning_] = []

    model_config = {"populate_by_name": True}

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True, exclude_none=True, indent=1)


def collect(root: Root, areas: Iterable[str] = AREAS, reading: Reading | None = None) -> Facts:
    ctx = Context(root, reading or Reading())
    wanted = expand(areas)
    running = system.daemons(ctx)
    collectors = {
        "system": lambda: system.collect(ctx),
        "sysctl": lambda: sysctl.collect(ctx),
        "network": lambda: network.collect(ctx),
        "block": lambda: block.collect(ctx),
        "md": lambda: mdraid.collect(ctx),
        "mounts": lambda: mounts.collect(ctx),
        "zfs": lambda: zfs.collect(ctx),
        "nfs_server": lambda: nfs_server.collect(ctx, running),
        "nfs_client": lambda: nfs_client.collect(ctx),
        "smb": lambda: smb.collect(ctx, running),
        "kernel_log": lambda: kernel_log.collect(ctx),
    }
    found = {area: collectors[area]() for area in wanted}
    return Facts(**found, warnings=ctx.warnings)
