"""TuneD's own way to keep a sysctl its active profile also sets: a child profile that includes the
active one and sets the value itself, made the active profile ("Customizing TuneD profiles",
TuneD's documentation: https://tuned-project.org/ and tuned.conf(5)). Needed only where TuneD
does not apply /etc/sysctl.d again after its own sysctls (reapply_sysctl = 0 in
/etc/tuned/tuned-main.conf): with it on, TuneD's default, a value in sysctl.d wins at every start
and that is where nastune persists it. The files are written, not the daemon told: TuneD reads
them at its next start (the boot); rollback puts each file back as it was."""

from __future__ import annotations

from nastune.facts.context import Context
from nastune.facts.managers import ACTIVE, MODE, profile_parser, tuned
from nastune.tune.plan import PlannedChange
from nastune.tune.system import System

PROFILE = "nastune"
FILE = f"/etc/tuned/{PROFILE}/tuned.conf"
PATHS = (FILE, ACTIVE, MODE)


def _ours(system: System) -> tuple[str, dict[str, str]] | None:
    """The profile an earlier persist made active: the profile it includes and what it sets."""
    parsed = profile_parser(system.read(FILE) or "")  # as TuneD reads it, what can be read of a broken one
    parent = parsed.get("main", "include", fallback="").strip()
    return (parent, dict(parsed.items("sysctl")) if parsed.has_section("sysctl") else {}) if parent else None


def routed(system: System, sysctls: list[PlannedChange]) -> tuple[list[PlannedChange], dict[str, str]]:
    """The sysctls left for sysctl.d, and the TuneD files (path: text) that keep the others: those
    the active profile sets, where TuneD's own value would win over sysctl.d."""
    active = (system.read(ACTIVE) or "").strip()
    found = tuned(Context(system.root), active) if active else None
    if found is None or found.reapply_sysctl:
        return sysctls, {}
    earlier = _ours(system) if active == PROFILE else None
    parent, kept = earlier if earlier else (",".join(active.split()), {})  # include= takes a list
    mine = [c for c in sysctls if c.target in found.sysctls]
    if not mine:
        return sysctls, {}
    kept = {**kept, **{c.target: str(c.new) for c in mine}}
    text = (
        "# Written by nastune apply --persist; removed by nastune rollback.\n"
        f"[main]\nsummary={parent} with the settings nastune persisted\ninclude={parent}\n\n[sysctl]\n"
        + "".join(f"{key}={value}\n" for key, value in kept.items())
    )
    files = {FILE: text, ACTIVE: f"{PROFILE}\n", MODE: "manual\n"}  # manual: TuneD starts with it, not its pick
    return [c for c in sysctls if c not in mine], files
