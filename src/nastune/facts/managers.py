"""The box's other managers of the settings nastune changes: TuneD (its active profile and, through
the profiles it includes, the sysctls and CPU governor it sets at every start), irqbalance (which
moves every IRQ it was not told to leave alone, about every 10 seconds) and bpftune (which tunes
TCP buffers and congestion control by itself). A change one of them also makes is undone by it;
the findings say so before anything is applied."""

from __future__ import annotations

import configparser
import re
import shlex
from itertools import pairwise

from pydantic import BaseModel

from nastune.facts.context import Context
from nastune.facts.model import Fact

# where TuneD looks for a profile, the administrator's first (TuneD 2.23 moved its own to profiles/)
PROFILE_DIRS = ("/etc/tuned", "/etc/tuned/profiles", "/usr/lib/tuned", "/usr/lib/tuned/profiles")
ACTIVE = "/etc/tuned/active_profile"
MODE = "/etc/tuned/profile_mode"  # manual, or auto: TuneD starts with the profile it recommends
MAIN = "/etc/tuned/tuned-main.conf"
IRQBALANCE_CONFIGS = ("/etc/default/irqbalance", "/etc/sysconfig/irqbalance")  # Debian's, then RHEL's
INCLUDES = 8  # the deepest chain of included profiles followed


class Tuned(BaseModel):
    """TuneD's active profile and what it sets at every start (its includes first, its own last)."""

    profile: str
    sysctls: dict[str, str] = {}
    governor: str | None = None
    files: list[str] = []  # the profile files read
    # TuneD applies /etc/sysctl.d again after its own sysctls (tuned-main.conf's reapply_sysctl,
    # on by default), so a value persisted there wins; with it off, TuneD's own wins
    reapply_sysctl: bool = True


class Irqbalance(BaseModel):
    """irqbalance's configuration: the IRQs it leaves alone (--banirq) and the CPUs it never uses."""

    config: str | None = None  # the file it was read from
    banned_irqs: list[int] = []
    banned_cpus: str = ""


class Managers(BaseModel):
    tuned: Tuned | None = None  # None: TuneD has no active profile here
    irqbalance: Irqbalance | None = None  # None: irqbalance is not running
    bpftune: bool = False  # running


def _profile(ctx: Context, name: str) -> tuple[str, str] | None:
    """A profile's tuned.conf path and text, from the first directory that has it."""
    for directory in PROFILE_DIRS:
        path = f"{directory}/{name}/tuned.conf"
        text = ctx.text(path)
        if text is not None:
            return path, text
    return None


def profile_parser(text: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # sysctl names keep their case
    try:
        parser.read_string(text)
    except configparser.Error:
        pass  # a broken profile sets what could be read of it, as TuneD itself logs and goes on
    return parser


def tuned(ctx: Context, names: str) -> Tuned | None:
    """What the active profile(s) `names` set, each include applied before the profile itself."""
    found = Tuned(profile=names)

    def apply(name: str, depth: int) -> None:
        profile = _profile(ctx, name) if depth < INCLUDES and re.fullmatch(r"[\w.-]{1,64}", name) else None
        if profile is None:
            return
        path, text = profile
        parsed = profile_parser(text)
        for included in (parsed.get("main", "include", fallback="") or "").split(","):
            if included.strip() and "$" not in included:  # ${f:...} names a profile only TuneD can resolve
                apply(included.strip(), depth + 1)
        found.files.append(path)
        if parsed.has_section("sysctl"):
            found.sysctls.update({k: " ".join(v.strip('"').split()) for k, v in parsed.items("sysctl")})
        found.governor = parsed.get("cpu", "governor", fallback=found.governor)

    for name in names.split():
        apply(name, 0)
    main = profile_parser("[main]\n" + (ctx.text(MAIN) or ""))  # key = value lines, no section of their own
    found.reapply_sysctl = main.get("main", "reapply_sysctl", fallback="1").strip().lower() not in ("0", "false", "no")
    return found if found.files else None


def irqbalance(ctx: Context) -> Irqbalance:
    """irqbalance's own configuration: its arguments' --banirq and its banned CPUs."""
    for path in IRQBALANCE_CONFIGS:
        text = ctx.text(path)
        if text is None:
            continue
        values = dict(re.findall(r'^\s*(IRQBALANCE_\w+)\s*=\s*"?([^"\n]*)"?', text, re.M))
        try:
            args = shlex.split(values.get("IRQBALANCE_ARGS", "") or values.get("OPTIONS", ""))
        except ValueError:
            args = []
        banned = [int(a.split("=", 1)[1]) for a in args if re.fullmatch(r"--banirq=[0-9]{1,6}", a)]
        banned += [int(b) for a, b in pairwise(args) if a in ("-i", "--banirq") and b.isdigit()]
        cpus = values.get("IRQBALANCE_BANNED_CPULIST") or values.get("IRQBALANCE_BANNED_CPUS", "")
        return Irqbalance(config=path, banned_irqs=sorted(set(banned)), banned_cpus=cpus)
    return Irqbalance()


def collect(ctx: Context, running: set[str]) -> Fact[Managers]:
    """The managers on this box; `running`: the daemons' names now running."""
    active = (ctx.text(ACTIVE) or "").strip()
    found = Managers(
        tuned=tuned(ctx, active) if active else None,
        irqbalance=irqbalance(ctx) if "irqbalance" in running else None,
        bpftune="bpftune" in running,
    )
    return Fact(value=found, source=f"{ACTIVE}; {', '.join(IRQBALANCE_CONFIGS)}; /proc/[pid]/comm")
