"""# cpu-governor: CPU frequency governor saving power on a file server

## Problem
With the powersave or conservative governor, or an energy preference of power or balance_power,
the CPU idles at a low clock and each burst of requests starts slow. On some CPUs the effect is
large, on others none: TrueNAS set the performance governor for every NAS, reverted it when
another vendor's CPUs did worse, and made it a setting.

## Detection
/sys/devices/system/cpu/cpu*/cpufreq: a CPU whose `scaling_governor` is powersave or
conservative, or whose `energy_performance_preference` is power or balance_power. Where the
kernel has no cpufreq (most VMs) the fact is unknown and the rule
is silent.

## Fix
`cpu_governor` performance on every CPU (the knob reads and restores each CPU's own governor).
Prove it with `nastune ab` before keeping it.

## Trade-off
More power and heat at idle.

## Source
Linux kernel documentation, "CPU Performance Scaling", https://docs.kernel.org/admin-guide/pm/cpufreq.html.
TuneD, profiles/throughput-performance ([cpu] governor=performance),
https://github.com/redhat-performance/tuned.
TrueNAS middleware pull requests #9842 (2022), #9902 (2022) and #11566 (2023),
https://github.com/truenas/middleware.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present

SLOW = ("powersave", "conservative")  # governors that hold clocks down between bursts
SAVING = ("power", "balance_power")  # energy preferences that tell the CPU the same


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    system = present(facts.system)
    found = system.cpufreq
    if found is None or not found.known or found.value is None:
        return  # no cpufreq (a VM, most often): nothing to set
    freq = found.value
    slow = {g: n for g, n in freq.governors.items() if g in SLOW}
    saving = {p: n for p, n in freq.preferences.items() if p in SAVING}
    if not slow and not saving:
        return
    current = ", ".join(f"{g} ({n} CPUs)" for g, n in freq.governors.items())
    yield rule.finding(
        target="cpufreq",
        impact=8,
        message=f"CPU frequency is held down between bursts ({current}"
        + (f"; energy preference {', '.join(saving)}" if saving else "")
        + "): each burst of SMB or NFS requests starts at a low clock.",
        evidence=[
            Evidence(fact="scaling_driver", value=freq.driver or "unknown", source=found.source),
            Evidence(fact="scaling_governor", value=current, source=found.source),
            Evidence(
                fact="energy_performance_preference",
                value=", ".join(f"{p} ({n})" for p, n in freq.preferences.items()) or "none",
                source=found.source,
            ),
        ],
        changes=[Change(knob="cpu_governor", target="cpufreq", current=current, new="performance")],
        advice="Measure it before keeping it (`nastune ab`): on some CPUs the performance governor costs turbo "
        "headroom and gains nothing; TrueNAS switched to it and then made it a setting.",
    )


RULE = Rule(
    id="cpu-governor",
    title="CPU frequency governor saving power on a file server",
    area="cpu",
    severity=Severity.low,
    check=check,
    needs=("system",),
    gain="Requests are served at full clock from their first microsecond; TuneD's throughput-performance "
    "profile sets the performance governor for the same reason.",
    tradeoff="More power and heat at idle. The effect depends on the CPU: an effect to measure, not to assume.",
    source='Linux kernel documentation, "CPU Performance Scaling" (admin-guide/pm/cpufreq), '
    "https://docs.kernel.org/admin-guide/pm/cpufreq.html; TuneD, profiles/throughput-performance/tuned.conf "
    "([cpu] governor=performance), https://github.com/redhat-performance/tuned; TrueNAS middleware pull "
    "requests #9842, #9902 and #11566, https://github.com/truenas/middleware",
)
