"""How a bench script records its run in bench/results/NAME.json: what it measured beside the
commit, the host, the date, the command line and the machine's load, so a README figure can be
checked against the file and the run repeated."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
RESULTS = TOP / "bench" / "results"


def provenance() -> dict:
    """The commit (with "+changes" when the tree differs from it), host, date, command and load."""
    commit = subprocess.run(["git", "-C", str(TOP), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    code = ["src", "bench", ":!bench/results"]
    dirty = subprocess.run(["git", "-C", str(TOP), "status", "--porcelain", "--", *code], capture_output=True)
    return {
        "command": [str(Path(sys.argv[0]).resolve().relative_to(TOP)), *sys.argv[1:]],
        "commit": commit.strip() + ("+changes" if dirty.stdout.strip() else ""),
        "host": {"node": platform.node(), "cpus": os.cpu_count(), "python": platform.python_version()},
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "load": os.getloadavg(),
    }


STARTED = provenance()  # when the script began: the commit it runs, whatever is committed meanwhile


def write(name: str, out: Path, **measured) -> None:
    """The record: `measured` (its goal, result and every repeat) after the provenance."""
    out.parent.mkdir(parents=True, exist_ok=True)
    ended = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    out.write_text(json.dumps({"bench": name, **STARTED, "ended": ended, **measured}, indent=1) + "\n")
    print(f"recorded in {out}")
