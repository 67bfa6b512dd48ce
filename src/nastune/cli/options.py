"""The options several commands share, declared once: the same name means the same thing in
every command (each command gives its own default)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nastune.areas import AREAS, GROUPS
from nastune.risks import RISKS


def _known_risks(value: list[str] | None) -> list[str] | None:
    """Every command that takes --accept-risk refuses a risk it does not know, before it acts."""
    unknown = [r for r in value or [] if r not in RISKS]
    if unknown:
        raise typer.BadParameter(f"{unknown[0]!r}: the risks that can be accepted are {', '.join(RISKS)}")
    return value


Root = Annotated[
    str,
    typer.Option(
        help="Read this system instead of the live one: a directory tree or a snapshot archive made by "
        "`nastune capture`.",
        metavar="DIR|SNAPSHOT",
    ),
]
Lab = Annotated[bool, typer.Option("--lab", help="The lab's nas host (run `nastune lab up` first).")]
LabOrLive = Annotated[
    bool | None, typer.Option("--lab/--live", help="A fresh lab, or this live system (or give --inventory).")
]
KernelLab = Annotated[
    bool, typer.Option("--kernel", help="With --lab: the kernel lab (its NAS on a real kernel in a QEMU guest).")
]
LabJournals = Annotated[bool, typer.Option("--lab", help="Only the journals of the lab's nas host.")]
Scenario = Annotated[str, typer.Option(help="A built-in lab scenario (soho, modern) or a .toml file.")]
Json = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON (versioned schema).")]
Area = Annotated[
    list[str] | None, typer.Option(help=f"Only these areas (repeatable): {', '.join(AREAS + tuple(GROUPS))}.")
]
Only = Annotated[list[str] | None, typer.Option(help="Only these rules (repeatable).")]
Frag = Annotated[
    bool,
    typer.Option(
        "--xfs-fragmentation",
        help="Also measure XFS fragmentation: the extents of a sample of up to 2000 files (FIEMAP, as filefrag "
        "reads them); nothing is frozen or written.",
    ),
]
FragExact = Annotated[
    bool,
    typer.Option(
        "--xfs-fragmentation-exact",
        help="Measure XFS fragmentation exactly with xfs_db instead. On a live system this FREEZES each mounted "
        "XFS file system (its writers wait) for the seconds of the reading; /, /usr and /var are sampled, "
        "never frozen.",
    ),
]
Address = Annotated[
    str | None,
    typer.Option(
        metavar="IP",
        help="The address clients reach this NAS at: the interface that holds it is the NAS's link, judged "
        "whatever its kind (a VM's virtio NIC, a bridge); other virtual interfaces (a container's veth, "
        "docker0) are not.",
    ),
]
LinkRate = Annotated[
    str | None,
    typer.Option(
        metavar="RATE",
        help="The NAS link's rate (1gbit, 10gbit), used before the interface's shaping and its nominal speed.",
    ),
]
AcceptRisk = Annotated[
    list[str] | None,
    typer.Option(
        help="durability: also use changes that trade crash safety for speed; security: also those that weaken "
        "SMB signing or encryption; compatibility: also those that change how clients' names match (Samba's "
        "case sensitive). Repeat for each.",
        callback=_known_risks,
    ),
]
Yes = Annotated[bool, typer.Option("--yes", "-y", help="Change the system without asking.")]
Journal = Annotated[str | None, typer.Option(help="A journal path (default: the newest).")]

Target = Annotated[
    str | None,
    typer.Option(
        help="Where to measure: a path, smb://HOST/SHARE, nfs://HOST/EXPORT, ftp://HOST/DIR or iperf3://HOST; on "
        "the lab or an inventory: smb, nfs, ftp, iperf3, mount (the clients' mounts), local or smbfs."
    ),
]
Workload = Annotated[
    list[str] | None,
    typer.Option(
        "--workload",
        "-w",
        help="Workloads (repeatable; `nastune bench list`); default: seq-write, seq-read, aged-read where the "
        "NAS names a read set, network from a single client; optimize adds big-dir where a share holds a "
        "directory of 10,000 entries or more.",
    ),
]
Size = Annotated[
    str,
    typer.Option(
        metavar="SIZE|auto",
        help="File size of the sequential workloads (512M, 4G), or auto: about half a second at the link's goodput.",
    ),
]
Repeats = Annotated[int, typer.Option(min=1, max=100, help="Timed repeats after a warm-up.")]
Inventory = Annotated[
    Path | None,
    typer.Option(
        help="An Ansible inventory (INI, or any format ansible-inventory reads where it is installed): act on its "
        "NAS (with nastune there, over SSH unless "
        "ansible_connection=local), measured from its clients."
    ),
]
Clients = Annotated[
    str | None,
    typer.Option(help="Which clients of the inventory (or with --lab the lab's own): all, or c1,c2 (together)."),
]
MinPairs = Annotated[int, typer.Option(min=3, max=50, help="Interleaved A/B pairs before the first look.")]
MaxPairs = Annotated[int, typer.Option(min=3, max=100, help="The budget of interleaved A/B pairs.")]
Seed = Annotated[int | None, typer.Option(help="The seed of the sampler: the same seed repeats a search's choices.")]
OrderSeed = Annotated[int | None, typer.Option("--seed", help="The seed of the random order of A and B in each pair.")]
LoginFile = Annotated[
    Path | None,
    typer.Option(
        metavar="FILE|-",
        help="With --target smb:// or ftp://: the share's login, in smbclient's authentication-file format "
        "(username = ..., password = ..., domain = ...) or a netrc; - reads it from standard input. Mode 600: a "
        "file others can read is refused.",
    ),
]

# optimize's own
OutDir = Annotated[Path, typer.Option("--out-dir", "--out", help="Directory for results, plan, report.")]
ConfirmTimeout = Annotated[
    int,
    typer.Option(
        min=10,
        help="With --inventory: the NAS reverts network changes by itself after this many seconds "
        "unless optimize proves it still reaches the NAS and the clients reach it.",
    ),
]
Flow = Annotated[
    str,
    typer.Option(
        help="interleaved: prove the plan's settings by alternating without and with them in random order until "
        "every metric is settled (one-off actions: before/after); before-after: measure, apply everything, "
        "measure again, then (unless --no-interleave) interleave the settings a second time."
    ),
]
Interleave = Annotated[
    bool, typer.Option("--interleave/--no-interleave", help="before-after: also interleave the settings.")
]
PlanFile = Annotated[
    Path | None,
    typer.Option(
        "--plan", metavar="PLAN", help="Use this plan (one optimize wrote, edited by you) instead of the findings'."
    ),
]
Skip = Annotated[list[str] | None, typer.Option(help="Leave this rule's changes out (repeatable).")]
Allow = Annotated[
    list[str] | None,
    typer.Option(
        help="Run this one-off action, which cannot be undone: xfs_fsr (defragmentation: heavy disk load). "
        "Without it, optimize asks at a terminal and otherwise leaves it out."
    ),
]
ActionTime = Annotated[
    str, typer.Option(metavar="DURATION", help="How long a one-off action may run at most (600, 30m, 2h).")
]
Screen = Annotated[
    bool,
    typer.Option(
        "--screen",
        help="Then estimate each rule's own effect on the workloads the plan moved, from one design of runs "
        "that each switch about half the rules' settings on (8 runs for up to 3 rules, 16 for up to 11): "
        "which change bought what.",
    ),
]
KeepOnly = Annotated[
    bool,
    typer.Option(
        "--keep-only",
        help="With --screen (implied): leave off, without asking, the rules whose own effect is shown below the "
        "noise floor (3%) on every metric the plan moved; keep.json holds the rest either way, the rules the "
        "screening could not resolve among them.",
    ),
]
ScreenRuns = Annotated[
    int,
    typer.Option(
        "--screen-runs",
        min=0,
        max=256,
        help="With --screen (implied): measure at least N runs, the design repeated whole, to resolve smaller "
        "effects (the closing lines say how small an effect the runs could miss); 0: the design's own.",
    ),
]
Persist = Annotated[
    bool | None,
    typer.Option(
        "--persist/--no-persist",
        help="Make the proved settings survive a reboot, or not, without asking (neither: asked at a terminal "
        "without --yes; otherwise the end names the command).",
    ),
]
Profile = Annotated[
    list[Path] | None,
    typer.Option(
        help="A result file of bench or optimize (repeatable): findings whose subject limited those runs "
        "come first, with the runtime evidence; a sustained-write run is the disks' measured write rate, "
        "which the dirty-data rule sizes the write-back limit from."
    ),
]
