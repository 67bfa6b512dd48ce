"""Small files on a local path (or a client's mount of a share), timed one operation at a time
as bonnie++ does: create (with data), stat, read and delete; microseconds of each operation, per
phase. Also the program a client runs on its own mount, as bigdir.py is."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path


def small_files(directory: Path, count: int, size: int) -> dict[str, list[float]]:
    """The phases' per-operation microseconds for `count` files of `size` bytes in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    data = os.urandom(size)
    names = [directory / f"small-{i}" for i in range(count)]
    phases: dict[str, list[float]] = {}

    def create(p: Path) -> None:
        with open(p, "wb") as f:
            f.write(data)

    def read(p: Path) -> None:
        with open(p, "rb") as f:
            f.read()

    for phase, fn in (("create", create), ("stat", os.stat), ("read", read), ("delete", os.unlink)):
        times = []
        for p in names:
            start = time.perf_counter()
            fn(p)
            times.append((time.perf_counter() - start) * 1e6)
        phases[phase] = times
    return phases


def main(request: dict) -> dict:
    return small_files(Path(request["dir"]), request["count"], request["size"])


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))))
