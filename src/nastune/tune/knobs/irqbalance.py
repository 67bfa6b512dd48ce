"""irqbalance's own configuration: an IRQ nastune pins is banned from irqbalance (`--banirq=N` in
IRQBALANCE_ARGS of /etc/default/irqbalance, Debian's, or /etc/sysconfig/irqbalance, RHEL's), and
irqbalance restarted to read it; otherwise its next pass, about every 10 seconds, moves the IRQ
back. The file is edited in place (its other lines kept), restored byte for byte by rollback."""

from __future__ import annotations

import re
import shlex
from itertools import pairwise
from typing import Any

from nastune.facts.managers import IRQBALANCE_CONFIGS
from nastune.rules.model import Change
from nastune.tune.knobs.base import Knob
from nastune.tune.system import System, TuneError

ARGS = re.compile(r'^(\s*IRQBALANCE_ARGS\s*=\s*)"?([^"\n]*)"?\s*$', re.M)


def _path(system: System) -> str:
    """The configuration irqbalance reads here (Debian's when neither exists: the one to make)."""
    return next((p for p in IRQBALANCE_CONFIGS if system.read(p) is not None), IRQBALANCE_CONFIGS[0])


def _args(text: str) -> list[str]:
    found = ARGS.search(text)
    try:
        return shlex.split(found.group(2)) if found else []
    except ValueError:
        return []


def banned(text: str, irq: int) -> bool:
    args = _args(text)
    return f"--banirq={irq}" in args or any(a in ("-i", "--banirq") and b == str(irq) for a, b in pairwise(args))


def with_ban(text: str, irq: int) -> str:
    """`text` with `--banirq=IRQ` among IRQBALANCE_ARGS (the line added where there is none)."""
    if banned(text, irq):
        return text
    args = shlex.join([*_args(text), f"--banirq={irq}"])
    if ARGS.search(text):
        return ARGS.sub(lambda m: f'{m.group(1)}"{args}"', text, count=1)
    return text + ("\n" if text and not text.endswith("\n") else "") + f'IRQBALANCE_ARGS="{args}"\n'


class IrqbalanceBan(Knob):
    doc = "an IRQ irqbalance must leave alone (target: irq/N; new: banned), in irqbalance's configuration"
    kind, phase, persists = "irqbalance_ban", 10, "persistent"  # before the pin: restarted, irqbalance leaves it
    disruption = "irqbalance restarts: it places every other IRQ again"

    def _irq(self, change: Change) -> int:
        found = re.fullmatch(r"irq/([0-9]{1,6})", str(change.target))
        if not found:
            raise TuneError(f"irqbalance_ban {str(change.target)[:40]!r}: not irq/N")
        return int(found.group(1))

    def validate(self, change: Change) -> None:
        self._irq(change)
        if change.new != "banned":
            raise TuneError(f"irqbalance_ban {change.target}: the one value is banned")

    def files(self, system: System, change: Change) -> list[str]:
        return [_path(system)]

    def read(self, system: System, change: Change) -> str | None:
        return "banned" if banned(system.read(_path(system)) or "", self._irq(change)) else "free"

    def write(self, system: System, change: Change, value: Any) -> None:
        path = _path(system)
        system.root.write(path, with_ban(system.read(path) or "", self._irq(change)))
        self.restored(system, change)

    def restored(self, system: System, change: Change) -> None:
        """irqbalance reads its configuration when it starts: restarted where it runs."""
        if system.live:
            system.run(["systemctl", "try-restart", "irqbalance"], what="restart irqbalance")
