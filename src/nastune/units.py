"""Sizes and rates as operators write them (512M, 4G; 100mbit, 10gbit), parsed into a bounded
range: a value beyond any machine is a clear error, never an overflow later."""

from __future__ import annotations

import re

from nastune.errors import UsageError

_SIZE = re.compile(r"^([0-9]{1,15})([KMGT]?)i?B?$", re.IGNORECASE)
_RATE = re.compile(r"^([0-9]{1,6}(?:\.[0-9]{1,6})?)(k|m|g)?bit$", re.IGNORECASE)
MAX_SIZE = 1 << 50  # 1 PiB
MAX_RATE = 400e9  # bits/s: beyond any NIC


def size_bytes(text: str | int) -> int:
    if isinstance(text, int):
        return text
    m = _SIZE.match(text.strip())
    if not m:
        raise UsageError(f"not a size: {text[:40]!r} (use e.g. 512M, 4G)")
    value = int(m.group(1)) << (10 * " KMGT".index(m.group(2).upper() or " "))
    if value > MAX_SIZE:
        raise UsageError(f"{text[:40]!r} is larger than 1 PiB")
    return value


def rate_bits(text: str) -> int:
    m = _RATE.match(text.strip())
    if not m:
        raise UsageError(f"not a rate: {text[:40]!r} (use e.g. 100mbit, 1gbit)")
    value = float(m.group(1)) * {None: 1, "k": 1e3, "m": 1e6, "g": 1e9}[(m.group(2) or "").lower() or None]
    if not 1000 <= value <= MAX_RATE:
        raise UsageError(f"{text[:40]!r} is outside 1kbit..400gbit")
    return int(value)


_DURATION = re.compile(r"^([0-9]{1,6})(s|m|h)?$", re.IGNORECASE)


def seconds(text: str) -> int:
    """A duration: 90, 90s, 30m, 2h (at most a day)."""
    m = _DURATION.match(text.strip())
    if not m:
        raise UsageError(f"not a duration: {text[:40]!r} (use e.g. 600, 30m, 2h)")
    value = int(m.group(1)) * {"s": 1, "m": 60, "h": 3600}[(m.group(2) or "s").lower()]
    if not 60 <= value <= 86400:
        raise UsageError(f"{text[:40]!r} is outside 1 minute .. 24 hours")
    return value


def rate_text(bits: int) -> str:
    """A rate as rate_bits reads it back: 10gbit, 984.4mbit."""
    for unit, scale in (("gbit", 10**9), ("mbit", 10**6), ("kbit", 10**3)):
        if bits >= scale:
            return f"{bits / scale:.6f}".rstrip("0").rstrip(".") + unit
    return f"{bits}bit"
