"""A directory of many files on a local path (or a client's mount of a share): listed with each
entry's attributes, as `ls -l` or a file manager lists it, and a name it does not hold looked up.

This file is also the program a client runs for a directory on its own mount (`python3 - JSON`,
protocols.client.script): it imports nothing but the standard library and prints JSON."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path


def make(directory: Path, count: int) -> None:
    directory.mkdir(parents=True)
    for i in range(count):
        (directory / f"f-{i}").touch()


def listing(directory: Path, misses: int) -> dict[str, float]:
    """Microseconds to list it with attributes, how many entries it held, and the median
    microseconds of a lookup of a missing name."""
    start = time.perf_counter()
    with os.scandir(directory) as entries:
        count = sum(1 for e in entries if e.stat(follow_symlinks=False))
    listed = (time.perf_counter() - start) * 1e6
    missed = []
    for i in range(misses):
        start = time.perf_counter()
        os.path.lexists(directory / f"missing-{i}")
        missed.append((time.perf_counter() - start) * 1e6)
    return {"entries": count, "list_us": listed, "miss_us": sorted(missed)[len(missed) // 2]}


def forget() -> None:
    """Drop this kernel's cached dentries and inodes (and with them an NFS client's attributes),
    as the runner drops the server's caches: the listing asks the server. Not root: kept."""
    os.sync()
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("2")
    except OSError:
        pass


def main(request: dict) -> dict:
    """One operation on request["dir"]: make, or list (after forget, where asked)."""
    directory = Path(request["dir"])
    if request["op"] == "make":
        make(directory, request["count"])
        return {}
    if request.get("forget"):
        forget()
    return listing(directory, request["misses"])


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))))
