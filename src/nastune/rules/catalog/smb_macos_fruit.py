"""# smb-macos-fruit: Samba without vfs_fruit for macOS clients

## Problem
macOS's Finder keeps metadata (FinderInfo, resource forks) beside each file. Without Samba's
vfs_fruit module a Mac stores it as AppleDouble `._` files: a directory of N files holds 2N, and a
listing opens, reads and closes each of them.

## Detection
Macs use a share that does not load `fruit` in `vfs objects` (its own, or [global]'s): the
share's top directory or one of its first 30 subdirectories holds AppleDouble `._` files or the
Finder's own (`.DS_Store`, `.Spotlight-V100`, `.TemporaryItems`), or a client connected now
(`smbstatus -b --json`) gave a Mac's name (MacBook, iMac, Mac mini, Mac Studio, Mac Pro), in
which case every share without vfs_fruit counts. Samba reports no client's system, so a Mac that
was renamed and has written nothing yet is not seen. Without such evidence, shares without
vfs_fruit are no finding: they cost nothing where no Mac comes.

## Fix
Advice, no planned change: whether Macs use the shares is the operator's to say, and the modules
ship in Debian's samba-vfs-modules, which a NAS may not have. In [global]: `vfs objects` with
`catia fruit streams_xattr` appended in that order, `fruit:metadata = stream`,
`fruit:posix_rename = yes`, `fruit:veto_appledouble = no`,
`fruit:wipe_intentionally_left_blank_rfork = yes`, `fruit:delete_empty_adfiles = yes`. A share
with `vfs objects` of its own does not inherit them; every share a Mac reaches should load the
same modules (a Mac negotiates Apple's extensions at its first share).

## Trade-off
The file system must hold extended attributes; existing `._` files stay until macOS rewrites
them; catia also maps characters Windows cannot name, for every client.

## In the lab
`lab up --scenario bigdir` writes a Mac's traces into a share of Samba as it ships, and the rule
fires on it; on the same kind of share with the settings above in [global] (Debian's
samba-vfs-modules installed, smbd serving with them) it is quiet. Not shown here: the Finder's own
slowness, which needs a Mac (smbclient cannot send Apple's AAPL create context).

## Source
Samba, vfs_fruit(8), https://www.samba.org/samba/docs/current/man-html/vfs_fruit.8.html.
"""

import re
from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Evidence, Finding, Rule, Severity
from nastune.rules.query import present

# the names macOS gives a computer (MacBook Pro, iMac, Mac mini, Mac Studio, Mac Pro), as its
# sessions name it: Samba reports no client's system, and vfs_fruit's own AAPL context is not there yet
MAC_NAME = re.compile(r"macbook|imac|mac-?(mini|studio|pro)\b", re.IGNORECASE)
MODULES = ["catia", "fruit", "streams_xattr"]  # in vfs_fruit(8)'s order: fruit before streams_xattr
# how macOS's Finder metadata and AppleDouble files are kept, as the vfs_fruit users' cure has it
SETTINGS = {
    "fruit:metadata": "stream",
    "fruit:posix_rename": "yes",
    "fruit:veto_appledouble": "no",
    "fruit:wipe_intentionally_left_blank_rfork": "yes",
    "fruit:delete_empty_adfiles": "yes",
}


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    smb = present(facts.smb)
    c = smb.config.value if smb.config.known else None
    if c is None or not c.shares:
        return
    scopes = {"global": c.globals, **c.shares}
    loaded = {name: (params.get("vfs objects") or "").split() for name, params in scopes.items()}
    own = sorted(name for name, modules in loaded.items() if name != "global" and "vfs objects" in scopes[name])
    macs = [s.machine for s in (smb.sessions.value or [] if smb.sessions else []) if MAC_NAME.search(s.machine)]
    used = list(c.shares) if macs else [n for n, seen in smb.looks.items() if seen.mac]
    bare = [n for n in used if "fruit" not in loaded[n if n in own else "global"]]
    if not bare:  # no share without vfs_fruit that Macs use
        return
    evidence = [
        Evidence(fact="[global] vfs objects", value=" ".join(loaded["global"]) or "(none)", source=smb.config.source)
    ]
    for n in bare:
        if smb.looks.get(n) and smb.looks[n].mac:
            found = f"{smb.looks[n].mac} (AppleDouble ._ files, .DS_Store)"
            evidence.append(Evidence(fact=f"[{n}] macOS's files", value=found, source=smb.looks[n].path))
    if macs:
        evidence.append(Evidence(fact="sessions of Macs", value=", ".join(macs), source="smbstatus -b --json"))
    clash = [m for m in MODULES if m in loaded["global"]]
    yield rule.finding(
        target="global:vfs objects",
        impact=6,
        message=f"macOS clients use {', '.join(bare)} without vfs_fruit: they keep their metadata in AppleDouble "
        "._ files beside each file, which the Finder reads as it lists a directory.",
        evidence=evidence,
        advice=_advice(loaded["global"], own, clash),
    )


def _advice(loaded: list[str], own: list[str], clash: list[str]) -> str:
    """The settings to add by hand: whether Macs use the shares is the operator's to say, and a
    module missing from the Samba package would stop the share, so no change is planned."""
    settings = "; ".join(f"{k} = {v}" for k, v in SETTINGS.items())
    said = [
        f"Where macOS clients use the shares, in [global]: vfs objects = {' '.join(loaded + MODULES)}; {settings} "
        "(the modules ship in Debian's samba-vfs-modules). Every share a Mac reaches should load the same "
        "modules, since a Mac negotiates Apple's extensions at its first share."
    ]
    if own:
        said.append(f"Shares with vfs objects of their own ({', '.join(own)}) do not inherit [global]'s.")
    if clash:
        said.append(f"[global] already loads {', '.join(clash)}: keep vfs_fruit(8)'s order, {' '.join(MODULES)}.")
    return " ".join(said)


RULE = Rule(
    id="smb-macos-fruit",
    title="Samba without vfs_fruit for macOS clients",
    area="smb",
    severity=Severity.low,
    check=check,
    needs=("smb",),
    gain="macOS keeps its metadata in streams instead of ._ files: fewer files per directory and fewer opens "
    "per listing in the Finder.",
    tradeoff="The file system must hold extended attributes (XFS, ext4, ZFS do); existing ._ files stay until "
    "macOS rewrites them; the modules change the share for every client, Windows ones included (catia maps "
    "characters Windows cannot name).",
    source="Samba, vfs_fruit(8), https://www.samba.org/samba/docs/current/man-html/vfs_fruit.8.html",
)
