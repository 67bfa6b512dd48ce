"""# sysctl-boot-line-fails: a boot-time sysctl line fails

## Problem
systemd-sysctl and `sysctl --system` read /etc/sysctl.conf and every sysctl.d file at boot. Only
whole lines are comments: in `vm.dirty_ratio = 30 # was 20` the value is `30 # was 20`, which the
kernel refuses, so the setting silently stays at its default after every reboot; a line without
`=` is skipped. The running value may look right (set by hand), until the next reboot.

## Detection
Each line of the boot-time sysctl files (sysctl.d(5)'s directories and order, then
/etc/sysctl.conf) whose value holds a `#` or `;` after white space, or that has no `=`, or that
sets a key this kernel does not have (`net.ipv4.tcp_tw_recycle`, removed in Linux 4.12, is the
common one) without the `-` prefix that makes systemd-sysctl skip it. A missing key is judged
only in the families nastune lists whole (net.core, net.ipv4.tcp_*, vm.dirty*, fs.xfs, sunrpc).

## Fix
Put the comment on its own line; write each setting as `key = value`; remove a key the kernel
lacks, or write it as `-key`. nastune names the file and
line; it does not edit files it did not write.

## Trade-off
None.

## Source
sysctl.d(5), sysctl.conf(5); systemd-sysctl (comments start a line).
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Evidence, Finding, Rule, Severity
from nastune.rules.query import present


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    sysctl = present(facts.sysctl)
    for problem in sysctl.boot_problems:
        where, _, what = problem.partition(": ")
        yield rule.finding(
            target=where,
            impact=2,
            message=f"{where} fails at boot: {what}. The value in force after a reboot is not the one this "
            "file means to set.",
            evidence=[Evidence(fact="boot-time sysctl line", value=what, source=where)],
            advice=f"Edit {where}: remove the line (or write the key as `-key` so that a kernel without it skips it)."
            if "does not exist" in what
            else f"Edit {where}: put a comment on a line of its own, and give every setting as `key = value`.",
        )


RULE = Rule(
    id="sysctl-boot-line-fails",
    title="A boot-time sysctl line fails",
    area="kernel",
    severity=Severity.medium,
    check=check,
    needs=("sysctl",),
    gain="The settings written for boot are the ones in force after a reboot.",
    tradeoff="None: the line is fixed to mean what it already says.",
    source="sysctl.d(5), sysctl.conf(5) (comments are whole lines)",
)
