"""Installing nastune on an inventory's NAS: its core only (inspect, diagnose, plan, apply,
verify, rollback, confirm, persist, sample, check), from a wheel built from the checkout this
nastune runs from, into a virtual environment of its own, over the NAS's SSH. It installs no
server and enables nothing: what the NAS serves is unchanged. The NAS needs no package index: the
controller downloads the dependencies for the NAS's Python and machine (pinned as this checkout's
requirements.lock pins them) and sends every wheel; pip installs them there with --no-index."""

from __future__ import annotations

import base64
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nastune
from nastune import commands
from nastune.remote.agent import Agent, NasError

VENV = "/opt/nastune"
MANYLINUX = ("manylinux2014", "manylinux_2_28", "manylinux_2_34")  # glibc 2.17 up: Debian 10 and later
ABOUT = "import sys, sysconfig; print(sys.version_info[0], sys.version_info[1], sysconfig.get_platform())"
WRITE = "import sys, base64; open(sys.argv[1], 'wb').write(base64.b64decode(sys.stdin.read()))"


@dataclass
class InstallSpec:
    venv: str = VENV
    wheel: Path | None = None  # None: built from the checkout nastune runs from


class InstallError(NasError):
    """The NAS could not get nastune; the message names the NAS and the step."""


def checkout() -> Path:
    """The source tree this nastune runs from (an editable install, as scripts/setup makes)."""
    top = Path(nastune.__file__).resolve().parents[2]
    if not (top / "pyproject.toml").is_file():
        raise InstallError(f"nastune at {top} is not a checkout: give the wheel to install (--wheel FILE)")
    return top


def _pip(args: list[str], what: str) -> None:
    done = commands.run([sys.executable, "-m", "pip", *args, "--disable-pip-version-check", "-q"], timeout=900)
    if not done.ok:
        raise InstallError(f"{what} failed: {done.reason}")


def wheels(out: Path, wheel: Path | None, python: tuple[str, str, str]) -> list[Path]:
    """nastune's wheel (built from the checkout unless given) and every wheel of its core
    dependencies for a NAS whose Python is `python` (major, minor, platform)."""
    if wheel is None:
        _pip(["wheel", "--no-deps", "-w", str(out), str(checkout())], "building nastune's wheel")
        wheel = sorted(out.glob("nastune-*.whl"))[-1]
    major, minor, platform = python
    machine = platform.rpartition("-")[2]
    lock = checkout() / "requirements.lock"
    pins = ["-c", str(lock)] if lock.is_file() and wheel.parent == out else []
    tags = [arg for tag in MANYLINUX for arg in ("--platform", f"{tag}_{machine}")]
    targets = ["--only-binary=:all:", "--python-version", f"{major}.{minor}", *tags]
    _pip(["download", "-d", str(out), *targets, *pins, str(wheel)], "downloading its dependencies for the NAS")
    return [wheel] + sorted(p for p in out.glob("*.whl") if p.name != wheel.name)


def run(spec: InstallSpec, agent: Agent, log: Callable[[str], None]) -> str:
    """Install on the NAS; the version its new nastune reports."""
    why = agent.check()
    if why:
        raise InstallError(why)
    found = agent.run(["python3", "-c", ABOUT], "python3").split()
    agent.run(["python3", "-c", "import venv, ensurepip"], "python3's venv (apt-get install python3-venv)")
    with tempfile.TemporaryDirectory(prefix="nastune-wheels-") as tmp:
        sent = wheels(Path(tmp), spec.wheel, (found[0], found[1], found[2]))
        log(f"{sent[0].name} and {len(sent) - 1} dependencies for Python {found[0]}.{found[1]} on {found[2]}")
        agent.run(["python3", "-m", "venv", spec.venv], f"python3 -m venv {spec.venv}")
        python, folder = f"{spec.venv}/bin/python", f"{spec.venv}/wheels"
        agent.run(["mkdir", "-p", "--", folder], f"mkdir {folder}")
        for wheel in sent:  # each under its own name: pip reads a wheel's version from it
            agent.run(
                [python, "-c", WRITE, f"{folder}/{wheel.name}"],
                "copy",
                input=base64.b64encode(wheel.read_bytes()).decode(),
            )
        pip = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-index", "--find-links"]
        agent.run([*pip, folder, f"{folder}/{sent[0].name}"], "pip install nastune", timeout=900)
        agent.run(["rm", "-rf", "--", folder], f"rm {folder}")
    log(f"installed in {spec.venv} on {agent.name}")
    return agent.run([f"{spec.venv}/bin/nastune", "--version"], "nastune --version").strip()
