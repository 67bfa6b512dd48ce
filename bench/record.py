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
    commit = subprocess.run(["git", "-C", str(TOP), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    return {
        "command": [str(Path(sys.argv[0]).resolve().relative_to(TOP)), *sys.argv[1:]],
        "commit": commit.strip(),
        "host": {"node": platform.node(), "cpus": os.cpu_count(), "python": platform.python_version()},
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "load": os.getloadavg(),
    }


def write(name: str, out: Path, **measured) -> None:
    """The record: `measured` (its goal, result and every repeat) after the provenance."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"bench": name, **provenance(), **measured}, indent=1) + "\n")
    print(f"recorded in {out}")
