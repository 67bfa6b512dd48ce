"""# softnet-budget-squeeze: Receive polls cut short by their budget

## Problem
A CPU takes received frames off its NIC's queue in NAPI polls, each bounded by
`net.core.netdev_budget` frames (300 by default) and `net.core.netdev_budget_usecs`
(2000 us). A poll that runs out of budget with frames still waiting stops there (the
time_squeeze count); they wait for the next softirq round, and under sustained bursts the
queue behind them overflows.

## Detection
The third column of /proc/net/softnet_stat (polls cut short by the budget, per CPU, since boot)
adds up to 100 or more, and either budget is below its cap.

## Fix
`sysctl` net.core.netdev_budget and net.core.netdev_budget_usecs doubled, at most 1200 frames
and 8000 us, as bpftune's net_buffer tuner raises them when time_squeeze grows. The counters run
since boot: the advice is to look again under load.

## Trade-off
A longer poll keeps its CPU in softirq longer, so the file servers' threads on that CPU wait a
little more while frames arrive.

## Source
Linux kernel, Documentation/admin-guide/sysctl/net.rst (netdev_budget, netdev_budget_usecs), and
the commit that made the time budget a sysctl: Matthew Whitehead, "Replace 2 jiffies with sysctl
netdev_budget_usecs to enable softirq tuning", 2017, 7acf8a1e8a28 (a slow machine needed 4000 us
"to prevent time_squeeze from being incremented").
Oracle bpftune, bpftune-net-buffer(8), https://github.com/oracle/bpftune/blob/main/docs/bpftune-net-buffer.rst.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present

BUDGET, USECS = "net.core.netdev_budget", "net.core.netdev_budget_usecs"
# doubling stops here: beyond it one CPU's receive work holds off everything else it runs
LIMITS = {BUDGET: 1200, USECS: 8000}
SQUEEZES = 100  # since boot: fewer is the odd burst, not a budget that runs out


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    network, sysctl = present(facts.network), present(facts.sysctl)
    cpus = network.softnet.value if network.softnet and network.softnet.value else []
    squeezed = sum(c.time_squeeze for c in cpus)
    if squeezed < SQUEEZES:
        return
    now = {key: _number(sysctl.values.get(key)) for key in LIMITS}
    raised = [
        Change(knob="sysctl", target=key, current=value, new=min(2 * value, LIMITS[key]))
        for key, value in now.items()
        if value is not None and value < LIMITS[key]
    ]
    if not raised:
        return
    worst = max(cpus, key=lambda c: c.time_squeeze)
    yield rule.finding(
        target="net.core.netdev_budget",
        impact=8,
        message=f"{squeezed} receive polls since boot stopped with frames still waiting because they used up their "
        f"budget ({now[BUDGET]} frames or {now[USECS]} us; CPU {worst.cpu}: {worst.time_squeeze}): the rest waits "
        "for the next softirq round, and a queue that keeps waiting overflows.",
        evidence=[
            Evidence(
                fact="receive polls cut short by their budget (time_squeeze), since boot",
                value=squeezed,
                source=network.softnet.source if network.softnet else "/proc/net/softnet_stat",
            ),
            *(Evidence.of(key, sysctl.values[key]) for key in LIMITS if key in sysctl.values),
        ],
        changes=raised,
        advice="The counters run since boot: compare them again under load to see whether polls are still cut short.",
    )


def _number(fact: object) -> int | None:
    value = str(getattr(fact, "value", "")).strip() if getattr(fact, "known", False) else ""
    return int(value) if value.isdigit() else None


RULE = Rule(
    id="softnet-budget-squeeze",
    title="Receive polls cut short by their budget",
    area="network",
    severity=Severity.low,
    check=check,
    needs=("network", "sysctl"),
    clients=True,
    gain="A poll that may take twice as many frames, for twice as long, empties the NIC's queue in one round "
    "under bursts, rather than leaving frames to wait for the next softirq and the queue to overflow.",
    tradeoff="A longer poll keeps a CPU in softirq longer: other work on that CPU (smbd, nfsd threads) waits a "
    "little more while frames arrive.",
    source="Linux kernel, Documentation/admin-guide/sysctl/net.rst (netdev_budget, netdev_budget_usecs), and the "
    'commit that made the time budget a sysctl, Matthew Whitehead, "Replace 2 jiffies with sysctl '
    'netdev_budget_usecs to enable softirq tuning", 2017, 7acf8a1e8a28; Oracle bpftune, bpftune-net-buffer(8), '
    "https://github.com/oracle/bpftune/blob/main/docs/bpftune-net-buffer.rst",
)
