"""ZFS's settings: a dataset's properties, set with `zfs set` and put back as they were, with
where their value came from. A property that was inherited or OpenZFS's default goes back with
`zfs inherit`, so that the dataset follows its parent again, as `zfs get -o source` shows;
`zfs set` of the old value would leave it local. Properties persist by themselves (in the pool)."""

from __future__ import annotations

import re
import shlex
from typing import Any

from nastune.facts.zfs import VERSION, at_least
from nastune.rules.model import Change
from nastune.tune.knobs import trades
from nastune.tune.knobs.base import Knob, norm
from nastune.tune.system import System, TuneError

DATASET = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/-]{0,255}")  # a pool's or dataset's name, never an option
_CHECKSUMS = ("sha256", "sha512", "skein", "blake3")
_FAST = [*range(1, 11), *range(20, 101, 10), 500, 1000]
# What OpenZFS 2.1 to 2.3 accept for the properties nastune sets (zfsprops(7); `zfs set` names the
# same sets when refusing), recordsize apart
ALLOWED: dict[str, tuple[str, ...]] = {
    "compression": (
        *("on", "off", "lzjb", "gzip", "zle", "lz4", "zstd", "zstd-fast"),
        *(f"gzip-{n}" for n in range(1, 10)),
        *(f"zstd-{n}" for n in range(1, 20)),
        *(f"zstd-fast-{n}" for n in _FAST),
    ),
    "sync": ("standard", "always", "disabled"),
    "dedup": ("on", "off", "verify", "edonr,verify", *_CHECKSUMS, *(f"{c},verify" for c in _CHECKSUMS)),
    "atime": ("on", "off"),
    "relatime": ("on", "off"),
    "xattr": ("on", "off", "sa", "dir"),
    "logbias": ("latency", "throughput"),
    "primarycache": ("all", "none", "metadata"),
}
RECORDSIZES = [1 << n for n in range(9, 25)]  # 512 bytes to 16M (above 1M: the pool's large_blocks feature)
SOURCE_LOCAL = "local"


def recordsize(text: str) -> int | None:
    """A recordsize as zfs takes it (131072, 128K, 128k, 1M) in bytes; None if it is none."""
    found = re.fullmatch(r"([0-9]{1,9})([KkMm]?)", text)
    if not found:
        return None
    size = int(found.group(1)) << {"": 0, "k": 10, "m": 20}[found.group(2).lower()]
    return size if size in RECORDSIZES else None


def _spelled(size: int) -> str:
    return f"{size >> 20}M" if size >= 1 << 20 else f"{size >> 10}K" if size >= 1024 else str(size)


class ZfsProperty(Knob):
    doc = "a ZFS dataset property (target: dataset, key: property)"
    persists = "pool"
    kind, phase, needs_live = "zfs_property", 60, True

    def manual(self, change: Change, value: Any) -> str:
        return shlex.join(["zfs", "set", f"{change.key}={value}", change.target])

    def validate(self, change: Change) -> None:
        if not DATASET.fullmatch(str(change.target)):
            raise TuneError(f"zfs_property {str(change.target)[:60]!r}: not a dataset's name")
        key, value = self.key(change), str(change.new)
        if key == "recordsize":
            if recordsize(value) is None:
                raise TuneError(
                    f"zfs_property {change.target} recordsize: {value[:40]!r} is not a power of two from 512 to 16M"
                )
            return
        allowed = ALLOWED.get(key)
        if allowed is None:
            raise TuneError(f"zfs_property {change.target}: property {key!r} is not one nastune sets")
        if value not in allowed:
            raise TuneError(f"zfs_property {change.target} {key}: {value[:40]!r} is not one of {', '.join(allowed)}")

    def trades(self, change: Change, current: object) -> list[str]:
        return trades.changed(current, change.new) if change.key == "sync" else []

    def _get(self, system: System, change: Change) -> tuple[str, str]:
        """The property's value and its source, as `zfs get` shows them."""
        out = system.run(["zfs", "get", "-H", "-o", "value,source", self.key(change), change.target])
        value, _, source = out.strip().partition("\t")
        return value, source

    def read(self, system: System, change: Change) -> str | None:
        value = self._get(system, change)[0]
        return norm(self._canonical(system, change, value))

    def _canonical(self, system: System, change: Change, value: str) -> str:
        """The value as a plan writes it: a recordsize in K or M, and xattr=on as what it means
        on this module (sa from OpenZFS 2.2, which shows xattr=sa as on)."""
        if change.key == "recordsize" and (size := recordsize(value)) is not None:
            return _spelled(size)
        if change.key == "xattr" and value == "on" and at_least(system.read(VERSION), 2, 2):
            return "sa"
        return value

    def origin(self, system: System, change: Change) -> dict[str, str]:
        return {"source": self._get(system, change)[1]}

    def put_back(self, system: System, change: Change, value: Any, origin: dict) -> None:
        """A local value set again; an inherited one or a default inherited again (a received
        one: the received value, `zfs inherit -S`)."""
        source = str(origin.get("source", SOURCE_LOCAL))
        if source == SOURCE_LOCAL:
            self.write(system, change, value)
            return
        received = ["-S"] if source == "received" else []
        system.run(["zfs", "inherit", *received, self.key(change), change.target], what=self.label(change))

    def as_it_was(self, system: System, change: Change, value: Any, origin: dict) -> bool:
        now, source = self._get(system, change)
        was_local = str(origin.get("source", SOURCE_LOCAL)) == SOURCE_LOCAL
        same = norm(self._canonical(system, change, now)) == norm(value)
        return same and (source == SOURCE_LOCAL) == was_local

    def by_hand(self, change: Change, value: Any, origin: dict) -> str:
        if str(origin.get("source", SOURCE_LOCAL)) == SOURCE_LOCAL:
            return self.manual(change, value)
        return shlex.join(["zfs", "inherit", self.key(change), change.target])

    def write(self, system: System, change: Change, value: Any) -> None:
        system.run(["zfs", "set", f"{change.key}={value}", change.target], what=self.label(change))
