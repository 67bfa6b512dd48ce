"""Kernel tunables under /proc/sys that NAS rules read: net.core, TCP, vm, fs.xfs, sunrpc.

Whole families are listed from the kernel; keys that rules ask for by name and
that this kernel lacks (such as the legacy fs.xfs.xfsbufd_centisecs) are kept
as facts marked absent, so a rule can say so instead of failing.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from nastune.conf import sysctl as sysctl_conf
from nastune.facts.context import Context
from nastune.facts.model import Fact, Section

AREA = "sysctl"

# (directory under /proc/sys, name prefix) whose every key is collected.
FAMILIES = (
    ("net/core", ""),
    ("net/ipv4", "tcp_"),
    ("vm", "dirty"),
    ("vm", "min_free_kbytes"),
    ("vm", "swappiness"),
    ("vm", "vfs_cache_pressure"),
    ("vm", "zone_reclaim_mode"),
    ("vm", "overcommit"),
    ("fs/xfs", ""),
    ("sunrpc", ""),
)

# Keys that rules read by name; recorded as absent when the kernel does not have them.
EXPECTED = (
    "net.core.rmem_max",
    "net.core.wmem_max",
    "net.core.rmem_default",
    "net.core.wmem_default",
    "net.core.netdev_max_backlog",
    "net.core.netdev_budget",
    "net.core.netdev_budget_usecs",
    "net.core.somaxconn",
    "net.ipv4.tcp_rmem",
    "net.ipv4.tcp_wmem",
    "net.ipv4.tcp_mem",
    "net.ipv4.tcp_window_scaling",
    "net.ipv4.tcp_timestamps",
    "net.ipv4.tcp_sack",
    "net.ipv4.tcp_congestion_control",
    "net.ipv4.tcp_moderate_rcvbuf",
    "net.ipv4.tcp_slow_start_after_idle",
    "net.ipv4.tcp_notsent_lowat",
    "net.core.default_qdisc",
    "vm.min_free_kbytes",
    "vm.dirty_ratio",
    "vm.dirty_background_ratio",
    "vm.dirty_bytes",
    "vm.dirty_background_bytes",
    "vm.dirty_expire_centisecs",
    "vm.dirty_writeback_centisecs",
    "vm.swappiness",
    "vm.vfs_cache_pressure",
    "vm.zone_reclaim_mode",
    "fs.xfs.xfssyncd_centisecs",
    "fs.xfs.xfsbufd_centisecs",
    "fs.xfs.age_buffer_centisecs",
    "sunrpc.tcp_slot_table_entries",
)

ABSENT = "absent on this kernel"
REMOVED = {"net.ipv4.tcp_tw_recycle": "removed in Linux 4.12; it broke clients behind NAT"}


class BootSetting(BaseModel):
    value: str
    file: str
    line: int


class SysctlFacts(Section):
    values: dict[str, Fact[str]]
    boot: dict[str, BootSetting] = Field(
        default_factory=dict
    )  # the file line that sets each key at boot (the last to apply)
    boot_problems: list[str] = Field(default_factory=list)  # lines of those files that fail at boot, with file and line

    def get(self, key: str) -> Fact[str]:
        return self.values.get(key) or Fact.missing(_path(key), "not collected")

    def ints(self, key: str) -> list[int] | None:
        """A known value as integers ('4096 131072 6291456' -> three), or None."""
        fact = self.get(key)
        if not fact.known:
            return None
        words = (fact.value or "").split()
        if not all(w.lstrip("-").isascii() and w.lstrip("-").isdigit() and len(w) <= 21 for w in words):
            return None  # not numbers, or beyond the kernel's 64 bits
        return [int(w) for w in words]

    def int(self, key: str) -> int | None:
        got = self.ints(key)
        return got[0] if got and len(got) == 1 else None


def _path(key: str) -> str:
    return "/proc/sys/" + key.replace(".", "/")


def _value(text: str) -> str:
    return " ".join(text.split())


def _boot(ctx: Context) -> tuple[dict[str, BootSetting], list[str]]:
    """What the boot-time sysctl files set (sysctl.d(5)'s order: the last line wins), and the
    lines of them that fail at boot."""
    boot: dict[str, BootSetting] = {}
    problems: list[str] = []
    for path in sysctl_conf.order(ctx.listdir, ctx.root.exists):
        text = ctx.text(path)
        if text is None:
            continue
        found, bad = sysctl_conf.parse(text, path)
        boot.update({k: BootSetting(value=s.value, file=s.path, line=s.line) for k, s in found.items()})
        problems += bad + [why for k, s in found.items() if (why := _unknown(ctx, k, s))]
    return boot, problems


def _unknown(ctx: Context, key: str, setting: sysctl_conf.Setting) -> str:
    """Why systemd-sysctl fails on a key this kernel lacks, or "": judged only in a family whose
    directory is listed whole (a tree may hold only what nastune collected)."""
    directory, _, name = key.rpartition(".")
    directory = directory.replace(".", "/")
    family = any(directory == d and name.startswith(p) for d, p in FAMILIES)
    listed = family and ctx.root.isdir(f"/proc/sys/{directory}")
    if setting.optional or not listed or ctx.root.exists(_path(key)):
        return ""
    why = f" ({REMOVED[key]})" if key in REMOVED else ""
    return f"{setting.path} line {setting.line}: {key} does not exist on this kernel{why}, and setting it fails at boot"


def collect(ctx: Context) -> SysctlFacts:
    keys = set(EXPECTED)
    for directory, prefix in FAMILIES:
        for name in ctx.listdir(f"/proc/sys/{directory}"):
            if name.startswith(prefix) and not ctx.root.isdir(f"/proc/sys/{directory}/{name}"):
                keys.add(f"{directory.replace('/', '.')}.{name}")
    values = {}
    for key in sorted(keys):
        fact = ctx.fact(_path(key), _value)
        if not fact.known and fact.unknown == "missing":
            fact = Fact.missing(fact.source, ABSENT)
        values[key] = fact
    boot, problems = _boot(ctx)
    return SysctlFacts(values=values, boot=boot, boot_problems=problems)
