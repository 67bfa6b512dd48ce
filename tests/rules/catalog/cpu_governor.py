"""cpu-governor: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.facts import Facts
from tests.conftest import need
from tests.rules.kit import Case, F, changes, fail, server


def _governed(governor: str, preference: str) -> Facts:
    from nastune.facts.system import CpuFreq

    f = server()
    freq = CpuFreq(driver="intel_pstate", governors={governor: 16}, preferences={preference: 16})
    need(f.system).cpufreq = F(freq, "/sys/devices/system/cpu/cpu*/cpufreq")
    return f


CASE = Case(
    server,  # intel_pstate powersave, balance_power
    lambda: _governed("performance", "performance"),
    lambda fs: changes(fs) == [("cpufreq", None, "powersave (16 CPUs)", "performance")] or fail(fs),
)
