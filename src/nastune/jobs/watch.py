"""`nastune watch --install`: a systemd service and timer that run `nastune check` and leave its
metrics for node_exporter's textfile collector. The two units go where systemd.unit(5) puts
the administrator's own (/etc/systemd/system); --uninstall removes exactly these two files.
Besides them only the metrics directory is made, if it is missing (the service may write
nowhere else, so it cannot make it itself).

The service is confined (systemd-analyze security: exposure 3.5, "OK"): the file system read-only
but for its state directory (/var/lib/nastune, its working directory) and the metrics directory,
no new privileges, private /tmp and devices, a system-service syscall filter. A check that only
reads runs at low priority; one that benchmarks against a baseline runs at normal priority, as
the baseline was measured, and may drop the page cache as every nastune benchmark does."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

from nastune import commands
from nastune.root import Unavailable
from nastune.tune.system import System, TuneError

SERVICE = "/etc/systemd/system/nastune-check.service"
TIMER = "/etc/systemd/system/nastune-check.timer"
MARK = "# Written by nastune watch --install; removed by nastune watch --uninstall."


HARDENING = (
    "ProtectSystem=strict",
    "ProtectHome=yes",
    "PrivateTmp=yes",
    "PrivateDevices=yes",
    "NoNewPrivileges=yes",
    "ProtectKernelModules=yes",
    "ProtectControlGroups=yes",
    "ProtectClock=yes",
    "ProtectHostname=yes",
    "RestrictRealtime=yes",
    "RestrictSUIDSGID=yes",
    "RestrictNamespaces=yes",
    "LockPersonality=yes",
    "SystemCallArchitectures=native",
    "SystemCallFilter=@system-service",
    "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK",
    "CapabilityBoundingSet=CAP_NET_ADMIN CAP_DAC_READ_SEARCH CAP_SYS_PTRACE CAP_SYS_ADMIN",
    "UMask=0077",
)


def units(check_args: list[str], every: str, metrics_dir: str) -> dict[str, str]:
    command = shlex.join([sys.executable, "-m", "nastune", "check", *check_args])
    bench = "--bench" in check_args
    service = [
        "[Service]",
        "Type=oneshot",
        f"ExecStart={command}",
        "StateDirectory=nastune",
        "WorkingDirectory=%S/nastune",  # where a check's own result file goes
        f"ReadWritePaths=-{metrics_dir}",
        *([] if bench else ["Nice=10", "IOSchedulingClass=idle", "ProtectKernelTunables=yes"]),
        *HARDENING,
    ]
    return {
        SERVICE: f"{MARK}\n[Unit]\nDescription=nastune check: drift, findings and regressions of this NAS\n"
        "After=network-online.target\nWants=network-online.target\n\n" + "\n".join(service) + "\n",
        TIMER: f"{MARK}\n[Unit]\nDescription=Run nastune check {every}\n\n"
        f"[Timer]\nOnCalendar={every}\nRandomizedDelaySec=300\nPersistent=true\n\n"
        "[Install]\nWantedBy=timers.target\n",
    }


SHORTHANDS = ("minutely", "hourly", "daily", "weekly", "monthly", "quarterly", "semiannually", "yearly", "annually")


def calendar_problem(every: str) -> str | None:
    """Why systemd would refuse `every` as OnCalendar= (its own parser, where installed)."""
    if "\n" in every or not every.strip():
        return "an empty or multi-line calendar expression"
    if shutil.which("systemd-analyze") is None:
        known = ", ".join(SHORTHANDS)
        return None if every in SHORTHANDS else f"cannot check {every!r} without systemd-analyze; use {known}"
    checked = commands.run(["systemd-analyze", "calendar", "--", every], timeout=20)
    return None if checked.ok else (checked.tail(1) or f"systemd-analyze calendar {every!r} failed")


def _systemd(system: System) -> bool:
    """Whether systemd manages this system (sd_booted(3): /run/systemd/system exists)."""
    return system.live and Path("/run/systemd/system").is_dir()


def install(system: System, check_args: list[str], every: str, metrics: str) -> list[str]:
    """Write the units (refusing to overwrite files nastune did not write); what was done."""
    why = calendar_problem(every)
    if why:
        raise TuneError(f"--every {every!r}: {why}")
    done = []
    metrics_dir = str(Path(metrics).parent)
    if not system.root.isdir(metrics_dir):
        try:
            Path(system.root.host_path(metrics_dir)).mkdir(parents=True, mode=0o755)
        except (OSError, Unavailable) as e:
            raise TuneError(f"{metrics_dir}: cannot make the metrics directory: {e}") from e
        done.append(f"made {metrics_dir} (the service may write nowhere else)")
    for path, text in units(check_args, every, metrics_dir).items():
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
