"""ARCHITECTURE.md's table "to add X, touch these files", checked by doing it: a throwaway rule,
setting, workload and protocol are each added to a copy of the checkout, and the registry's
conformance tests and the tests that use it, run on that copy, pass with the files the table
names and no other (what is generated from the registry, the index `explain` reads and
docs/tuning.md's list of settings, is written by its command, not by hand). The protocol's lab
server is not started there: its server, rsync, is a package the copy's setup would install."""

from __future__ import annotations

import filecmp
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

TOP = Path(__file__).parents[2]
# written from the registry by python -m nastune.rules.index and python -m nastune.tune.knobs.listing
GENERATED = {"src/nastune/rules/index.json", "docs/tuning.md"}
WRITERS = [["nastune.rules.index"], ["nastune.tune.knobs.listing", "docs/tuning.md"]]

RULE = '''"""# throwaway-checksum-off: ZFS checksums off on a served dataset

## Problem
A dataset whose blocks carry no checksum: ZFS cannot tell a corrupted read from a good one.

## Detection
zfs get checksum: off on a dataset a share serves.

## Fix
`zfs_property` checksum=on.

## Trade-off
A checksum per block, computed at every write and checked at every read.

## Source
zfsprops(7), checksum.
"""

from nastune.rules.model import Rule, Severity
from nastune.rules.parameter import Slow, zfs

RULE = Rule(
    id="throwaway-checksum-off",
    title="ZFS checksums off on a served dataset",
    area="zfs",
    severity=Severity.low,
    check=zfs("checksum", Slow(("off",), "on", 1, lambda name, *_: f"Dataset {name} has no checksums.")),
    needs=("zfs",),
    gain="Corrupted blocks are found, and repaired from redundancy.",
    tradeoff="A checksum per block.",
    source="zfsprops(7), checksum",
)
'''

KNOB = """

class ThrowawayAutogroup(FileValue):
    doc = "the scheduler's grouping of a session's tasks (target: autogroup)"
    persists = "unit"
    kind, phase = "throwaway_autogroup", 10

    def validate(self, change: Change) -> None:
        _int_range(change, 0, 1, "throwaway_autogroup")

    def path(self, change: Change) -> str:
        return "/proc/sys/kernel/sched_autogroup_enabled"
"""
FILE_BEFORE = '    "/proc/fs/nfsd/threads": "8\\n",\n'  # tests/tune/conftest.py's files of a root
FILE = '    "/proc/sys/kernel/sched_autogroup_enabled": "1\\n",\n'
LAST = '    {"knob": "samba", "target": "global", "key": "server signing"'  # CHANGES' last: tests read CHANGES[-1]
CHANGE = '    {"knob": "throwaway_autogroup", "target": "autogroup", "new": 0},\n'

WORKLOAD = """

class ThrowawayWriteLatency(OnPath):
    name, title = "throwaway-write-latency", "Per-request write latency"
    path = "write"
    doc = "4 KiB random writes one at a time with direct I/O: the latency a single write sees."
    source = "fio(1), https://fio.readthedocs.io"

    def metrics(self, params: Params) -> dict[str, Metric]:
        return {"latency p50": Metric("us", False)}

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        job = fio.Job("tw", "randwrite", 4 * KiB, 4 * MiB, {"runtime": "1", "time_based": "1"})
        return {"latency p50": fio.run_jobs(target, [job])["tw"]["lat_us_p50"]}
"""
WORKLOAD_TEST = """import json

from tests.conftest import run_cli


def test_it_measures_a_path(tmp_path):
    out = tmp_path / "r.json"
    run_cli("bench", "--target", str(tmp_path), "-w", "throwaway-write-latency", "--repeats", "2", "--out", str(out))
    (r,) = json.loads(out.read_text())["results"]
    assert len(r["metrics"]["latency p50"]["values"]) == 2
"""

CASE = """from tests.rules.kit import Case, changes, fail, zfs

CASE = Case(
    lambda: zfs({"checksum": "off"}),
    lambda: zfs({"checksum": "on"}),
    lambda fs: changes(fs) == [("tank/vm", "checksum", "off", "on")] or fail(fs),
)
"""

PROTOCOL = '''"""rsync's daemon protocol (rsync://host/module/): rsync as the client, an anonymous module."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nastune.protocols.base import Protocol
from nastune.protocols.client import Call, Words, client_name, empty_files, located, on_client, timed

if TYPE_CHECKING:
    from nastune.login import Login
    from nastune.protocols.client import Target


class Rsyncd(Protocol):
    name, title, server = "rsync", "rsync (daemon)", "rsyncd"
    tools, server_tools = ("rsync",), ("rsync",)
    lab_share, share_var = "data", "nastune_rsync_module"
    port, processes, order = 873, ("rsync",), 4
    client_version = ("rsync", ("rsync", "--version"))
    words = Words(not_found=("No such file or directory (2)",), refused=("@ERROR: auth failed",))

    def check(self, host: str, share: str, login: Login | None = None) -> Call:
        return Call(["rsync", "--contimeout=5", f"rsync://{host}/{share}/"])

    def _url(self, target: Target, name: str = "") -> str:
        return f"rsync://{target.host}/{located(target)[1]}/{client_name(name, 'rsync') if name else ''}"

    def upload(
        self, target: Target, local: str, name: str, sent: list[tuple[float, int]] | None = None
    ) -> tuple[float, float]:
        argv = ["rsync", "--inplace", local, self._url(target, name)]
        return timed(target, argv, "rsync upload", words=self.words, sent=sent)

    def download(self, target: Target, name: str, from_root: bool = False) -> tuple[float, float]:
        url = f"rsync://{target.host}/{name}" if from_root else self._url(target, name)
        argv = ["rsync", "--inplace", "--write-devices", url, "/dev/null"]
        return timed(target, argv, f"rsync download {name}", words=self.words)

    def remove(self, target: Target, name: str) -> None:
        """An empty directory synced over the module's, deleting `name` alone."""
        with empty_files(target, "rsync-empty", 0, "rsync delete") as empty:
            only = [f"--include=/{client_name(name, 'rsync')}", "--exclude=*"]
            argv = ["rsync", "-r", "--delete", *only, f"{empty}/", self._url(target)]
            on_client(target, argv, "rsync delete", words=self.words)


RSYNCD = Rsyncd()
'''
SERVER = '''"""rsync's daemon serving the lab's directory as one writable module, anonymous."""

from __future__ import annotations

from pathlib import Path

from nastune.lab import network
from nastune.lab.procs import spawn, write_file
from nastune.lab.scenario import Scenario
from nastune.lab.sh import in_ns
from nastune.lab.state import Process, State
from nastune.login import Login
from nastune.protocols.rsyncd import RSYNCD
from nastune.sites.lab.serving.base import Serving


class RsyncdServing(Serving):
    protocol = RSYNCD

    def start(
        self, state: State, directory: Path, share: str, scenario: Scenario, cgroups: list[str], login: Login
    ) -> Process:
        module = f"[{RSYNCD.lab_share}]\\npath = {share}\\nread only = no\\n"
        conf = write_file(directory / "rsyncd.conf", "use chroot = no\\nuid = root\\ngid = root\\n" + module)
        daemon = ["rsync", "--daemon", "--no-detach", f"--config={conf}", f"--address={network.NAS_IP}"]
        log = directory / "logs" / "rsyncd.out"
        return self.ready(spawn(state, self.protocol.server, in_ns(network.NAS_NS, daemon), log, cgroups), None)


SERVING = RsyncdServing()
'''
# the three files besides the protocol's two that name it: what, the line it follows, the line added
NAMED = [
    ("scripts/setup", " rpcbind vsftpd ", " rpcbind vsftpd rsync "),  # its server's package, installed
    ("src/nastune/facts/system.py", '    "vsftpd",\n', '    "vsftpd",\n    "rsync",\n'),  # the daemon inspect lists
    ("src/nastune/packages.py", '"rpcinfo": "rpcbind",\n', '"rpcinfo": "rpcbind",\n        "rsync": "rsync",\n'),
]
SEEN = """from nastune.bench.targets import parse
from nastune.facts.system import DAEMONS
from nastune.packages import PACKAGES
from nastune.protocols import PROTOCOLS
from nastune.sites.lab.serving import SERVING
t = parse("rsync://10.0.0.1/data")
print(list(PROTOCOLS), SERVING["rsync"].protocol is PROTOCOLS["rsync"], t.kind, t.share, "rsync" in DAEMONS, PACKAGES["rsync"])
"""


def _copy(to: Path) -> None:
    """The checkout's tracked files, as a clone holds them."""
    tracked = subprocess.run(["git", "-C", str(TOP), "ls-files", "-z"], capture_output=True, text=True, check=True)
    for name in filter(None, tracked.stdout.split("\0")):
        if (TOP / name).is_file():
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(TOP / name, to / name)


def _passes(copy: Path, *tests: str) -> str:
    """Write what is generated from the registries, then run `tests` on the copy: their output."""
    env = {**os.environ, "PYTHONPATH": f"{copy / 'src'}{os.pathsep}{copy}"}  # before the installed nastune
    for writer in WRITERS:
        subprocess.run([sys.executable, "-m", *writer], cwd=copy, env=env, check=True, capture_output=True)
    argv = [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", *tests]
    done = subprocess.run(argv, cwd=copy, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:]
    return done.stdout


def _touched(copy: Path) -> set[str]:
    """The copy's files that the checkout does not hold, or holds otherwise."""
    touched = set()
    for path in copy.rglob("*"):
        name = path.relative_to(copy).as_posix()
        if not path.is_file() or "__pycache__" in name or name.startswith(".pytest_cache"):
            continue
        if not (TOP / name).is_file() or not filecmp.cmp(path, TOP / name, shallow=False):
            touched.add(name)
    return touched - GENERATED


def test_a_rule_takes_its_module_and_its_case(tmp_path):
    copy = tmp_path / "checkout"
    _copy(copy)
    (copy / "src/nastune/rules/catalog/throwaway_checksum_off.py").write_text(RULE)
    (copy / "tests/rules/catalog/throwaway_checksum_off.py").write_text(CASE)
    said = _passes(
        copy, "tests/rules/test_rules.py", "tests/rules/test_index.py", "-k", "throwaway or conformance or index"
    )
    ran = re.findall(r"::(\w+)\[throwaway-checksum-off\] PASSED", said)  # fires, stays quiet, ...
    assert {"test_rule_fires_with_evidence_and_values", "test_rule_stays_quiet"} <= set(ran), said[-3000:]
    assert _touched(copy) == {
        "src/nastune/rules/catalog/throwaway_checksum_off.py",
        "tests/rules/catalog/throwaway_checksum_off.py",
    }
    assert re.search(r"\| a \*\*rule\*\*[^|\n]*\|[^\n]*\*\*2 files\*\*", _table())  # what the table says


def test_a_setting_takes_its_class_and_a_change_a_test_makes(tmp_path):
    copy = tmp_path / "checkout"
    _copy(copy)
    kernel = copy / "src/nastune/tune/knobs/kernel.py"
    kernel.write_text(kernel.read_text() + KNOB)
    conftest = copy / "tests/tune/conftest.py"
    text = conftest.read_text().replace(FILE_BEFORE, FILE_BEFORE + FILE).replace(LAST, CHANGE + LAST)
    conftest.write_text(text)
    tests = ["tests/tune/test_knobs_registry.py", "tests/tune/test_apply.py", "tests/docs/test_readme.py"]
    said = _passes(copy, *tests, "-k", "registry or knob or throwaway or every_change")
    assert re.search(r"throwaway_autogroup[^\n]* PASSED", said), said[-3000:]  # applied, read back, rolled back
    assert _touched(copy) == {"src/nastune/tune/knobs/kernel.py", "tests/tune/conftest.py"}
    assert re.search(r"\| a \*\*setting\*\*[^|\n]*\|[^\n]*\*\*2 files\*\*", _table())


def test_a_workload_takes_its_class_and_its_test(tmp_path):
    copy = tmp_path / "checkout"
    _copy(copy)
    module = copy / "src/nastune/bench/workloads.py"
    text = module.read_text().replace("\n\nWORKLOADS: dict", WORKLOAD + "\n\nWORKLOADS: dict")
    module.write_text(text.replace("        Latency(),\n", "        Latency(),\n        ThrowawayWriteLatency(),\n"))
    (copy / "tests/bench/test_throwaway_workload.py").write_text(WORKLOAD_TEST)
    tests = ["tests/bench/test_workloads_registry.py", "tests/bench/test_throwaway_workload.py", "tests/docs"]
    said = _passes(copy, *tests, "-k", "not paths_named")  # that one asks git, which a copy is not
    assert "test_throwaway_workload.py::test_it_measures_a_path PASSED" in said, said[-3000:]
    assert _touched(copy) == {"src/nastune/bench/workloads.py", "tests/bench/test_throwaway_workload.py"}
    assert re.search(r"\| a \*\*workload\*\*[^|\n]*\|[^\n]*\*\*2 files\*\*", _table())


def _table() -> str:
    return (TOP / "ARCHITECTURE.md").read_text()


def test_a_protocol_takes_its_module_its_lab_server_and_three_names(tmp_path):
    copy = tmp_path / "checkout"
    _copy(copy)
    (copy / "src/nastune/protocols/rsyncd.py").write_text(PROTOCOL)
    (copy / "src/nastune/sites/lab/serving/rsyncd.py").write_text(SERVER)
    for name, before, after in NAMED:
        text = (copy / name).read_text()
        assert text.count(before) == 1, name
        (copy / name).write_text(text.replace(before, after))
    said = _passes(copy, "tests/protocols/test_protocols_registry.py", "tests/bench/test_workloads_registry.py")
    assert "failed" not in said and " passed" in said, said[-3000:]
    env = {**os.environ, "PYTHONPATH": f"{copy / 'src'}{os.pathsep}{copy}"}
    seen = subprocess.run([sys.executable, "-c", SEEN], cwd=copy, env=env, capture_output=True, text=True, check=True)
    assert seen.stdout.split() == ["['smb',", "'nfs',", "'ftp',", "'rsync']", "True", "rsync", "data", "True", "rsync"]
    assert _touched(copy) == {
        "src/nastune/protocols/rsyncd.py",
        "src/nastune/sites/lab/serving/rsyncd.py",
        *(name for name, _, _ in NAMED),
    }
    assert re.search(r"\| a \*\*protocol\*\*[^|\n]*\|[^\n]*\*\*5 files\*\*", _table())
