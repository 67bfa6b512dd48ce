"""# page-allocation-failures: page allocation failures under network load

## Problem
Network receive allocates memory in interrupt context, where it cannot wait for reclaim. When the
free-page reserve is too small for the traffic, those allocations fail: the kernel logs "page
allocation failure", packets are dropped and transfers freeze.

## Detection
"page allocation failure" lines in the kernel log (dmesg on a live system, kern.log in a root).

## Fix
`sysctl` vm.min_free_kbytes doubled (at least 4096), capped at 5% of RAM. Repeat until the message
stops; the rule never proposes a lower value.

## Trade-off
The reserve is memory that neither applications nor the page cache may use.

## Source
Sagar Borikar and Rajesh Palani, "Linux based SMB NAS System Performance Optimization", Linux Gazette 185, April 2011, https://linuxgazette.net/185/borikar.html, section 1.3.2.1 and "Tuning de performance NFS", WikiMiNET (MiNET's technical wiki), page sysadmin:tuning_nfs, 2014: raise vm.min_free_kbytes step by step until the failures stop (4096 on a
2 GB box); never lower it while the error is present.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present, ram
from nastune.sources import GAZETTE, MINET_NFS

FLOOR_KB = 4096  # what MiNET (2014) settled on for a 2 GB box


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    sysctl = present(facts.sysctl)
    kernel_log = present(facts.kernel_log)
    failures = kernel_log.page_allocation_failures
    if not failures.known or failures.value == 0:
        return
    current = sysctl.int("vm.min_free_kbytes")
    evidence = [
        Evidence.of("page allocation failures in the kernel log", failures),
        *(Evidence(fact="example", value=line, source=failures.source) for line in kernel_log.examples[-2:]),
    ]
    if current is None:
        yield rule.finding(
            target="vm.min_free_kbytes",
            impact=15,
            message="The kernel log shows page allocation failures, and vm.min_free_kbytes could not be read.",
            evidence=evidence,
        )
        return
    evidence.append(Evidence.of("vm.min_free_kbytes", sysctl.get("vm.min_free_kbytes")))
    cap = (ram(facts) or 0) // 1024 // 20  # never reserve more than 5% of RAM
    step = max(current * 2, FLOOR_KB)
    new = min(step, cap) if cap > current else None
    yield rule.finding(
        target="vm.min_free_kbytes",
        impact=15,
        message=f"The kernel log shows {failures.value} page allocation failures: atomic allocations (network "
        f"receive) found no free pages. vm.min_free_kbytes is {current}.",
        evidence=evidence,
        changes=[Change(knob="sysctl", target="vm.min_free_kbytes", current=current, new=new)] if new else [],
        advice=None if new else "vm.min_free_kbytes already reserves 5% of RAM: look for the memory consumer.",
    )


RULE = Rule(
    id="page-allocation-failures",
    title="Page allocation failures under network load",
    area="network",
    severity=Severity.high,
    check=check,
    needs=("kernel_log", "sysctl", "system"),
    gain="Transfers stop freezing: Borikar and Palani (2011) and MiNET (2014) saw 'page allocation "
    "failure' loops and stalled transfers at "
    "high network throughput until the reserve was raised (4096 KiB on a 2 GB box).",
    tradeoff="The reserve is memory no application or cache can use. Raise it step by step until the message "
    "stops; never lower it while the error is present.",
    source=f"{GAZETTE}, section 1.3.2.1 (vm.min_free_kbytes); {MINET_NFS}",
)
