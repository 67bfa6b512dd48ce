"""What a NAS installs to run nastune's agent (inspect, plan, apply, verify, rollback, confirm,
sample, check), next to what a controller installs: two fresh venvs from this checkout's wheel,
with the versions of requirements.lock, measured on disk. Goal (issue 24): the NAS side at most
half the controller's. The core venv also runs `nastune inspect` to prove it is enough.

    .venv/bin/python bench/agent_size.py [--out bench/results/agent-size.json]

Needs the package index (pip downloads the wheels) and a few minutes."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from record import TOP, write

GOAL = 0.5  # the core install's size as a share of the controller's


def size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def venv(where: Path, wheel: Path, extra: str) -> dict:
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    pip = [str(where / "bin" / "pip"), "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, "-c", str(TOP / "requirements.lock"), f"{wheel}{extra}"], check=True)
    site = next((where / "lib").glob("python3*/site-packages"))
    frozen = subprocess.run([str(where / "bin" / "pip"), "freeze"], capture_output=True, text=True, check=True)
    return {
        "bytes": size(where),
        "site_packages_bytes": size(site),
        "packages": sorted(line for line in frozen.stdout.splitlines() if not line.startswith("nastune")),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=TOP / "bench" / "results" / "agent-size.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="nastune-size-") as tmp:
        work = Path(tmp)
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(work / "dist"), str(TOP)], check=True
        )
        wheel = next((work / "dist").glob("nastune-*.whl"))
        core = venv(work / "core", wheel, "")
        controller = venv(work / "controller", wheel, "[controller]")
        ran = subprocess.run(
            [str(work / "core" / "bin" / "nastune"), "inspect", "--json", "--area", "system"],
            capture_output=True,
            text=True,
        )
        core["inspect_works"] = ran.returncode == 0 and json.loads(ran.stdout)["schema"] == "nastune.facts/1"
    ratio = core["bytes"] / controller["bytes"]
    record = {
        "what": "disk size of a fresh venv with nastune's core (the NAS side) and with its controller extra",
        "goal": f"core <= {GOAL:.0%} of the controller",
        "met": ratio <= GOAL and core["inspect_works"],
        "ratio": round(ratio, 3),
        "core": core,
        "controller": controller,
    }
    write("agent-size", args.out, **record)
    mb = 1e6
    print(f"core (the NAS side): {core['bytes'] / mb:.0f} MB, {len(core['packages'])} packages")
    print(f"controller: {controller['bytes'] / mb:.0f} MB, {len(controller['packages'])} packages")
    print(f"core / controller: {ratio:.2f} (goal <= {GOAL}): {'met' if record['met'] else 'NOT met'}")


if __name__ == "__main__":
    main()
