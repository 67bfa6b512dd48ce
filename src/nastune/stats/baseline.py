"""Named baselines: a result kept to compare later runs with (after an upgrade, say, as in Qumulo's
Linux 5.4 regression)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from nastune.bench.results import ResultSet, load
from nastune.errors import UsageError
from nastune.stats.runs import compare_runs
from nastune.wire import Verdict


def directory() -> Path:
    return Path(os.environ.get("NASTUNE_BASELINES", "/var/lib/nastune/baselines"))


def save(name: str, result: ResultSet) -> Path:
    if not re.fullmatch(r"[A-Za-z0-9._-]{1,100}", name):
        raise UsageError(f"baseline name {name!r}: use letters, digits, dot, dash, underscore")
    directory().mkdir(parents=True, exist_ok=True)
    path = directory() / f"{name}.json"
    result.save(path)
    return path


def load_named(name: str) -> ResultSet:
    stored = directory() / f"{name}.json"
    if not re.fullmatch(r"[A-Za-z0-9._-]{1,100}", name) or not stored.exists():
        raise UsageError(f"no baseline {name!r} in {directory()}")
    return load(stored)


def check(name: str, result: ResultSet) -> tuple[list[Verdict], list[str]]:
    """The comparison of `result` with baseline `name` (Incomparable or ValueError otherwise)."""
    return compare_runs(load_named(name), result)
