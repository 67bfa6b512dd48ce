"""# ganesha-io-size-small: NFS-Ganesha export MaxRead/MaxWrite small

## Problem
Ganesha's MaxRead/MaxWrite cap the rsize/wsize a client can negotiate (PrefRead/PrefWrite are what
it advertises). At 8 KiB, a 1 GiB copy takes 131072 RPCs, each with its own round trip and
per-request CPU cost.

## Detection
An EXPORT block of the Ganesha configuration (the file ganesha.nfsd was started with, else
/etc/ganesha/ganesha.conf) whose MaxRead, MaxWrite, PrefRead or PrefWrite is below 1 MiB.

## Fix
`ganesha_export` parameter to 1 MiB (the Linux client's largest rsize/wsize), then restart or
reload Ganesha and remount clients.

## Trade-off
More server memory per request in flight.

## Source
"Tuning de performance NFS", WikiMiNET (MiNET's technical wiki), page sysadmin:tuning_nfs, 2014 (rsize/wsize from 8192 upward); nfs-ganesha config_samples (EXPORT MaxRead/MaxWrite); lab:
90 -> 112 MB/s upload going from 8 KiB to 64 KiB.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import MiB, present
from nastune.sources import MINET_NFS

RECOMMENDED = 1 * MiB
KEYS = (("max_read", "MaxRead"), ("max_write", "MaxWrite"), ("pref_read", "PrefRead"), ("pref_write", "PrefWrite"))


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    nfs_server = present(facts.nfs_server)
    g = nfs_server.ganesha.known_value
    if g is None:
        return
    for e in g.exports:
        small = [
            (attr, key, getattr(e, attr))
            for attr, key in KEYS
            if getattr(e, attr) is not None and getattr(e, attr) < RECOMMENDED
        ]
        if not small:
            continue
        file = e.file or g.path
        # nastune edits the main file, by Export_Id: an export elsewhere or without one is changed by hand
        editable = file == g.path and e.export_id is not None
        by_hand = "" if editable else f" Change it in {file} line {e.line} by hand."
        yield rule.finding(
            target=f"export {e.export_id}",
            impact=20,
            severity=Severity.high,
            message=f"Ganesha export {e.export_id} ({e.path}) limits transfers to "
            + ", ".join(f"{key} {value}" for _, key, value in small)
            + ": clients must split every large read and write into that many RPCs."
            + by_hand,
            evidence=[
                Evidence(fact=f"export {e.export_id} {key}", value=value, source=f"{file}:{e.line}")
                for _, key, value in small
            ],
            changes=[
                Change(knob="ganesha_export", target=str(e.export_id), key=key, current=value, new=RECOMMENDED)
                for _, key, value in small
                if editable
            ],
        )


RULE = Rule(
    id="ganesha-io-size-small",
    title="NFS-Ganesha export MaxRead/MaxWrite small",
    area="nfs",
    severity=Severity.high,
    check=check,
    needs=("nfs_server",),
    protocol="nfs",
    gain="The strongest NFS knob measured in the lab: a 1 GiB upload went from 90 to 112 MB/s under 1 Gbit "
    "shaping when MaxRead/MaxWrite went from 8 KiB to 64 KiB; MiNET (2014) doubled NFS copies with larger sizes.",
    tradeoff="Larger RPCs use more server memory per request in flight.",
    source=f"{MINET_NFS} (rsize/wsize 8K -> 32K and more); nfs-ganesha config EXPORT (MaxRead, MaxWrite)",
)
