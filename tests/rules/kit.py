"""What the rules' cases build their facts from: facts collected from fixture trees and changed as
little as possible, so each pair of cases differs only in what its rule is about."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from nastune.facts import Facts, collect
from nastune.facts.model import Fact
from nastune.facts.mounts import Mount
from nastune.rules.model import Finding
from nastune.snapshot import open_root
from tests.conftest import ROOTS, need


@cache
def _collected(system: str) -> str:
    with open_root(ROOTS / f"{system}.tar.gz") as root:
        return collect(root).to_json()


def base(system: str) -> Facts:
    return Facts.model_validate(json.loads(_collected(system)))


def nas() -> Facts:
    return base("small-nas-raid5")


def server() -> Facts:
    return base("two-socket-numa")


def client() -> Facts:
    return base("nfs-client-small-rsize")


def F(value, source="test") -> Fact:
    return Fact(value=value, source=source)


def sysctl(facts: Facts, **values) -> Facts:
    for key, value in values.items():
        need(facts.sysctl).values[key.replace("__", ".")] = F(str(value), "/proc/sys/" + key.replace("__", "/"))
    return facts


def nic(facts: Facts, name: str):
    return need(facts.network).interface(name)


def smb(facts: Facts, scope: str, **params) -> Facts:
    conf = need(need(facts.smb).config.value)
    target = conf.globals if scope == "global" else conf.shares.setdefault(scope, {})
    for key, value in params.items():
        target[key.replace("_", " ")] = value
    return facts


def zfs(props: dict[str, str], used: int = 0) -> Facts:
    facts = nas()
    from nastune.facts.zfs import Dataset

    need(facts.zfs).datasets = F([Dataset(name="tank/vm", properties={"used": str(used), **props})], "command: zfs get")
    # mounted below the shared /srv/data: a dataset the NAS serves
    need(need(facts.mounts).mounts.value).append(
        Mount(device="tank/vm", mountpoint="/srv/data/vm", fstype="zfs", options=["rw"], pseudo=False)
    )
    return facts


@dataclass
class Case:
    fires: Callable[[], Facts]
    quiet: Callable[[], Facts]
    check: Callable[[list[Finding]], object]  # truthy when the findings are right


def changes(findings, knob=None):
    return [(c.target, c.key, c.current, c.new) for f in findings for c in f.changes if knob in (None, c.knob)]


def one(findings):
    assert len(findings) == 1, findings
    return findings[0]


def md_sysfs(facts: Facts, array: str, key: str, value: str) -> Facts:
    a = next(a for a in need(facts.md).arrays if a.name == array)
    a.sysfs[key] = F(value)
    return facts


def raid10(chunk: int) -> Facts:
    f = nas()
    a = next(a for a in need(f.md).arrays if a.name == "md0")
    a.level, a.chunk_kb = "raid10", chunk
    return f


def healthy_md():
    f = nas()
    a = next(a for a in need(f.md).arrays if a.name == "md1")
    a.degraded, a.member_status, a.active_disks, a.sync_action, a.sync_percent = False, "UU", 2, None, None
    return md_sysfs(f, "md1", "degraded", "0")


def mount_options(facts: Facts, mountpoint: str, options: list[str]) -> Facts:
    need(need(facts.mounts).at(mountpoint)).options = options
    return facts


def exports(option: str, access: str = "rw", sec: str = "") -> Facts:
    f = nas()
    exports = need(need(f.nfs_server).exports.value)
    exports[:] = [e for e in exports if e.path == "/srv/data"]
    exports[0].clients[0].options = [access, option, "no_subtree_check", *([sec] if sec else [])]
    return f


def udp():
    f = client()
    need(need(f.nfs_client).mounts.value)[0].proto = "udp"
    return fstab_quiet_with(f)


def fstab_quiet_with(f: Facts) -> Facts:
    need(need(f.mounts).fstab.value)[1].options = ["rw", "hard"]
    return f


def fail(findings):
    raise AssertionError([f.model_dump() for f in findings])
