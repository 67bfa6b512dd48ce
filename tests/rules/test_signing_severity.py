"""smb-signing-cost's severity follows what the lab measured on a CPU with AES-NI: a slow
algorithm first costs a few percent on 1 Gbit (bench/results/signing.json) and over a third of
the reads on 10 Gbit (signing-10gbit.json), where the CPU each byte costs decides."""

from __future__ import annotations

import pytest

from nastune import rules as knowledge
from nastune.rules.model import Severity
from nastune.rules.query import links
from tests.rules.kit import F, nas, one, smb


@pytest.mark.parametrize(("mbit", "severity"), [(1000, Severity.low), (10000, Severity.medium)])
def test_a_slow_signing_algorithm_is_medium_on_a_fast_link(mbit, severity):
    facts = smb(nas(), "global", server_smb3_signing_algorithms="HMAC-SHA256, AES-128-CMAC")
    assert facts.system is not None
    facts.system.cpu_flags = F(["aes", "pclmulqdq", "sse4_2"])
    for link in links(facts):
        link.rate_mbps = F(mbit)
    found = one(knowledge.evaluate(facts, only=["smb-signing-cost"]))
    assert found.severity == severity
