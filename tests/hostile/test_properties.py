"""Generated hostile inputs for every reader (Hypothesis): snapshots, trees and the configuration
files in them, result files, plans, journals, inventories and scenarios, each given values no
system writes: deep nesting, huge and non-finite numbers, non-UTF-8 bytes, long lines, wrong JSON
shapes, links that leave the root, members deep and many. Whatever the input: exit 0, 1 or 2,
never a traceback; a refusal names its file; nothing outside the temporary root is read or
written; no case uses more CPU than test_hostile's budget."""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
import tarfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from nastune.cli import app
from nastune.lab import scenario as scenarios
from nastune.remote import inventory
from tests.hostile.corpus import HEADER, PYTHON, SYSCTL_ENTRY, TOKEN, base, result
from tests.hostile.test_hostile import _budget

EXAMPLES = settings(
    max_examples=int(os.environ.get("HOSTILE_EXAMPLES", "25")),  # more, to search longer by hand
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
NUMBERS = st.sampled_from(
    ["9" * 400, "1" + "0" * 5000, "-" + "9" * 30, "1e999", "-1e999", "nan", "inf", "0x1f", "١٢٣", "1_000", "", " "]
)
NESTED = st.integers(1, 5000).flatmap(
    lambda n: st.sampled_from(["{" * n + "}" * n, "[" * n + "]" * n, "(" * n, "EXPORT {\n" * n + "}\n" * n])
)
LONG = st.integers(65_000, 150_000).map(lambda n: "x" * n)
LATIN = st.binary(max_size=300).map(lambda b: b.decode("latin-1"))
TEXT = st.one_of(NUMBERS, NESTED, LONG, st.text(max_size=300), LATIN)
RAW = st.one_of(TEXT.map(lambda t: t.encode("utf-8", "surrogateescape")), st.binary(max_size=2000))
JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)),
    max_leaves=12,
)
FILES = [  # what the collectors and the configuration readers parse in a tree
    "/sys/class/net/enp1s0/speed",
    "/sys/class/net/enp1s0/mtu",
    "/sys/class/net/enp1s0/uevent",
    "/proc/meminfo",
    "/proc/mdstat",
    "/proc/interrupts",
    "/proc/mounts",
    "/proc/sys/net/ipv4/tcp_rmem",
    "/proc/sys/vm/min_free_kbytes",
    "/proc/net/rpc/nfsd",
    "/etc/fstab",
    "/etc/exports",
    "/etc/samba/smb.conf",
    "/etc/ganesha/ganesha.conf",
    "/etc/sysctl.conf",
]


@pytest.fixture(scope="module")
def top(tmp_path_factory) -> Path:
    """A work directory, and beside it `outside` with a secret no case may read or change."""
    found = tmp_path_factory.mktemp("properties")
    (found / "outside").mkdir()
    (found / "outside" / "secret").write_text(f"{TOKEN}\n")
    return found


@pytest.fixture(scope="module")
def root(top) -> Path:
    """The small md RAID NAS's tree, copied once; each example changes one file and restores it."""
    tree = top / "root"
    shutil.copytree(base("small-nas-raid5", top / "bases"), tree, symlinks=True)
    return tree


def cli(top: Path, *args: str, names: str | None = None) -> str:
    """Run nastune in this process within test_hostile's CPU budget; assert what every hostile
    input must get: exit 0, 1 or 2, no traceback, no secret, a refusal that names `names`."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # Python's own, as nastune runs: Hypothesis raises it while it tests
    try:
        with _budget():
            got = CliRunner().invoke(app, list(args), env={"COLUMNS": "100"})
    finally:
        sys.setrecursionlimit(limit)
    assert got.exception is None or isinstance(got.exception, SystemExit), repr(got.exception)
    assert got.exit_code in (0, 1, 2), (got.exit_code, got.output[-1500:])
    assert "Traceback" not in got.output
    assert TOKEN not in got.output
    assert not [words for words in PYTHON if words in got.output], got.output[-1500:]
    if got.exit_code == 2 and names:
        assert "error:" in got.output, got.output[-1500:]
        assert names in " ".join(got.output.split()), got.output[-1500:]
    assert (top / "outside" / "secret").read_text() == f"{TOKEN}\n"
    return got.output


@EXAMPLES
@given(path=st.sampled_from(FILES), data=RAW)
@example(path="/etc/ganesha/ganesha.conf", data=b"EXPORT {\n" * 30000 + b"}\n" * 30000)
@example(path="/sys/class/net/enp1s0/speed", data=b"9" * 400)
def test_any_file_of_a_tree(top, root, path, data):
    target = root / path.lstrip("/")
    before = target.read_bytes() if target.is_file() else None
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    try:
        cli(top, "diagnose", "--root", str(root), "--json")
    finally:
        target.unlink()
        if before is not None:
            target.write_bytes(before)


def _member(name: str, kind: str, link: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = {"file": tarfile.REGTYPE, "dir": tarfile.DIRTYPE, "sym": tarfile.SYMTYPE, "hard": tarfile.LNKTYPE}[kind]
    info.linkname = link
    return info


PARTS = st.lists(st.sampled_from(["a", "b", "..", ".", "sys", "etc", "\udcff", "x" * 200]), min_size=1, max_size=8)
DEEP = st.integers(0, 1500).map(lambda n: "d/" * n)  # directories below directories, past any stack
NAMES = st.tuples(DEEP, PARTS).map(lambda t: t[0] + "/".join(t[1]))
LINKS = st.sampled_from(["a", "/", "..", "../../outside/secret", "a/a", "/etc/passwd", "d"])
MEMBERS = st.lists(st.tuples(NAMES, st.sampled_from(["file", "dir", "sym", "hard"]), LINKS), max_size=40)


@EXAMPLES
@given(members=MEMBERS)
@example(members=[("d/" * 1200 + "f", "file", "a")])  # deeper than Python's stack
@example(members=[("a", "sym", "a"), ("a/b", "file", "a")])  # a link to itself, then a member below it
def test_any_snapshot_archive(top, members):
    archive = top / "snapshot.tar.gz"
    with tarfile.open(archive, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name, kind, link in members:
            info = _member(name, kind, link)
            data = b"x" if kind == "file" else b""
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data else None)
    cli(top, "inspect", "--root", str(archive), "--json", names=str(archive))


def _mutated(data, path: list, value):
    """`data` with the value at `path` (keys and indexes, as far as they reach) replaced."""
    if not path or not isinstance(data, dict | list):
        return value
    key, rest = path[0], path[1:]
    if isinstance(data, dict):
        chosen = key if key in data else (sorted(data)[len(str(key)) % len(data)] if data else key)
        return {**data, chosen: _mutated(data.get(chosen), rest, value)}
    if not data:
        return [value]
    index = len(str(key)) % len(data)
    return [*data[:index], _mutated(data[index], rest, value), *data[index + 1 :]]


STEPS = ["results", "metrics", "MB/s", "values", "profile", "target", "provenance", "params", 0, 1, "x"]


@EXAMPLES
@given(path=st.lists(st.sampled_from(STEPS), max_size=5), value=JSON)
def test_any_result_file(top, path, value):
    before = top / "before.json"
    before.write_text(json.dumps(_mutated(result(), path, value), default=str))
    after = top / "after.json"
    after.write_text(json.dumps(result("after", (110.0, 111.0, 109.0))))
    cli(top, "compare", str(before), str(after), names=str(before))
    cli(top, "report", str(before), str(after), "--out", str(top / "report.html"), names=str(before))


KNOBS = st.sampled_from(["sysctl", "mtu", "samba", "xfs_fsr", "ganesha_export", "nfs_export", "htb_rate"])
CHANGE: st.SearchStrategy[dict] = st.builds(dict, knob=KNOBS, target=TEXT, key=st.one_of(st.none(), TEXT), new=JSON)


@EXAMPLES
@given(changes=st.lists(st.one_of(JSON, CHANGE), max_size=4))
def test_any_plan(top, root, changes):
    plan = top / "plan.json"
    plan.write_text(json.dumps({"schema": "nastune.plan/1", "changes": changes}, default=str))
    cli(top, "apply", str(plan), "--root", str(root), "--dry-run", names=str(plan))


@EXAMPLES
@given(lines=st.lists(st.one_of(JSON, st.builds(lambda c: {**SYSCTL_ENTRY, "change": c}, JSON)), max_size=5))
def test_any_journal(top, root, lines):
    directory = root / "var/lib/nastune/journal"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "20260101T000000-1.jsonl"
    path.write_text("".join(json.dumps(line, default=str) + "\n" for line in [HEADER, *lines]))
    try:
        cli(top, "rollback", "--root", str(root), "--dry-run")
        cli(top, "verify", "--root", str(root))
    finally:
        path.unlink()


VALUES = st.one_of(TEXT, st.sampled_from(["'unclosed", "[1, 2", "{{ x }}", "$(reboot)", "-oProxyCommand=x"]))
VARIABLES = st.sampled_from(
    [
        *("ansible_host", "ansible_port", "nastune_address", "nastune_smb_share", "nastune_link_rate"),
        *("nastune_read_set", "nastune_smb_user", "nastune_smb_password", "nastune_smb_credentials"),
        *("nastune_iperf3_port", "nastune_protocols", "nastune_fio_server", "nastune_commands"),
    ]
)


@EXAMPLES
@given(nas=st.dictionaries(VARIABLES, VALUES, max_size=4), client=st.dictionaries(VARIABLES, VALUES, max_size=3))
def test_any_inventory(nas, client):
    words = lambda found: " ".join(f"{k}={v!r}" for k, v in found.items() if "\n" not in str(v))
    text = f"[nas]\nfiler {words(nas)}\n[clients]\nc1 {words(client)}\n"
    try:
        inventory.parse(text, "hosts.ini")
    except inventory.InventoryError as e:
        assert str(e).startswith("hosts.ini"), str(e)
        assert not [words for words in PYTHON if words in str(e)], str(e)


SECTIONS = st.dictionaries(
    st.sampled_from(["network", "storage", "limits", "samba"]),
    st.dictionaries(st.sampled_from(["rate", "mtu", "size", "cpus", "aio read size"]), VALUES, max_size=3),
    max_size=3,
)


@EXAMPLES
@given(body=st.one_of(TEXT, SECTIONS))
def test_any_scenario_file(top, body):
    path = top / "scenario.toml"
    if not isinstance(body, str):
        body = "".join(
            f"[{section}]\n" + "".join(f"{json.dumps(k)} = {json.dumps(v)}\n" for k, v in values.items())
            for section, values in body.items()
        )
    path.write_text(f'name = "hostile"\n{body}\n', errors="surrogateescape")
    try:
        scenarios.load(str(path))
    except ValueError as e:
        assert str(path) in str(e), str(e)
        assert not [words for words in PYTHON if words in str(e)], str(e)


CELL_NAMES = st.one_of(
    TEXT,
    st.sampled_from(
        ["write 4K latency", "write 4X rec 4K latency", "read 99999999M rec 1K latency", "node->node GB/s"]
    ),
    st.builds("write {}K rec {} latency".format, TEXT, TEXT),
    st.builds("node{}->node{} GB/s".format, TEXT, TEXT),
)


@EXAMPLES
@given(workload=st.sampled_from(["iozone", "numa-bandwidth"]), names=st.lists(CELL_NAMES, min_size=1, max_size=4))
@example(workload="iozone", names=["write 4K latency"])
@example(workload="numa-bandwidth", names=["nodeX->node1 GB/s"])
def test_any_metric_name_of_a_matrix(top, workload, names):
    data = result()
    metric = data["results"][0]["metrics"]["MB/s"]
    data["results"][0].update(workload=workload, metrics={name: metric for name in names})
    path = top / "matrix.json"
    path.write_text(json.dumps(data))
    cli(top, "report", str(path), "--out", str(top / "matrix.html"), names=str(path))
