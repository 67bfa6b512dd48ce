"""smb-macos-fruit reasons from evidence that Macs use the shares: their files in a share, or a
session whose client has a Mac's name; without either, shares without vfs_fruit are no finding."""

from __future__ import annotations

from nastune import rules
from nastune.facts.model import Fact
from nastune.facts.smb import Session
from tests.conftest import need
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
