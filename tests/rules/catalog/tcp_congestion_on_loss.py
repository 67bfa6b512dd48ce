"""tcp-congestion-on-loss: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.facts import Facts
from tests.conftest import need
from tests.rules.kit import Case, F, changes, fail, nas, one, sysctl


def _lossy(retransmitted: int) -> Facts:
    """The NAS after 100,000 segments sent, `retransmitted` of them again, with CUBIC."""
    facts = sysctl(nas(), net__ipv4__tcp_congestion_control="cubic", net__core__default_qdisc="fq_codel")
    need(facts.network).tcp_segments = F({"OutSegs": 100_000, "RetransSegs": retransmitted}, "/proc/net/snmp")
    return facts


CASE = Case(
    lambda: _lossy(3_000),
    lambda: _lossy(300),  # 0.3% of the segments: loss CUBIC copes with
    lambda fs: (
        (
            changes(fs) == [("net.ipv4.tcp_congestion_control", None, "cubic", "bbr")]
            and "default_qdisc = fq" in (one(fs).advice or "")
        )
        or fail(fs)
    ),
)
