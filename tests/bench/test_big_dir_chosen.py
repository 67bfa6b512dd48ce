"""optimize measures a big directory where the NAS holds one: a share's directory of
BIG_DIRECTORY entries or more (seen in a real tree, as `lab up --scenario bigdir` makes it) adds
big-dir to the default workloads, where a target can list it; a smaller one does not."""

from __future__ import annotations

import typing

from nastune.bench.selection import with_big_dir
from nastune.bench.targets import Target
from nastune.cli import options
from nastune.facts import collect
from nastune.facts.shares import BIG_DIRECTORY
from nastune.lab.storage import populate
from nastune.root import Root

SMB_CONF = "[global]\n   workgroup = HOME\n\n[scans]\n   path = /srv/scans\n"
DEFAULTS = ["seq-write", "seq-read", "network"]
SMB, FTP = Target("smb", "smb://nas/scans", host="nas", share="scans"), Target("ftp", "ftp://nas/pub", host="nas")
IPERF = Target("iperf3", "iperf3://nas", host="nas")


def _facts(tmp_path, entries):
    (tmp_path / "etc/samba").mkdir(parents=True)
    (tmp_path / "etc/samba/smb.conf").write_text(SMB_CONF)
    populate(tmp_path / "srv/scans/in", entries, mac=False)
    return collect(Root(str(tmp_path)))


def test_a_big_directory_adds_big_dir_and_names_where(tmp_path):
    facts = _facts(tmp_path, BIG_DIRECTORY)
    names, big = with_big_dir(DEFAULTS, facts, [SMB, FTP])
    assert names == [*DEFAULTS, "big-dir"]
    assert big == [f"[scans] /srv/scans/in ({BIG_DIRECTORY:,} entries)"]
    assert with_big_dir(DEFAULTS, facts, [FTP])[0] == names  # FTP lists it too (LIST, SIZE)
    assert with_big_dir(DEFAULTS, facts, [IPERF]) == (DEFAULTS, [])  # nothing here lists a directory
    assert with_big_dir(names, facts, [SMB]) == (names, [])  # already chosen: once


def test_a_smaller_directory_adds_nothing(tmp_path):
    facts = _facts(tmp_path, BIG_DIRECTORY - 1)
    assert with_big_dir(DEFAULTS, facts, [SMB]) == (DEFAULTS, [])


def test_the_help_names_the_threshold():
    (option,) = typing.get_args(options.Workload)[1:]
    assert f"{BIG_DIRECTORY:,} entries" in option.help
