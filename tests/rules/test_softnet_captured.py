"""softnet-backlog-drops on a real /proc/net/softnet_stat: a busy machine whose CPU 1 dropped
frames at a backlog of 10 (tests/fixtures/softnet/README.md says how it was made busy)."""

from __future__ import annotations

from pathlib import Path

from nastune import rules
from nastune.facts.network import softnet
from tests.conftest import need
from tests.rules.kit import F, nas, sysctl

STAT = Path(__file__).parents[1] / "fixtures" / "softnet" / "rps-flood.txt"


def test_the_drops_of_a_flooded_cpu_give_the_backlog_finding():
    facts = sysctl(nas(), net__core__netdev_max_backlog=10)  # its value while the frames were dropped
    need(facts.network).softnet = F(softnet(STAT.read_text()), "/proc/net/softnet_stat")
    (found,) = [f for f in rules.evaluate(facts) if f.rule == "softnet-backlog-drops"]
    assert "(CPU 1: 2814)" in found.message
    assert [(c.target, c.current, c.new) for c in found.changes] == [("net.core.netdev_max_backlog", 10, 20)]
