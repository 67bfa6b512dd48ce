"""`nastune watch --install`: a systemd service and timer that run `nastune check` and leave its
metrics for node_exporter's textfile collector. The two units go where systemd.unit(5) puts
the administrator's own (/etc/systemd/system); --uninstall removes exactly these two files.
Nothing else is written: the metrics directory is made by the check itself when it runs."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from nastune.root import Unavailable
from nastune.tune.system import System, TuneError

SERVICE = "/etc/systemd/system/nastune-check.service"
TIMER = "/etc/systemd/system/nastune-check.timer"
MARK = "# Written by nastune watch --install; removed by nastune watch --uninstall."


def units(check_args: list[str], every: str) -> dict[str, str]:
    command = shlex.join([sys.executable, "-m", "nastune", "check", *check_args])
    return {
        SERVICE: f"{MARK}\n[Unit]\nDescription=nastune check: drift, findings and regressions of this NAS\n"
        "After=network-online.target\nWants=network-online.target\n\n"
        f"[Service]\nType=oneshot\nExecStart={command}\nNice=10\nIOSchedulingClass=idle\n",
        TIMER: f"{MARK}\n[Unit]\nDescription=Run nastune check {every}\n\n"
        f"[Timer]\nOnCalendar={every}\nRandomizedDelaySec=300\nPersistent=true\n\n"
        "[Install]\nWantedBy=timers.target\n",
    }


def _systemd(system: System) -> bool:
    """Whether systemd manages this system (sd_booted(3): /run/systemd/system exists)."""
    return system.live and Path("/run/systemd/system").is_dir()


def install(system: System, check_args: list[str], every: str = "hourly") -> list[str]:
    """Write the units (refusing to overwrite files nastune did not write); what was done."""
    done = []
    for path, text in units(check_args, every).items():
        current = system.read(path)
        if current is not None and not current.startswith(MARK):
            raise TuneError(f"{path} exists and was not written by nastune: not overwriting it")
        try:
            system.root.replace(path, text)
        except (OSError, Unavailable) as e:
            raise TuneError(f"{path}: {e}") from e
        done.append(f"wrote {path}")
    if _systemd(system):
        system.run(["systemctl", "daemon-reload"], what="systemctl daemon-reload")
        system.run(["systemctl", "enable", "--now", Path(TIMER).name], what="systemctl enable")
        done.append(f"enabled and started {Path(TIMER).name}")
    else:
        done.append(
            f"systemd does not run here: enable it where it does with `systemctl enable --now {Path(TIMER).name}`"
        )
    return done


def uninstall(system: System) -> list[str]:
    done = []
    if _systemd(system) and system.read(TIMER) is not None:
        system.run(["systemctl", "disable", "--now", Path(TIMER).name], what="systemctl disable")
        done.append(f"stopped and disabled {Path(TIMER).name}")
    for path in (TIMER, SERVICE):
        current = system.read(path)
        if current is None:
            continue
        if not current.startswith(MARK):
            raise TuneError(f"{path} was not written by nastune: leaving it")
        system.root.replace(path, None)
        done.append(f"removed {path}")
    if _systemd(system) and done:
        system.run(["systemctl", "daemon-reload"], what="systemctl daemon-reload")
    return done
