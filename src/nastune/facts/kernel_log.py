"""The kernel log's memory-pressure evidence: 'page allocation failure' messages.

On a live system the log is read with dmesg; a snapshot replays that output;
a plain root falls back to the log files a syslog daemon keeps.
"""

from __future__ import annotations

from nastune.facts.context import Context
from nastune.facts.model import Fact, Section

AREA = "kernel_log"
PATTERN = "page allocation failure"
FILES = ("/var/log/kern.log", "/var/log/dmesg", "/var/log/messages")


class KernelLogFacts(Section):
    page_allocation_failures: Fact[int]
    examples: list[str]


def collect(ctx: Context) -> KernelLogFacts:
    result = ctx.run(["dmesg"])
    text, source = (result.stdout, result.source) if result.ok else (None, result.source)
    reason = result.reason
    if text is None:
        for path in FILES:
            text = ctx.text(path)
            if text is not None:
                source = path
                break
    if text is None:
        return KernelLogFacts(page_allocation_failures=Fact.missing(source, reason), examples=[])
    hits = [line.strip() for line in text.splitlines() if PATTERN in line]
    return KernelLogFacts(page_allocation_failures=Fact(value=len(hits), source=source), examples=hits[-5:])
