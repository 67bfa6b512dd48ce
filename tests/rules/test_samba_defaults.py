"""The same smb.conf gets the same findings whether nastune reads it through testparm (a live
server: every default filled in) or as a raw file (a tree, a snapshot, no testparm): the raw
file is read over Samba's own defaults, captured from testparm. Checked against the real
testparm of this machine's Samba."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from nastune import rules
from nastune.conf import samba
from nastune.facts.model import Fact
from nastune.facts.smb import _split
from tests.rules.cases import nas

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
