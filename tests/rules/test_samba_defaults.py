"""The same smb.conf gets the same findings whether nastune reads it through testparm (a live
server: every default filled in) or as a raw file (a tree, a snapshot, no testparm): the raw
file is read over Samba's own defaults, captured from testparm. Checked against the real
testparm of this machine's Samba."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from nastune import rules
from nastune.conf import samba
from nastune.facts.model import Fact
from nastune.facts.smb import _split
from tests.conftest import run_cli
from tests.rules.kit import nas

CONF = """[global]
  aio read size = 0
  socket options = TCP_NODELAY SO_RCVBUF=65536
[data]
  path = /srv/data
  sync always = yes
"""


def _findings(config) -> list[tuple[str, str]]:
    facts = nas()
    assert facts.smb is not None
    facts.smb.config = Fact(value=config, source=config.path)
    smb_rules = [r.id for r in rules.all_rules() if r.area == "smb"]
    return sorted((f.rule, f.target) for f in rules.evaluate(facts, only=smb_rules))


def test_a_raw_smb_conf_reads_as_testparm_resolves_it(tmp_path):
    if shutil.which("testparm") is None:
        pytest.skip("testparm (samba-common-bin) is not installed")
    path = tmp_path / "smb.conf"
    path.write_text(CONF)
    shown = subprocess.run(["testparm", "-s", "-v", str(path)], capture_output=True, text=True, check=True)
    live = _split(samba.parse(shown.stdout), str(path), True)
    raw = _split(samba.parse(CONF), str(path), False)
    differ = {k for k in live.globals.keys() | raw.globals.keys() if live.globals.get(k) != raw.globals.get(k)}
    assert differ <= {"netbios name"}, {k: (live.globals.get(k), raw.globals.get(k)) for k in differ}
    found = _findings(raw)
    assert ("smb-sendfile-off", "global:use sendfile") in found  # Samba's default, unset in the file
    assert found == _findings(live)


def _write(root, name: str, text: str) -> str:
    (root / name).write_text(text)
    return str(root / name)


def test_includes_are_read_where_they_stand_as_testparm_reads_them(tmp_path):
    """Parameters of an included file land in the open section, a section it opens stays open
    after it, several includes are each followed, a missing or per-client one is named."""
    if shutil.which("testparm") is None:
        pytest.skip("testparm (samba-common-bin) is not installed")
    tuning = _write(tmp_path, "tuning.conf", "socket options = TCP_NODELAY SO_RCVBUF=65536\nuse sendfile = yes\n")
    share = _write(tmp_path, "share.conf", "sync always = yes\n[media]\npath = /srv/media\n")
    extra = _write(tmp_path, "extra.conf", "strict sync = no\n")
    text = (
        f"[global]\nworkgroup = HOME\ninclude = {tuning}\nserver string = after\n"
        f"[data]\npath = /srv/data\ninclude = {share}\ncomment = lands in media\n"
        f"include = {tmp_path}/missing.conf\ninclude = {tmp_path}/%m.conf\ninclude = {extra}\n"
    )
    path = _write(tmp_path, "smb.conf", text)
    fetch = lambda p: open(p).read() if os.path.exists(p) else None  # noqa: SIM115
    done = samba.read(path, text, fetch, lambda p: "missing")
    shown = subprocess.run(["testparm", "-s", path], capture_output=True, text=True, check=True)
    testparm = samba.parse(shown.stdout)
    testparm["global"].pop("idmap config * : backend")  # testparm's own addition

    def lowered(sections):
        return {name: {k: v.lower() for k, v in params.items()} for name, params in sections.items()}

    assert lowered(done.sections) == lowered(testparm)
    assert done.files == [path, tuning, share, extra]
    assert [e.split(" (")[0] for e in done.external] == [f"{tmp_path}/missing.conf", f"{tmp_path}/%m.conf"]
    verbose = subprocess.run(["testparm", "-s", "-v", path], capture_output=True, text=True, check=True)
    live = _split(samba.parse(verbose.stdout), path, True)
    found = _findings(_split(done.sections, path, False))
    assert ("smb-socket-buffers-fixed", "global:socket options") in found
    assert any(rule == "smb-sync-always" for rule, _ in found)
    assert found == _findings(live)


def test_an_include_loop_and_a_bad_line_are_named_and_the_rest_read(tmp_path):
    a = str(tmp_path / "a.conf")
    texts = {a: f"[global]\ninclude = {a}\nnot a parameter\naio read size = 0\n"}
    done = samba.read(a, texts[a], texts.get, lambda p: "missing")
    assert done.sections == {"global": {"include": a, "aio read size": "0"}}
    assert "included again" in done.external[0]
    assert done.problems == [f"{a} line 3: expected 'name = value' (Samba ignores the line)"]


def test_a_tree_follows_includes_under_its_root_and_diagnose_sees_them(tmp_path):
    samba_dir = tmp_path / "etc" / "samba"
    samba_dir.mkdir(parents=True)
    (samba_dir / "smb.conf").write_text("[global]\ninclude = /etc/samba/tuning.conf\n[data]\npath = /srv/data\n")
    (samba_dir / "tuning.conf").write_text("socket options = SO_RCVBUF=65536 SO_SNDBUF=65536\n")
    facts = json.loads(run_cli("inspect", "--root", str(tmp_path), "--area", "smb", "--json").stdout)
    config = facts["smb"]["config"]["value"]
    assert config["files"] == ["/etc/samba/smb.conf", "/etc/samba/tuning.conf"]
    assert config["globals"]["socket options"] == "SO_RCVBUF=65536 SO_SNDBUF=65536"
    findings = json.loads(run_cli("diagnose", "--root", str(tmp_path), "--json", check=False).stdout)
    assert "smb-socket-buffers-fixed" in {f["rule"] for f in findings["findings"]}
