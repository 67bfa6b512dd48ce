"""smb-spotlight-no-indexer reasons from what runs and listens on the NAS: Tracker's processes,
Elasticsearch's port in /proc/net/tcp and tcp6; an Elasticsearch on another host is not judged."""

from __future__ import annotations

from pathlib import Path

from nastune import rules
from nastune.facts.model import Fact
from nastune.facts.network import listening
from nastune.facts.system import Process
from tests.conftest import need
from tests.rules.kit import nas, smb

TCP = """  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:23F0 00000000:0000 0A 00000000:00000000 00:00000000 00000000   997        0 31234 1 0 100 0 0 10 0
   1: 0100A8C0:01BD 1400A8C0:C8A2 01 00000000:00000000 02:0000A1B2 00000000     0        0 31302 2 0 20 4 30 10 -1
"""


def _spotlight(facts):
    return [f for f in rules.evaluate(facts) if f.rule == "smb-spotlight-no-indexer"]


def _tracker():
    return smb(smb(nas(), "data", spotlight="yes"), "global", spotlight_backend="tracker")


def test_tracker_without_its_processes_fires_and_with_them_is_quiet():
    (found,) = _spotlight(_tracker())
    assert "none running" in [e.value for e in found.evidence][-1]
    facts = _tracker()
    need(facts.system).daemons.append(Process(pid=4242, name="tracker-miner-f", cmdline=["tracker-miner-fs-3"]))
    assert _spotlight(facts) == []


def test_nothing_searched_or_a_remote_elasticsearch_is_quiet():
    assert _spotlight(smb(nas(), "global", spotlight_backend="tracker")) == []  # no share has spotlight = yes
    facts = smb(smb(nas(), "data", spotlight="yes"), "global", spotlight_backend="elasticsearch")
    need(facts.network).listening = Fact(value=[22], source="/proc/net/tcp")
    need(facts.smb).config.value.globals["elasticsearch:address"] = "search.example.lan"  # type: ignore[union-attr]
    assert _spotlight(facts) == []


def test_the_listening_ports_of_a_tcp_table():
    assert listening(TCP) == [9200]  # 0x23F0, in LISTEN (0A); the established 445 is not listening
    real = Path("/proc/net/tcp6").read_text()  # this machine's own table parses, its ports in range
    assert all(0 < port < 65536 for port in listening(real))
