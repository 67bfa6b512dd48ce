"""/etc/exports edits on the constructs real files use (exports(5)): continuation lines with
dozens of clients, a path exported on several lines, clients with no options of their own
taking the line's `-defaults`, options with no host (`(rw)` is `*(rw)`), netmasks, tabs,
quoted paths, CRLF; and a plan made from such a file applies and rolls back byte for byte."""

from __future__ import annotations

import json

import pytest

from nastune.conf import exports
from nastune.tune.edits import EditError, exports_set
from tests.conftest import run_cli
from tests.tune.conftest import CHANGES, snapshot, write_plan

CONTINUED = "/home a.example.org(rw,async,subtree_check) \\\n      b.example.org(rw,async,subtree_check)\\\n      164.54.160.108(rw,async,subtree_check)\n"
FILES = {
    "continued": (CONTINUED, "/home", "164.54.160.108"),
    "continued-first": (CONTINUED, "/home", "a.example.org"),
    "continued-no-space": (CONTINUED, "/home", "b.example.org"),
    "repeated-path": (
        "/home\t\t10.141.0.0/16(rw,async)\n/home\t\t10.148.0.0/16(rw,no_root_squash,async)\n",
        "/home",
        "10.148.0.0/16",
    ),
    "defaults-bare-host": ("/srv/x -sync,rw ws1 @staff(ro)\n", "/srv/x", "ws1"),
    "defaults-netgroup": ("/srv/x -rw,sync ws1(no_root_squash) @staff\n", "/srv/x", "@staff"),
    "host-less": ("/srv/pub (rw,sync)\n", "/srv/pub", "*"),
    "netmask": ("/opt 192.168.10.1/255.255.255.0(rw,sync,no_subtree_check)\n", "/opt", "192.168.10.1/255.255.255.0"),
    "quoted-crlf": ('"/srv/my data" ws1(rw,sync)\r\n"/srv/other" ws1(rw)\r\n', "/srv/my data", "ws1"),
    "comment-after": ("/srv/a h1(rw,sync) # h2(rw) was here\n/srv/a h2(rw,sync)\n", "/srv/a", "h2"),
}


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("option", ["async", "sync"])
def test_the_client_is_edited_where_it_is_written_and_nothing_else_changes(name, option):
    text, path, host = FILES[name]
    edited = exports_set(text, path, host, option)
    clients = [c for e in exports.parse(edited, "x") if e.path == path for c in e.clients if c.host == host]
    opposite = "sync" if option == "async" else "async"
    assert clients
    assert clients[-1].last(option, opposite) == option
    before, after = text.splitlines(keepends=True), edited.splitlines(keepends=True)
    assert len(before) == len(after)
    assert sum(a != b for a, b in zip(before, after)) <= 1
    others = [
        (e.path, c.host, c.options)
        for e in exports.parse(text, "x")
        for c in e.clients
        if (e.path, c.host) != (path, host)
    ]
    assert others == [
        (e.path, c.host, c.options)
        for e in exports.parse(edited, "x")
        for c in e.clients
        if (e.path, c.host) != (path, host)
    ]


def test_a_missing_client_names_every_line_of_the_path():
    text, path, _ = FILES["repeated-path"]
    with pytest.raises(EditError, match=r"lines 1, 2: /home has no client 'ws9'"):
        exports_set(text, path, "ws9", "sync")


def test_an_entry_exportfs_cannot_read_is_skipped_and_named_the_rest_read():
    problems: list[str] = []
    found = exports.parse("/gnu/store *(ro)\n/var/guix *(rw, async)\n/var/log *(ro)\n", "x", problems)
    assert [e.path for e in found] == ["/gnu/store", "/var/log"]
    assert problems == ["line 2: cannot parse client '*(rw,'"]


def test_a_plan_from_a_real_shaped_file_applies_and_rolls_back_byte_for_byte(tmp_path):
    text = "".join(t for t, _, _ in (FILES[n] for n in ("continued", "defaults-bare-host", "host-less", "netmask")))
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/exports").write_bytes(text.encode())
    plan = tmp_path / "plan.json"
    run_cli("plan", "--root", str(tmp_path), "--only", "nfs-export-sync-mode", "--out", str(plan))
    changes = json.loads(plan.read_text())["changes"]
    # three continued clients, ws1 (@staff(ro) after -rw is read-only: none), (rw,sync), the netmask
    assert len(changes) == 3 + 1 + 1 + 1
    assert all(c["risks"] == ["durability"] for c in changes)
    refused = run_cli("apply", str(plan), "--root", str(tmp_path), "--yes", check=False)
    assert refused.returncode != 0
    assert "--accept-risk durability" in refused.stderr
    assert (tmp_path / "etc/exports").read_bytes() == text.encode()
    run_cli("apply", str(plan), "--root", str(tmp_path), "--yes", "--accept-risk", "durability")
    applied = exports.parse((tmp_path / "etc/exports").read_text(), "x")
    modes = {(e.path, c.host): c.last("sync", "async") for e in applied for c in e.clients}
    assert modes[("/home", "164.54.160.108")] == "sync"
    assert modes[("/srv/x", "ws1")] == "async"
    run_cli("rollback", "--root", str(tmp_path))
    assert (tmp_path / "etc/exports").read_bytes() == text.encode()


def test_a_client_the_file_lacks_fails_the_plan_before_any_write(root, tmp_path):
    missing = {"knob": "nfs_export", "target": "/srv/data", "key": "ws9:async", "new": "async"}
    plan = write_plan(tmp_path, [CHANGES[0], missing])
    before = snapshot(root)
    done = run_cli("apply", str(plan), "--root", str(root), "--yes", "--accept-risk", "durability", check=False)
    assert done.returncode != 0
    assert "/etc/exports line 1: /srv/data has no client 'ws9'" in done.stderr
    assert "Traceback" not in done.stderr
    assert snapshot(root) == before  # the sysctl before it was not written
