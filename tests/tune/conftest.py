"""A temporary root with the files every file-based knob touches, in their real formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

FILES = {
    "/proc/sys/vm/dirty_ratio": "40\n",
    "/proc/sys/net/ipv4/tcp_rmem": "4096\t16384\t65536\n",
    "/sys/block/md0/md/stripe_cache_size": "256\n",
    "/sys/block/sda/queue/scheduler": "[mq-deadline] none\n",
    "/sys/block/sda/queue/read_ahead_kb": "128\n",
    "/proc/irq/30/smp_affinity_list": "0-3\n",
    "/sys/devices/system/cpu/online": "0-3\n",
    "/proc/fs/nfsd/threads": "8\n",
    "/sys/class/net/eth0/mtu": "1500\n",
    "/proc/self/mountinfo": "36 25 0:53 / /mnt/data rw,relatime shared:1 - nfs nas:/srv/data rw,vers=3,rsize=8192\n",
    "/sys/class/bdi/0:53/read_ahead_kb": "128\n",  # the NFS mount's bdi, named after its device
    "/etc/samba/smb.conf": "# NAS\n[global]\n   workgroup = HOME\n   aio read size = 0\n\n[data]\n   path = /srv/data\n",
    "/etc/ganesha/ganesha.conf": "EXPORT {\n    Export_Id = 1;\n    Path = /srv/data;\n    Pseudo = /data;\n"
    "    MaxRead = 8192;\n    FSAL { Name = VFS; }\n}\n",
    "/etc/exports": "/srv/data 192.168.1.0/24(rw,sync,no_subtree_check)\n",
    "/etc/default/irqbalance": '#IRQBALANCE_ONESHOT=\nIRQBALANCE_ARGS="--policyscript=/etc/irq.sh"\n',
    "/etc/fstab": "UUID=abc / ext4 errors=remount-ro 0 1\nnas:/srv/data /mnt/data nfs rw,hard,intr,rsize=8192 0 0\n"
    "//nas/data /mnt/smb cifs credentials=/root/.smb,vers=3.1.1 0 0\n",
    # two CPUs left at different governors: a rollback must put back each one's own
    **{
        f"/sys/devices/system/cpu/cpu{n}/cpufreq/{name}": text
        for n, governor in ((0, "powersave"), (1, "schedutil"))
        for name, text in (
            ("scaling_governor", f"{governor}\n"),
            ("scaling_available_governors", "performance powersave schedutil\n"),
        )
    },
}

CHANGES: list[dict] = [
    {"knob": "sysctl", "target": "vm.dirty_ratio", "new": 10},
    {"knob": "sysctl", "target": "net.ipv4.tcp_rmem", "new": "4096 16384 6291456"},
    {"knob": "sysfs", "target": "/sys/block/md0/md/stripe_cache_size", "new": 8192},
    {"knob": "sysfs", "target": "/sys/block/sda/queue/scheduler", "new": "none"},
    {"knob": "sysfs", "target": "/sys/block/sda/queue/read_ahead_kb", "new": 4096},
    {"knob": "irq_affinity", "target": "irq/30", "new": "2"},
    {"knob": "nfsd_threads", "target": "nfsd", "new": 32},
    {"knob": "mtu", "target": "eth0", "new": 9000},
    {"knob": "samba", "target": "global", "key": "aio read size", "new": "1"},
    {"knob": "samba", "target": "data", "key": "use sendfile", "new": "yes"},
    {"knob": "ganesha_export", "target": "1", "key": "MaxRead", "new": 1048576},
    {
        "knob": "nfs_export",
        "target": "/srv/data",
        "key": "192.168.1.0/24:async",
        "new": "async",
    },
    {"knob": "nfs_client_mount", "target": "/mnt/data", "key": "rsize", "new": 1048576},
    {"knob": "nfs_client_mount", "target": "/mnt/data", "key": "intr", "new": None},
    {"knob": "nfs_client_mount", "target": "/mnt/smb", "key": "multichannel", "new": "multichannel"},
    {"knob": "nfs_client_mount", "target": "/mnt/smb", "key": "max_channels", "new": 4},
    {"knob": "mount_read_ahead", "target": "/mnt/data", "new": 15360},
    {"knob": "cpu_governor", "target": "cpufreq", "new": "performance"},
    {"knob": "irqbalance_ban", "target": "irq/30", "new": "banned"},
    {"knob": "samba", "target": "global", "key": "server signing", "new": "disabled"},  # last: tests read CHANGES[-1]
]


def make_plan(changes: list[dict]) -> dict:
    return {"schema": "nastune.plan/1", "lab": False, "changes": [{"id": i + 1, **c} for i, c in enumerate(changes)]}


@pytest.fixture
def root(tmp_path) -> Path:
    base = tmp_path / "root"
    for path, text in FILES.items():
        target = base / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return base


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "var/lib/nastune" not in str(p)
    }


def write_plan(tmp_path: Path, changes: list[dict], name: str = "plan.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(make_plan(changes)))
    return path


def applied(plan, system, **options):
    """executor.apply as a workflow calls it: holding the system's lock."""
    from nastune.tune import executor, lock

    with lock.hold(system, "test"):
        return executor.apply(plan, system, **options)


def rolled_back(journal, system, **options):
    """rollback as a workflow calls it: holding the system's lock."""
    from nastune.tune import lock
    from nastune.tune.rollback import rollback

    with lock.hold(system, "test"):
        return rollback(journal, system, **options)
