"""# softnet-backlog-drops: Received frames dropped at a full CPU backlog

## Problem
Each CPU queues the frames its NIC hands it in a backlog of `net.core.netdev_max_backlog` frames
(1000 by default). A burst larger than that, on a fast link or one CPU serving a busy queue, is
dropped before TCP sees it: the sender retransmits and halves its window.

## Detection
The second column of /proc/net/softnet_stat (frames dropped at a full backlog, per CPU, since
boot) is not zero, and the backlog is below 65536.

## Fix
`sysctl` net.core.netdev_max_backlog doubled (as Red Hat's tuning guide says), at most 65536.
The counters run since boot: the advice is to look again under load. A growing third column
(time_squeeze) points at the poll budget instead (`net.core.netdev_budget`,
`netdev_budget_usecs`), which bpftune raises from the same file.

## Trade-off
More frames held in memory, and latency when a CPU is simply overloaded; spreading the NIC's
queues and interrupts over CPUs cures that cause.

## Source
Red Hat, "Network troubleshooting and performance tuning" (RHEL 10), "Tuning the network device
backlog queue to avoid packet drops",
https://docs.redhat.com/en/documentation/red_hat_enterprise_linux/10/html/network_troubleshooting_and_performance_tuning/.
Oracle bpftune, bpftune-net-buffer(8), https://github.com/oracle/bpftune/blob/main/docs/bpftune-net-buffer.rst.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present

KEY = "net.core.netdev_max_backlog"
MAX = 65536  # doubling stops here: a longer backlog only delays what a CPU cannot keep up with


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    network, sysctl = present(facts.network), present(facts.sysctl)
    cpus = network.softnet.value if network.softnet and network.softnet.value else []
    dropped, processed = sum(c.dropped for c in cpus), sum(c.processed for c in cpus)
    value = sysctl.values.get(KEY)
    if not dropped or value is None or not value.known or not str(value.value).strip().isdigit():
        return
    current = int(str(value.value).strip())
    if current >= MAX:
        return
    worst = max(cpus, key=lambda c: c.dropped)
    yield rule.finding(
        target=KEY,
        impact=12,
        message=f"{dropped} received frames were dropped since boot because a CPU's backlog of {current} was full "
        f"(CPU {worst.cpu}: {worst.dropped}); each drop costs a TCP retransmission and shrinks the sender's window.",
        evidence=[
            Evidence(
                fact="frames dropped at a full backlog / processed, since boot",
                value=f"{dropped} / {processed}",
                source=network.softnet.source if network.softnet else "/proc/net/softnet_stat",
            ),
            Evidence.of(KEY, value),
        ],
        changes=[Change(knob="sysctl", target=KEY, current=current, new=min(2 * current, MAX))],
        advice="The counters run since boot: compare them again under load to see whether drops still occur. "
        "Where the third column (time_squeeze) grows too, the CPU's budget per poll runs out first: "
        "net.core.netdev_budget and netdev_budget_usecs.",
    )


RULE = Rule(
    id="softnet-backlog-drops",
    title="Received frames dropped at a full CPU backlog",
    area="network",
    severity=Severity.medium,
    check=check,
    needs=("network", "sysctl"),
    clients=True,
    gain="A backlog twice as long absorbs the bursts a fast NIC delivers to one CPU: no drop, no retransmission, "
    "no halved window for the transfer that lost the frame.",
    tradeoff="A longer queue holds more frames in memory and can add latency when a CPU is truly overloaded; "
    "more queues or interrupts spread over CPUs (RSS) cure that cause.",
    source='Red Hat, "Network troubleshooting and performance tuning", RHEL 10, "Tuning the network device '
    'backlog queue to avoid packet drops", https://docs.redhat.com/en/documentation/red_hat_enterprise_linux/10/'
    "html/network_troubleshooting_and_performance_tuning/; Oracle bpftune, bpftune-net-buffer(8), "
    "https://github.com/oracle/bpftune/blob/main/docs/bpftune-net-buffer.rst",
)
