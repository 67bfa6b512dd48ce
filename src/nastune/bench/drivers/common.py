"""Running a driver's tool: argv lists, a clear error naming the tool and its output."""

from __future__ import annotations

import subprocess
import time


class BenchError(Exception):
    pass


def run(argv: list[str], timeout: float = 3600, what: str = "") -> tuple[str, float]:
    """stdout and wall seconds of a command that must succeed."""
    start = time.perf_counter()
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except FileNotFoundError as e:
        raise BenchError(f"{what or argv[0]}: {e.filename} is not installed") from e
    except subprocess.TimeoutExpired as e:
        raise BenchError(f"{what or argv[0]}: no result after {timeout:g} s") from e
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        tail = (proc.stderr.strip() or proc.stdout.strip()).splitlines()[-3:]
        raise BenchError(f"{what or ' '.join(argv[:4])} failed (exit {proc.returncode}): {' | '.join(tail)}")
    return proc.stdout, elapsed
