"""# smb-case-big-dir: Samba matching names without case in a very large directory

## Problem
Windows expects names to match without regard to case; Linux file systems compare them exactly.
When a client asks for a name that is not on disk exactly as spelled (a file about to be
created, a lookup in another case), smbd with `case sensitive = auto` or `no` reads the whole
directory to look for another case of it. In a directory of tens of thousands of entries every
such request reads all of them.

## Detection
A share's top directory or one of its first 30 subdirectories holds 10,000 entries or more, and
the share (or [global]) leaves `case sensitive` at `auto` (Samba's default) or `no`.

## Fix
`case sensitive = yes` in the share: a name not on disk as spelled is then not there, with no
directory read. It changes what every client sees, so it is applied only with
`--accept-risk compatibility`. Clients that create names in one case and open them in another
(Windows programs may) need the HOWTO's whole recipe: rename every file and directory of the
share to lower case, then `case sensitive = yes`, `default case = lower`, `preserve case = no`,
`short preserve case = no`. Where clients must match names without case, split such directories
into ones of a few thousand entries instead.

## Trade-off
Names match by case: a Windows program that opens a name in another case than it was written
finds nothing.

## In the lab
The `big-dir` workload measures what the rule is about: listing a directory of 5,000 files and
looking up names that are not there, over SMB, NFS, FTP and a path (`bench/bigdir_case.py`).
How a miss grows with the directory, over each protocol (`bench/bigdir_scale.py`):

<!-- figures: bigdir-scale -->
A missing name's lookup in directories of 1,000, 10,000, 100,000 files (3 repeats each, medians,
Samba as it ships on the lab's `modern`): SMB 286 -> 1,376 -> 12,825 us (44.8x); NFS 104 -> 152 ->
143 us (1.4x); FTP 54 -> 48 -> 33 us (0.6x); the NAS's own path 7 -> 7 -> 7 us (1.0x). Listing
100,000 files: 40,672, 354,282, 104,812 entries/s over SMB, NFS and FTP. Goal (SMB's miss latency >=
10x from 1,000 to 100,000 files; NFS's and FTP's < 3x): met (bench/results/bigdir-scale.json).
<!-- end of figures -->

What the change buys:

<!-- figures: bigdir-case -->
On the lab's bigdir scenario (where smb-case-big-dir and smb-macos-fruit fire), `case sensitive =
yes` interleaved against `auto` for 5 pairs: a missing name in a directory of 5,000 files took 778
-> 80 us over SMB (-90%, -92%..-88%): better; listing it, 39,398 -> 37,184 entries/s: ~
(bench/results/bigdir-case.json).
<!-- end of figures -->

Among the other rules the scenario fires, each rule's own effect names this one:

<!-- figures: bigdir-screen -->
With every rule the scenario fires whose change it can make (5: their settings proved together, then
each rule's own effect from 16 runs, `optimize --screen -w big-dir`, 143 s in all):
smb-case-big-dir: miss latency over SMB -90% (-91%..-89%), better. No change beyond the noise:
nic-offloads-disabled, mtu-jumbo-frames, tcp-slow-start-after-idle, smb-sendfile-off
(bench/results/bigdir-screen.json).
<!-- end of figures -->

Not shown here: what the change breaks for Windows programs, which needs Windows clients.

## Source
Jeremy Allison, "Handling Large Directories", The Official Samba-3 HOWTO and Reference Guide,
ch. 33, Samba Team, https://www.samba.org/samba/docs/old/Samba3-HOWTO/largefile.html;
smb.conf(5), `case sensitive`, `default case`, `preserve case`.
"""

from collections.abc import Iterator

from nastune.conf import samba as samba_conf
from nastune.facts import Facts
from nastune.facts.shares import BIG_DIRECTORY
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present

RECIPE = "case sensitive = yes; default case = lower; preserve case = no; short preserve case = no"


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    smb = present(facts.smb)
    c = smb.config.value if smb.config.known else None
    if c is None:
        return
    for name, seen in sorted(smb.looks.items()):
        params = c.shares.get(name, {})
        case = params.get("case sensitive") or c.globals.get("case sensitive") or "auto"
        if seen.entries < BIG_DIRECTORY or case.strip().lower() not in samba_conf.CASELESS:
            continue
        many = f"more than {seen.entries - 1:,}" if seen.entries > 100_000 else f"{seen.entries:,}"
        yield rule.finding(
            target=f"{name}:case sensitive",
            impact=5,
            message=f"[{name}] {seen.largest} holds {many} entries and names are matched without case "
            f"(case sensitive = {case}): each name a client asks for that is not there exactly as spelled "
            "(a new file, a lookup of another case) makes smbd read the whole directory.",
            evidence=[
                Evidence(fact=f"[{name}] largest directory", value=f"{seen.largest}: {many} entries", source=seen.path),
                Evidence(fact=f"[{name}] case sensitive", value=case, source=smb.config.source),
            ],
            changes=[Change(knob="samba", target=name, key="case sensitive", current=case, new="yes")],
            advice=f"Clients that create names in another case than they open them with (Windows programs "
            f"may) need the whole recipe: rename every file and directory of [{name}] to lower case, then "
            f"{RECIPE}. Where clients must match names without case, split such directories (by date or by "
            "name) into ones of a few thousand entries instead.",
        )


RULE = Rule(
    id="smb-case-big-dir",
    title="Samba matching names without case in a very large directory",
    area="smb",
    severity=Severity.medium,
    check=check,
    needs=("smb",),
    protocol="smb",
    moves="metadata",
    gain="A missed name costs one lookup instead of a read of the whole directory: creating files in it and "
    "opening names in another case stop growing with the directory.",
    tradeoff="Names match by case for every client of the share: a Windows program that opens a name in "
    "another case than it was written finds nothing (applied only with --accept-risk compatibility).",
    source='Jeremy Allison, "Handling Large Directories", The Official Samba-3 HOWTO and Reference Guide, '
    "ch. 33, Samba Team, https://www.samba.org/samba/docs/old/Samba3-HOWTO/largefile.html; smb.conf(5), "
    "case sensitive",
)
