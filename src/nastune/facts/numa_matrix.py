"""A measured NUMA memory bandwidth matrix (GB/s) from a file, for the NUMA rule: the bench's
numa-bandwidth result, or {"matrix": [[...], ...]}, or a bare list of rows."""

from __future__ import annotations

from pathlib import Path

from nastune import jsonfile
from nastune.errors import UsageError
from nastune.facts.model import Fact

MAX_NODES = 1024


def _bandwidth(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1e6:
        raise UsageError(f"{str(value)[:20]!r} is not a bandwidth in GB/s")
    return float(value)


def load(path: Path) -> Fact[list[list[float]]]:
    """The matrix as a fact; ValueError naming the file otherwise."""
    try:
        data = jsonfile.load(path)
        rows = data["matrix"] if isinstance(data, dict) else data
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows) or len(rows) > MAX_NODES:
            raise UsageError(f"a list of at most {MAX_NODES} rows is needed")
        matrix = [[_bandwidth(v) for v in row] for row in rows]
    except (ValueError, KeyError, TypeError) as e:
        raise UsageError(f'{path}: not a bandwidth matrix ({e}); expected {{"matrix": [[GB/s, ...], ...]}}') from e
    if not matrix or any(len(row) != len(matrix) for row in matrix):
        raise UsageError(f"{path}: the matrix must be square (one row and one column per NUMA node)")
    return Fact(value=matrix, source=str(path))
