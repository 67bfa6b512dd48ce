"""A glance into the shares, on a real directory tree: a lab scenario's big directory with the
traces of Macs (lab.storage.populate, as `lab up --scenario bigdir` makes it) is counted, bounded,
and leads to the findings that reason from it; its files' names are kept nowhere."""

from __future__ import annotations

from nastune import rules
from nastune.facts import collect
from nastune.lab.storage import populate
from nastune.root import Root

SMB_CONF = "[global]\n   workgroup = HOME\n\n[scans]\n   path = /srv/scans\n\n[homes]\n   path = /home/%U\n"


def test_a_big_directory_written_by_macs_is_seen_and_diagnosed(tmp_path):
    (tmp_path / "etc/samba").mkdir(parents=True)
    (tmp_path / "etc/samba/smb.conf").write_text(SMB_CONF)
    populate(tmp_path / "srv/scans/in", 10_000, mac=True)
    (tmp_path / "srv/scans/readme.txt").write_text("scans land in in/\n")
    facts = collect(Root(str(tmp_path)))
    assert facts.smb is not None
    (seen,) = facts.smb.looks.values()
    assert (seen.largest, seen.entries, seen.mac, seen.looked) == ("/srv/scans/in", 11_001, 1_001, 2)
    assert "scan-000001" not in facts.to_json()
    found = {f.rule: f for f in rules.evaluate(facts)}
    assert "/srv/scans/in: 11,001 entries" in [e.value for e in found["smb-case-big-dir"].evidence]
    assert "scans" in found["smb-macos-fruit"].message


def test_a_share_without_macs_or_big_directories_leads_to_neither(tmp_path):
    (tmp_path / "etc/samba").mkdir(parents=True)
    (tmp_path / "etc/samba/smb.conf").write_text(SMB_CONF)
    populate(tmp_path / "srv/scans/in", 9_000, mac=False)
    facts = collect(Root(str(tmp_path)))
    assert facts.smb is not None and facts.smb.looks["scans"].entries == 9_000
    assert {"smb-case-big-dir", "smb-macos-fruit"}.isdisjoint(f.rule for f in rules.evaluate(facts))
