"""Parser for /proc/interrupts, shared by the network collector and the run profiler."""

from __future__ import annotations

import re
from dataclasses import dataclass

from nastune.facts.context import digits

_TRIGGER = re.compile(r"\S*(?:edge|level|fasteoi|simple|ioapic)\s+(.+)$", re.IGNORECASE)


@dataclass(frozen=True)
class IrqLine:
    number: int
    counts: dict[int, int]  # CPU id -> interrupts handled there
    chip: str
    names: tuple[str, ...]  # the actions ("eth0-TxRx-0", "virtio2-input.0")


def parse_interrupts(text: str) -> tuple[list[int], list[IrqLine]]:
    """The CPU ids of the columns, and every numbered IRQ line."""
    lines = text.splitlines()
    if not lines:
        raise ValueError("empty file")
    cpus = [int(c[3:]) for c in lines[0].split() if c.startswith("CPU") and digits(c[3:])]
    if not cpus:
        raise ValueError("no CPU columns in the header")
    irqs = []
    for line in lines[1:]:
        head, sep, rest = line.partition(":")
        if not sep or not digits(head.strip()):
            continue  # NMI, LOC, ERR, ... are not IRQs with affinity
        fields = rest.split()
        numbers = fields[: len(cpus)]
        if len(numbers) < len(cpus) or not all(digits(n) for n in numbers):
            raise ValueError(f"IRQ {head.strip()}: expected {len(cpus)} counts")
        desc = " ".join(fields[len(cpus) :])
        match = _TRIGGER.search(desc)
        names_text = match.group(1) if match else (desc.split()[-1] if desc else "")
        irqs.append(
            IrqLine(
                number=int(head),
                counts=dict(zip(cpus, map(int, numbers))),
                chip=desc.split()[0] if desc else "",
                names=tuple(n.strip() for n in names_text.split(",") if n.strip()),
            )
        )
    return cpus, irqs
