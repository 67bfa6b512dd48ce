"""How much a finding matters, from info to critical (in a module of its own: the command line
lists the names without loading the rules)."""

from __future__ import annotations

from enum import IntEnum


class Severity(IntEnum):
    info = 0
    low = 1
    medium = 2
    high = 3
    critical = 4
