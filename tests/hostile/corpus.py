"""A corpus of hostile and malformed inputs for every command that reads a file or a tree.

Each case builds its input in a temporary directory beside an `outside` directory holding a
secret and a FIFO, then names the command to run. The test runs every case and demands: a
clear error (naming what `names` says) or acceptance, never a traceback, never a hang, never
a read or write outside the given root."""

from __future__ import annotations

import json
import os
import shutil
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from tests.conftest import ROOTS

TOKEN = "OUTSIDE-SECRET-7f3a9c"

PYTHON = (  # Python's own words, which an operator should never have to read
    "invalid literal for",
    "could not convert string",
    "Exceeds the limit",
    "values to unpack",
    "object has no attribute",
    "NoneType",
    "unsupported operand",
    "not subscriptable",
    "index out of range",
    "object is not iterable",
)


@dataclass
class Case:
    name: str
    build: Callable[[Path, Path], list[str]]  # (work dir, outside dir) -> CLI arguments
    names: str | None = None  # an error, if any, must mention this


BASES: dict[str, Path] = {}


def base(name: str, cache: Path) -> Path:
    if name not in BASES:
        target = cache / name
        with tarfile.open(ROOTS / f"{name}.tar.gz") as tar:
            tar.extractall(target, filter="data")
        BASES[name] = target
    return BASES[name]


def tree(work: Path, name: str = "small-nas-raid5") -> Path:
    root = work / "root"
    shutil.copytree(base(name, work.parent.parent / "bases"), root, symlinks=True)
    return root


def put(root: Path, path: str, text: str | bytes) -> Path:
    target = root / path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        target.unlink()
    if isinstance(text, bytes):
        target.write_bytes(text)
    else:
        target.write_text(text)
    return target


def fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        path.unlink()
    os.mkfifo(path)
    return path


def plan_file(work: Path, changes: list | object, raw: str | None = None) -> Path:
    path = work / "plan.json"
    path.write_text(
        raw if raw is not None else json.dumps({"schema": "nastune.plan/1", "lab": False, "changes": changes})
    )
    return path


def result(label: str = "before", values=(100.0, 101.0, 99.0), **over) -> dict:
    metric = {"unit": "MB/s", "higher_is_better": True, "values": list(values), "limit": 120.0, "flags": []}
    workload = {
        "workload": "seq-write",
        "target": {"url": "smb://10.0.0.1/data", "kind": "smb"},
        "params": {"size": 1},
        "metrics": {"MB/s": metric},
        "started": "2026-01-01T00:00:00",
        "seconds": 1.0,
    }
    data = {
        "schema": "nastune.results/1",
        "created": "2026-01-01T00:00:00",
        "label": label,
        "provenance": {"nastune": "0.1.0", "kernel": "6.1", "command": ["nastune"], "tools": {}},
        "results": [workload],
    }
    for key, value in over.items():
        if key == "metric":
            metric.update(value)
        elif key == "workload":
            workload.update(value)
        else:
            data[key] = value
    return data


def _compared(data: dict | str, work: Path, outside: Path) -> list[str]:
    return ["compare", "--json", *results(work, data)]


def _reported(data: dict | str, work: Path, outside: Path) -> list[str]:
    return ["report", *results(work, data), "--out", str(work / "r.html")]


def results(work: Path, before: dict | str, after: dict | None = None) -> list[str]:
    paths = []
    for name, data in (("a.json", before), ("b.json", after or result("after", (110.0, 111.0, 109.0)))):
        (work / name).write_text(data if isinstance(data, str) else json.dumps(data))
        paths.append(str(work / name))
    return paths


def journal(root: Path, lines: list) -> Path:
    directory = root / "var/lib/nastune/journal"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "20260101T000000-1.jsonl"
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


HEADER = {"type": "header", "plan": {}, "root": "/", "pid": 1}
SYSCTL_ENTRY = {
    "type": "change",
    "seq": 1,
    "state": "applied",
    "before": {"value": "20"},
    "change": {"id": 1, "knob": "sysctl", "target": "vm.dirty_background_ratio", "new": 5},
}
DEEP = "[" * 100_000 + "]" * 100_000


def _numbers() -> list[Case]:
    """Every numeric file the collectors parse, with values no kernel writes."""
    files = [
        "/proc/sys/vm/dirty_ratio",
        "/proc/sys/net/ipv4/tcp_rmem",
        "/proc/sys/net/core/rmem_max",
        "/sys/block/md0/md/stripe_cache_size",
        "/sys/block/sda/queue/read_ahead_kb",
        "/sys/block/md0/size",
        "/sys/block/md0/md/chunk_size",
        "/proc/fs/nfsd/threads",
        "/sys/class/net/enp1s0/mtu",
        "/sys/class/net/enp1s0/speed",
        "/proc/irq/27/smp_affinity_list",
        "/sys/devices/system/cpu/online",
        "/proc/sys/vm/swappiness",
        "/proc/sys/fs/xfs/xfssyncd_centisecs",
        "/proc/sys/vm/min_free_kbytes",
    ]
    values = {
        "nan": "nan\n",
        "inf": "1e999\n",
        "huge": "9" * 5000 + "\n",
        "superscript": "\u00b2\u00b3\n",
        "arabic": "\u0663\n",
        "negative": "-5\n",
        "zero": "0\n",
        "range": "0-999999999\n",
        "empty": "",
        "overflow": "99999999999999999999999999\n",
    }
    cases = []
    for path in files:
        for label, value in values.items():

            def build(work, outside, path=path, value=value):
                root = tree(work)
                put(root, path, value)
                return ["diagnose", "--root", str(root)]

            cases.append(Case(f"number-{path.strip('/').replace('/', '.')}-{label}", build))
    meminfo = {
        "memtotal-zero": "MemTotal: 0 kB\n",
        "memtotal-huge": f"MemTotal: {'9' * 400} kB\n",
        "memtotal-nan": "MemTotal: nan kB\n",
    }
    for label, text in meminfo.items():
        cases.append(Case(f"number-{label}", partial(_diagnosed_with, "/proc/meminfo", text)))
    numa: dict[str, str | None] = {
        "local-cpulist-empty": "",
        "local-cpulist-range": "0-999999999\n",
        "numa-node-huge": None,
    }
    for label, maybe in numa.items():

        def build(work, outside, label=label, text=maybe):
            root = tree(work, "two-socket-numa")
            device = root / "sys/devices/pci0000:80/0000:80:02.0/0000:81:00.0"
            if text is None:
                put(device, "numa_node", "9" * 30 + "\n")
            else:
                put(device, "local_cpulist", text)
            return ["diagnose", "--root", str(root)]

        cases.append(Case(f"number-{label}", build))
    return cases


def _numa_matrix(text: str, work: Path, outside: Path) -> list[str]:
    return ["diagnose", "--root", str(tree(work)), "--numa-matrix", str(_write(work / "m.json", text))]


def _with(root: Path, path: str, text: str) -> Path:
    put(root, path, text)
    return root


def _diagnosed_with(path: str, text: str, work: Path, outside: Path) -> list[str]:
    return ["diagnose", "--root", str(_with(tree(work), path, text))]


def _markup() -> list[Case]:
    def mount(work, outside):
        root = tree(work)
        mounts = (
            (root / "proc/mounts").read_text() + "/dev/sdf1 /mnt/[/] xfs rw,relatime 0 0\n"
            "/dev/sdf2 /mnt/[backup] xfs rw 0 0\n/dev/sdf3 /mnt/[bold]x ext4 rw 0 0\n"
        )
        put(root, "/proc/mounts", mounts)
        put(root, "/proc/self/mounts", mounts)
        return ["inspect", "--root", str(root)]

    def share(work, outside):
        root = tree(work)
        put(root, "/etc/samba/smb.conf", (root / "etc/samba/smb.conf").read_text() + "\n[[/]]\n   path = /srv/[/]\n")
        return ["inspect", "--root", str(root), "--area", "smb"]

    def kernel_log(work, outside):
        root = tree(work, "two-socket-numa")
        record = next((root / ".nastune/commands").glob("dmesg-*.json"))
        data = json.loads(record.read_text())
        data["stdout"] += "[ 1.0] [/] page allocation failure: order:3 [red]x[/red] \\\n"
        record.write_text(json.dumps(data))
        return ["-v", "inspect", "--root", str(root)]

    def label(work, outside):
        return ["compare", *results(work, result("[/]"), result("[bold]after[/bold] \\"))]

    return [
        Case("markup-mountpoint", mount),
        Case("markup-share", share),
        Case("markup-kernel-log", kernel_log),
        Case("markup-compare-label", label),
    ]


def _escapes() -> list[Case]:
    def command_link(work, outside):
        root = tree(work)
        for record in (root / ".nastune/commands").glob("*.json"):
            record.unlink()
            record.symlink_to(outside / "secret.json")
        return ["inspect", "--root", str(root), "--json"]

    def errors_link(work, outside):
        root = tree(work)
        (root / ".nastune/errors.json").symlink_to(outside / "secret.json")
        (root / ".nastune/listings.json").symlink_to(outside / "fifo")
        return ["inspect", "--root", str(root), "--json"]

    def meta_fifo(work, outside):
        root = tree(work)
        fifo(root / ".nastune/errors.json")
        return ["inspect", "--root", str(root)]

    def command_fifo(work, outside):
        root = tree(work)
        for record in list((root / ".nastune/commands").glob("*.json"))[:2]:
            fifo(record)
        return ["inspect", "--root", str(root)]

    def hard_link(work, outside):
        root = tree(work)
        target = root / "proc/sys/vm/dirty_ratio"
        target.unlink()
        os.link(outside / "kernel-value", target)
        return [
            "apply",
            str(plan_file(work, [{"id": 1, "knob": "sysctl", "target": "vm.dirty_ratio", "new": 10}])),
            "--root",
            str(root),
            "--yes",
        ]

    def hard_link_rollback(work, outside):
        root = tree(work)
        target = root / "proc/sys/vm/dirty_background_ratio"
        target.unlink()
        os.link(outside / "kernel-value", target)
        journal(root, [HEADER, SYSCTL_ENTRY])
        return ["rollback", "--root", str(root)]

    def device(work, outside):
        root = tree(work)
        target = root / "sys/block/sda/queue/read_ahead_kb"
        target.unlink()
        os.mknod(target, 0o600 | 0o020000, os.makedev(1, 3))  # a character device (/dev/null's numbers)
        return [
            "apply",
            str(
                plan_file(
                    work, [{"id": 1, "knob": "sysfs", "target": "/sys/block/sda/queue/read_ahead_kb", "new": 4096}]
                )
            ),
            "--root",
            str(root),
            "--yes",
        ]

    def journal_dotdot(work, outside):
        root = tree(work)
        entry = {
            "type": "change",
            "seq": 1,
            "state": "applied",
            "before": {"files": {"/../../../outside/secret.json": "pwned"}},
            "change": {
                "id": 1,
                "knob": "nfs_export",
                "target": "/srv/data",
                "key": "192.168.1.0/24:async",
                "new": "async",
            },
        }
        journal(root, [HEADER, entry])
        return ["rollback", "--root", str(root)]

    def journal_link(work, outside):
        root = tree(work)
        directory = root / "var/lib/nastune/journal"
        directory.mkdir(parents=True)
        (directory / "20260101T000000-1.jsonl").symlink_to(outside / "secret.json")
        return ["rollback", "--root", str(root)]

    def samba_include(work, outside):
        root = tree(work)
        put(root, "/etc/samba/smb.conf", f"[global]\n   include = {outside / 'fifo'}\n   aio read size = 0\n")
        return [
            "apply",
            str(plan_file(work, [{"id": 1, "knob": "samba", "target": "global", "key": "aio read size", "new": "1"}])),
            "--root",
            str(root),
            "--yes",
        ]

    def snapshot_link(work, outside):
        archive = work / "snap.tar.gz"
        with tarfile.open(archive, "w:gz") as tar:
            info = tarfile.TarInfo("./etc/os-release")
            info.type, info.linkname = tarfile.SYMTYPE, str(outside / "secret.json")
            tar.addfile(info)
            info = tarfile.TarInfo("./../escape")
            data = b"x"
            info.size = len(data)
            import io

            tar.addfile(info, io.BytesIO(data))
        return ["inspect", "--root", str(archive)]

    return [
        Case("escape-command-record-link", command_link),
        Case("escape-meta-links", errors_link),
        Case("escape-meta-fifo", meta_fifo),
        Case("escape-command-fifo", command_fifo),
        Case("escape-apply-hard-link", hard_link),
        Case("escape-rollback-hard-link", hard_link_rollback),
        Case("escape-apply-device", device),
        Case("escape-journal-dotdot", journal_dotdot),
        Case("escape-journal-link", journal_link),
        Case("escape-samba-include", samba_include),
        Case("escape-snapshot-links", snapshot_link),
    ]


def _hangs() -> list[Case]:
    def continuation(work, outside):
        root = tree(work)
        put(root, "/etc/samba/smb.conf", "[global]\n   comment = a \\\n" + "  b \\\n" * 250_000 + "  end\n")
        return ["inspect", "--root", str(root), "--area", "smb"]

    def members(work, outside):
        archive = work / "many.tar.gz"
        with tarfile.open(archive, "w:gz") as tar:
            import io

            for i in range(30_000):
                info = tarfile.TarInfo(f"./proc/x{i}")
                tar.addfile(info, io.BytesIO(b""))
        return ["inspect", "--root", str(archive)]

    def listing(work, outside):
        root = tree(work)
        put(root, "/.nastune/listings.json", json.dumps({"/proc": [str(i) for i in range(200_000)]}))
        return ["inspect", "--root", str(root)]

    def long_exports(work, outside):
        root = tree(work)
        put(root, "/etc/exports", "/srv/data " + "a" * 5_000_000 + "(rw\n")
        return ["diagnose", "--root", str(root)]

    def long_log(work, outside):
        root = tree(work, "two-socket-numa")
        record = next((root / ".nastune/commands").glob("dmesg-*.json"))
        data = json.loads(record.read_text())
        data["stdout"] = "page allocation failure: " + "order:3 " * 1_000_000
        record.write_text(json.dumps(data))
        return ["diagnose", "--root", str(root)]

    def long_journal(work, outside):
        root = tree(work)
        journal(root, [HEADER] + [SYSCTL_ENTRY] * 200_000)
        return ["rollback", "--root", str(root)]

    def journal_fifo(work, outside):
        root = tree(work)
        fifo(root / "var/lib/nastune/journal/20260101T000000-1.jsonl")
        return ["verify", "--root", str(root)]

    return [
        Case("hang-smb-continuation", continuation),
        Case("hang-archive-members", members),
        Case("hang-listing", listing),
        Case("hang-long-exports-line", long_exports),
        Case("hang-long-kernel-log", long_log),
        Case("hang-long-journal", long_journal, names="journal"),
        Case("hang-journal-fifo", journal_fifo, names="journal"),
    ]


def _structure() -> list[Case]:
    cases = []
    plans = {
        "plan-deep": (None, DEEP),
        "plan-changes-not-list": ({"a": 1}, None),
        "plan-change-string": (["sysctl vm.dirty_ratio=1"], None),
        "plan-new-list": ([{"id": 1, "knob": "sysctl", "target": "vm.dirty_ratio", "new": [1, 2]}], None),
        "plan-mtu-inf": (
            [{"id": 1, "knob": "mtu", "target": "enp1s0", "new": 1e308 * 10}],
            '{"schema": "nastune.plan/1", "changes": [{"id": 1, "knob": "mtu", "target": "enp1s0", "new": 1e999}]}',
        ),
        "plan-mtu-huge": ([{"id": 1, "knob": "mtu", "target": "enp1s0", "new": "9" * 5000}], None),
        "plan-irq-range": ([{"id": 1, "knob": "irq_affinity", "target": "irq/27", "new": "0-999999999"}], None),
        "plan-fstab-exec": (
            [{"id": 1, "knob": "nfs_client_mount", "target": "/mnt/data", "key": "rsize", "new": "1,exec,suid"}],
            None,
        ),
        "plan-samba-newline": (
            [
                {
                    "id": 1,
                    "knob": "samba",
                    "target": "global",
                    "key": "aio read size",
                    "new": "1\n[evil]\n   root preexec = touch /tmp/x",
                }
            ],
            None,
        ),
        "plan-samba-key-newline": (
            [{"id": 1, "knob": "samba", "target": "global", "key": "root preexec = /bin/sh\n   x", "new": "1"}],
            None,
        ),
        "plan-ganesha-brace": (
            [
                {
                    "id": 1,
                    "knob": "ganesha_export",
                    "target": "1",
                    "key": "Protocols",
                    "new": "3; } EXPORT { Export_Id = 9; Path = /",
                }
            ],
            None,
        ),
        "plan-sysctl-huge-id": ([{"id": 10**30, "knob": "sysctl", "target": "vm.dirty_ratio", "new": 1}], None),
        "plan-superscript": (
            [{"id": 1, "knob": "sysfs", "target": "/sys/block/sda/queue/read_ahead_kb", "new": "\u00b2\u00b3"}],
            None,
        ),
        "plan-nan": (
            None,
            '{"schema": "nastune.plan/1", "changes": [{"id": 1, "knob": "sysctl", '
            '"target": "vm.dirty_ratio", "new": NaN}]}',
        ),
        "plan-not-utf8": (None, None),
    }
    for label, (changes, raw) in plans.items():

        def build(work, outside, changes=changes, raw=raw, label=label):
            root = tree(work)
            path = plan_file(work, changes, raw)
            if label == "plan-not-utf8":
                path.write_bytes(b'{"schema": "nastune.plan/1", "changes": [\xff\xfe]}')
            return ["apply", str(path), "--root", str(root), "--yes"]

        cases.append(Case(label, build, names="plan.json"))

    result_cases: dict[str, dict | str] = {
        "result-deep": DEEP,
        "result-no-url": result(workload={"target": {"kind": "smb"}}),
        "result-empty-values": result(metric={"values": []}),
        "result-nan": json.dumps(result()).replace("100.0", "NaN"),
        "result-inf": json.dumps(result()).replace("100.0", "1e999"),
        "result-zero": result(metric={"values": [0.0, 0.0, 0.0]}),
        "result-one-zero": result(metric={"values": [100.0, 0.0, 99.0]}),
        "result-negative": result(metric={"values": [-1.0, 100.0, 99.0]}),
        "result-many-repeats": result(metric={"values": [100.0] * 60_000}),
        "result-profile-list": result(workload={"profile": [1, 2]}),
        "result-metrics-list": result(workload={"metrics": [1]}),
        "result-results-null": result(results=None),
        "result-target-int": result(workload={"target": 5}),
    }
    for label, data in result_cases.items():
        cases.append(Case(label, partial(_compared, data), names="a.json"))
        cases.append(Case(label + "-report", partial(_reported, data), names="a.json"))
    cases.append(Case("compare-one-file", lambda w, o: ["compare", results(w, result())[0]]))
    cases.append(Case("report-out-directory", lambda w, o: ["report", *results(w, result()), "--out", str(w)]))
    cases.append(
        Case(
            "report-out-missing-dir",
            lambda w, o: ["report", *results(w, result()), "--out", str(w / "missing" / "r.html")],
            names="missing",
        )
    )
    cases.append(
        Case(
            "report-facts-deep",
            lambda w, o: [
                "report",
                *results(w, result()),
                "--out",
                str(w / "r.html"),
                "--facts",
                str(_write(w / "f.json", DEEP)),
            ],
            names="f.json",
        )
    )
    cases.append(
        Case(
            "report-facts-list",
            lambda w, o: [
                "report",
                *results(w, result()),
                "--out",
                str(w / "r.html"),
                "--facts",
                str(_write(w / "f.json", "[1]")),
                "--findings",
                str(_write(w / "g.json", '{"findings": 5}')),
            ],
        )
    )
    for label, text in {
        "numa-deep": DEEP,
        "numa-ragged": '{"matrix": [[1, 2], [3]]}',
        "numa-nan": '{"matrix": [[NaN]]}',
        "numa-strings": '{"matrix": [["a"]]}',
        "numa-huge": json.dumps({"matrix": [[1.0] * 2000] * 2000}),
    }.items():
        cases.append(Case(label, partial(_numa_matrix, text), names="m.json"))

    def bad_interface(work, outside):
        root = tree(work)
        net = root / "sys/class/net"
        os.makedirs(os.path.join(os.fsencode(net), b"eth\xff\xfe"), exist_ok=True)
        (Path(os.fsdecode(os.path.join(os.fsencode(net), b"eth\xff\xfe"))) / "mtu").write_text("1500\n")
        return ["inspect", "--root", str(root), "--json"]

    def truncated(work, outside):
        root = tree(work)
        archive = work / "snap.tar.gz"
        with tarfile.open(archive, "w:gz") as tar:
            tar.add(root, arcname=".")
        archive.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])
        return ["inspect", "--root", str(archive)]

    def wrong_ethtool(work, outside):
        root = tree(work)
        for record in (root / ".nastune/commands").glob("ethtool*.json"):
            data = json.loads(record.read_text())
            data["stdout"] = 5
            record.write_text(json.dumps(data))
        return ["diagnose", "--root", str(root)]

    def deep_record(work, outside):
        root = tree(work)
        for record in (root / ".nastune/commands").glob("*.json"):
            record.write_text(DEEP)
        put(root, "/.nastune/errors.json", DEEP)
        return ["diagnose", "--root", str(root)]

    def not_a_snapshot(work, outside):
        return ["inspect", "--root", str(_write(work / "x.tar.gz", "not an archive"))]

    cases += [
        Case("interface-non-utf8", bad_interface),
        Case("archive-truncated", truncated, names="snap.tar.gz"),
        Case("record-wrong-types", wrong_ethtool),
        Case("record-deep", deep_record),
        Case("archive-not-an-archive", not_a_snapshot, names="x.tar.gz"),
    ]
    return cases


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _journals() -> list[Case]:
    entries = {
        "journal-not-utf8": [HEADER, b"\xff\xfe{}"],
        "journal-line-int": [HEADER, 5, SYSCTL_ENTRY],
        "journal-line-null": [HEADER, None, SYSCTL_ENTRY],
        "journal-no-seq": [HEADER, {**SYSCTL_ENTRY, "seq": None}],
        "journal-seq-list": [HEADER, {**SYSCTL_ENTRY, "seq": [1]}],
        "journal-change-string": [HEADER, {**SYSCTL_ENTRY, "change": "sysctl"}],
        "journal-no-target": [HEADER, {**SYSCTL_ENTRY, "change": {"id": 1, "knob": "sysctl", "new": 1}}],
        "journal-unknown-knob": [HEADER, {**SYSCTL_ENTRY, "change": {"id": 1, "knob": "warp", "target": "x"}}],
        "journal-before-list": [HEADER, {**SYSCTL_ENTRY, "before": [1]}],
        "journal-files-int": [HEADER, {**SYSCTL_ENTRY, "before": {"files": 5}}],
        "journal-deep-line": [HEADER, DEEP, SYSCTL_ENTRY],
        "journal-no-header": [SYSCTL_ENTRY],
        "journal-header-only": [HEADER],
    }
    cases = []
    for label, lines in entries.items():
        for command in ("rollback", "verify"):

            def build(work, outside, lines=lines, command=command):
                root = tree(work)
                path = journal(root, [])
                path.write_bytes(
                    b"".join(
                        (
                            line
                            if isinstance(line, bytes)
                            else (line if isinstance(line, str) else json.dumps(line)).encode()
                        )
                        + b"\n"
                        for line in lines
                    )
                )
                return [command, "--root", str(root)]

            cases.append(Case(f"{label}-{command}", build, names="journal"))

    def directory(work, outside):
        root = tree(work)
        (root / "var/lib/nastune/journal/20260101T000000-1.jsonl").mkdir(parents=True)
        return ["rollback", "--root", str(root)]

    def loop(work, outside):
        root = tree(work)
        directory = root / "var/lib/nastune/journal"
        directory.mkdir(parents=True)
        (directory / "20260101T000000-1.jsonl").symlink_to("20260101T000000-1.jsonl")
        return ["verify", "--root", str(root)]

    def named(work, outside):
        root = tree(work)
        return ["rollback", "--root", str(root), "--to", "/var/lib/nastune/journal/../../../../etc/passwd"]

    return cases + [
        Case("journal-directory", directory, names="journal"),
        Case("journal-link-loop", loop, names="journal"),
        Case("journal-named-outside", named),
    ]


def _second_round() -> list[Case]:
    """The cases a second hostile review found (issue 23): each was a traceback or a read through
    a hard link to a file outside the root."""
    sysctl_plan = [{"id": 1, "knob": "sysctl", "target": "vm.dirty_ratio", "new": 10}]

    def ethtool_json(stdout: str):
        def build(work, outside):
            root = tree(work)
            for record in (root / ".nastune/commands").glob("ethtool_json*.json"):
                data = json.loads(record.read_text())
                data["stdout"] = stdout
                record.write_text(json.dumps(data))
            return ["inspect", "--root", str(root), "--json"]

        return build

    def journal_dir_file(work, outside):
        root = tree(work)
        put(root, "/var/lib/nastune/journal", "not a directory\n")
        return ["apply", str(plan_file(work, sysctl_plan)), "--root", str(root), "--yes"]

    def journal_dir_immutable(work, outside):
        import subprocess

        root = tree(work)
        directory = root / "var/lib/nastune/journal"
        directory.mkdir(parents=True)
        if subprocess.run(["chattr", "+i", str(directory)], capture_output=True).returncode != 0:
            directory.chmod(0o500)  # not root, or no chattr here: a plain read-only directory
        return ["apply", str(plan_file(work, sysctl_plan)), "--root", str(root), "--yes"]

    def state_loop(work, outside):
        root = tree(work)
        (root / "var/lib").mkdir(parents=True, exist_ok=True)
        (root / "var/lib/nastune").symlink_to("nastune")
        return ["apply", str(plan_file(work, sysctl_plan)), "--root", str(root), "--yes"]

    def state_loop_rollback(work, outside):
        root = tree(work)
        (root / "var/lib").mkdir(parents=True, exist_ok=True)
        (root / "var/lib/nastune").symlink_to("nastune")
        return ["rollback", "--root", str(root)]

    def exports_quote(command: str):
        def build(work, outside):
            root = tree(work)
            put(root, "/etc/exports", '"/srv/data 192.168.1.0/24(rw,sync)\n/srv/b "c(rw)\n')
            return [command, "--root", str(root)] + (["--out", str(work / "plan.json")] if command == "plan" else [])

        return build

    def irq_garbage(work, outside):
        root = tree(work)
        text = (root / "proc/interrupts").read_text()
        put(root, "/proc/interrupts", text + " 99999999999999999999999: 1 2 PCI-MSI eth0\n x-y: 5 eth0-rx\n")
        return ["diagnose", "--root", str(root)]

    def persist_exists(work, outside):
        root = tree(work)
        (root / "etc/sysctl.d/99-nastune.conf").mkdir(parents=True, exist_ok=True)
        return ["apply", str(plan_file(work, sysctl_plan)), "--root", str(root), "--yes", "--persist"]

    def hard_linked(path: str, command: str):
        def build(work, outside):
            root = tree(work)
            target = root / path.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.exists():
                target.unlink()
            secret = outside / "config"
            secret.write_text(f"# {TOKEN}\nvm.dirty_ratio = 1 # {TOKEN}\n[{TOKEN}]\n   path = /{TOKEN}\n")
            os.link(secret, target)
            return [command, "--root", str(root), "--json"] if command == "inspect" else [command, "--root", str(root)]

        return build

    def lock_hard_link(work, outside):
        root = tree(work)
        lock = root / "var/lib/nastune/lock"
        lock.parent.mkdir(parents=True, exist_ok=True)
        os.link(outside / "kernel-value", lock)
        return ["apply", str(plan_file(work, sysctl_plan)), "--root", str(root), "--yes"]

    return [
        Case("record-ethtool-wrong-type", ethtool_json('[5, "x", null]')),
        Case("record-ethtool-nested", ethtool_json(json.dumps([{"name": {"a": [[[[{}]]]]}, "x": 1}]))),
        Case("record-ethtool-deep", ethtool_json("[" * 50_000 + "]" * 50_000)),
        Case("journal-dir-is-a-file", journal_dir_file, names="journal"),
        Case("journal-dir-immutable", journal_dir_immutable, names="journal"),
        Case("state-symlink-loop-apply", state_loop),
        Case("state-symlink-loop-rollback", state_loop_rollback),
        Case("exports-unbalanced-quote-diagnose", exports_quote("diagnose")),
        Case("exports-unbalanced-quote-plan", exports_quote("plan")),
        Case("irq-garbage", irq_garbage),
        Case("persist-target-exists", persist_exists),
        Case("hard-link-sysctl-conf", hard_linked("/etc/sysctl.conf", "inspect")),
        Case("hard-link-fstab", hard_linked("/etc/fstab", "inspect")),
        Case("hard-link-smb-conf", hard_linked("/etc/samba/smb.conf", "inspect")),
        Case("hard-link-smb-conf-diagnose", hard_linked("/etc/samba/smb.conf", "diagnose")),
        Case("lock-hard-link", lock_hard_link),
    ]


def _fourth_round() -> list[Case]:
    """Input at fault that once ended in an internal error (exit 70), or in a message without
    the file it was about."""

    def driver_not_utf8(work, outside):
        root = tree(work)
        link = root / "sys/devices/pci0000:00/0000:00:1c.0/0000:01:00.0/driver"
        link.unlink()
        os.symlink(b"../../../../bus/pci/drivers/\xff\xfe-nic", bytes(link))
        return ["inspect", "--root", str(root), "--json"]

    def snapshot_link_loop(work, outside):
        archive = work / "snap.tar.gz"
        with tarfile.open(archive, "w:gz") as tar:
            tar.add(tree(work), arcname=".")
            for name, target in (("etc/loop1", "loop2"), ("etc/loop2", "loop1"), ("etc/loop1/x", "y")):
                info = tarfile.TarInfo(f"./{name}")
                info.type, info.linkname = tarfile.SYMTYPE, target
                tar.addfile(info)
        return ["inspect", "--root", str(archive)]

    def cpu_online_garbage(work, outside):
        root = tree(work)
        put(root, "/sys/devices/system/cpu/online", "x\n")
        change = {"id": 1, "knob": "irq_affinity", "target": "irq/27", "new": "0"}
        return ["apply", str(plan_file(work, [change])), "--root", str(root), "--yes"]

    def exports_long_line(command):
        def build(work, outside):
            root = tree(work)
            put(root, "/etc/exports", "/srv/data " + "h" * 70_000 + "(rw,sync)\n")
            return [command, "--root", str(root)]

        return build

    return [
        Case("driver-name-not-utf8", driver_not_utf8),
        Case("snapshot-symlink-loop", snapshot_link_loop),
        Case("cpu-online-garbage-apply", cpu_online_garbage, names="/sys/devices/system/cpu/online"),
        Case("exports-long-line-diagnose", exports_long_line("diagnose"), names="/etc/exports"),
        Case("exports-long-line-plan", exports_long_line("plan"), names="/etc/exports"),
    ]


def all_cases() -> list[Case]:
    return (
        _numbers() + _markup() + _escapes() + _hangs() + _structure() + _journals() + _second_round() + _fourth_round()
    )


def scenario_cases() -> dict[str, str | None]:
    """Scenario files that would inject a directive, a share or an export block, or overflow."""
    return {
        "samba-newline": '[samba]\n"aio read size" = "0\\n[evil]\\n   root preexec = touch /tmp/pwned"\n',
        "samba-key-newline": '[samba]\n"aio\\nroot preexec" = "1"\n',
        "share-quote": '[samba_share]\n"comment" = "x\\" ; y"\n',
        "ganesha-brace": '[ganesha_export]\nProtocols = "3; } EXPORT { Export_Id = 9; Path = /; Access_Type = RW"\n',
        "ganesha-key": '[ganesha_export]\n"Path = /; X" = "1"\n',
        "mount-option-comma": '[storage]\nmount_options = ["noatime,exec"]\n',
        "tcp-rmem-newline": '[network]\ntcp_rmem = "4096 87380 6291456\\nnet.ipv4.ip_forward=1"\n',
        "rate-nines": f'[network]\nrate = "{"9" * 400}gbit"\n',
        "size-huge": f'[storage]\nsize = "{"9" * 400}G"\n',
        "cpus-inf": "[limits]\ncpus = inf\n",
        "cpus-nan": "[limits]\ncpus = nan\n",
        "memory-garbage": '[limits]\nmemory = "1G; rm -rf /"\n',
        "deep": "a = " + "[" * 5000 + "]" * 5000 + "\n",
        "not-utf8": None,
    }
