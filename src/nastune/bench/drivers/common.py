"""Running a driver's tool: argv lists, a clear error naming the tool and its output."""

from __future__ import annotations

import time

from nastune import commands


class BenchError(Exception):
    pass


def run(argv: list[str], timeout: float = 3600, what: str = "") -> tuple[str, float]:
    """stdout and wall seconds of a command that must succeed."""
    start = time.perf_counter()
    result = commands.run(argv, timeout)
    elapsed = time.perf_counter() - start
    if result.error:
        raise BenchError(f"{what or argv[0]}: {result.error}")
    if result.returncode != 0:
        raise BenchError(f"{what or ' '.join(argv[:4])} failed (exit {result.returncode}): {result.tail(3)}")
    return result.stdout, elapsed
