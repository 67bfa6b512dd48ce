"""capture on this live machine, then replay: the snapshot must give the same facts."""

from __future__ import annotations

import json
import tarfile

from nastune.facts import collect
from nastune.snapshot import capture, open_root
from tests.conftest import cli_json, need, run_cli


def test_capture_replays_to_identical_facts(tmp_path):
    out = tmp_path / "snap.tar.gz"
    live = capture(out)
    with open_root(out) as root:
        replayed = collect(root)
    assert json.loads(replayed.to_json()) == json.loads(live.to_json())
    assert need(live.system).kernel.known
    assert need(live.network).interfaces


def test_capture_cli_writes_an_archive_that_root_accepts(tmp_path):
    out = tmp_path / "bundle.tar.gz"
    run_cli("capture", str(out))
    with tarfile.open(out) as tar:
        names = tar.getnames()
    assert "./.nastune/capture.json" in names
    assert "./proc/meminfo" in names
    facts = cli_json("inspect", "--root", str(out), "--json", "--area", "system")
    assert facts["system"]["memory_bytes"]["value"] > 0


def test_capture_into_missing_directory_fails_clearly(tmp_path):
    proc = run_cli("capture", str(tmp_path / "no" / "such" / "x.tar.gz"), check=False)
    assert proc.returncode == 2
    assert "no such directory" in proc.stderr
