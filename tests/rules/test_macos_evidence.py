"""smb-macos-fruit reasons from evidence that Macs use the shares: their files in a share, or a
session whose client has a Mac's name; without either, shares without vfs_fruit are no finding.
Two captures of the lab's nas (`nastune capture` inside its namespace, Samba 4.17 serving) hold
Macs' files: lab-bigdir with Samba as it ships (the bigdir scenario: 50,000 scans),
lab-macos-fruit with vfs_fruit(8)'s settings in [global] and Debian's samba-vfs-modules loading
them (a scenario of 300 scans)."""

from __future__ import annotations

import pytest

from nastune import rules
from nastune.facts import collect
from nastune.facts.model import Fact
from nastune.facts.smb import Session
from nastune.snapshot import open_root
from tests.conftest import ROOTS, need
from tests.rules.kit import nas


def _fruit(facts):
    return [f for f in rules.evaluate(facts) if f.rule == "smb-macos-fruit"]


def test_no_mac_seen_is_no_finding():
    assert need(nas().smb).looks["data"].mac == 0
    assert _fruit(nas()) == []


def test_a_session_from_a_mac_is_evidence():
    facts = nas()
    sessions = [Session(machine="ANNAS-MACBOOK-PRO", address="ipv4:192.168.1.20:51234", dialect="SMB3_11")]
    need(facts.smb).sessions = Fact(value=sessions, source="command: smbstatus -b --json")
    (found,) = _fruit(facts)
    assert any(e.value == "ANNAS-MACBOOK-PRO" for e in found.evidence)
    need(facts.smb).sessions = Fact(value=[Session(machine="DESKTOP-7Q2", address="x", dialect="SMB3_11")], source="s")
    assert _fruit(facts) == []


@pytest.mark.parametrize(("capture", "fires"), [("lab-bigdir", True), ("lab-macos-fruit", False)])
def test_captured_shares_that_macs_write_to_fire_without_fruit_and_not_with_it(capture, fires):
    with open_root(ROOTS / f"{capture}.tar.gz") as root:
        facts = collect(root)
    mac = need(facts.smb).looks["data"].mac
    assert mac > 0  # Macs' files are in both shares
    found = _fruit(facts)
    assert [e.value for f in found for e in f.evidence] == (
        ["(none)", f"{mac} (AppleDouble ._ files, .DS_Store)"] if fires else []  # vfs objects, then the files
    )
