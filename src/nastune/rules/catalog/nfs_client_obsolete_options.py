"""# nfs-client-obsolete-options: obsolete NFS client options (intr, UDP)

## Problem
Old guides add `intr` to NFS mounts; the kernel has ignored it since 2.6.25, so it only misleads.
NFS over UDP limits transfer sizes and suffers badly from fragment loss.

## Detection
nfs/nfs4 lines of /etc/fstab with intr or nointr; mounts in /proc/self/mountstats with proto=udp.

## Fix
`nfs_client_mount`: drop intr/nointr from fstab; proto=tcp.

## Trade-off
None.

## Source
"Tuning de performance NFS", WikiMiNET (MiNET's technical wiki), page sysadmin:tuning_nfs, 2014 (`intr` ignored since 2.6.25); nfs(5).
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present
from nastune.sources import MINET_NFS

OBSOLETE = {
    "intr": "ignored since kernel 2.6.25 (only SIGKILL interrupts a hung NFS call)",
    "nointr": "ignored since kernel 2.6.25",
}


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    mounts = present(facts.mounts)
    nfs_client = present(facts.nfs_client)
    fstab = mounts.fstab.value or []
    for entry in fstab:
        if entry.vfstype not in ("nfs", "nfs4"):
            continue
        found = [o for o in entry.options if o in OBSOLETE]
        if found:
            yield rule.finding(
                target=entry.file,
                impact=0,
                severity=Severity.info,
                message=f"/etc/fstab line {entry.line} mounts {entry.file} with {', '.join(found)}: "
                + "; ".join(OBSOLETE[o] for o in found)
                + ".",
                evidence=[
                    Evidence(
                        fact=f"fstab {entry.file} options",
                        value=",".join(entry.options),
                        source=f"/etc/fstab:{entry.line}",
                    )
                ],
                changes=[Change(knob="nfs_client_mount", target=entry.file, key=o, current=o, new=None) for o in found],
            )
    for m in nfs_client.mounts.value or []:
        if m.proto and m.proto.startswith("udp"):
            yield rule.finding(
                target=m.mountpoint,
                impact=10,
                severity=Severity.medium,
                message=f"{m.mountpoint} uses NFS over UDP: small transfer sizes, fragment loss and retransmits "
                "on a busy link; modern kernels drop UDP support.",
                evidence=[Evidence(fact=f"{m.mountpoint} proto", value=m.proto, source=nfs_client.mounts.source)],
                changes=[Change(knob="nfs_client_mount", target=m.mountpoint, key="proto", current=m.proto, new="tcp")],
            )


RULE = Rule(
    id="nfs-client-obsolete-options",
    title="Obsolete NFS client options (intr, UDP)",
    area="nfs",
    severity=Severity.info,
    check=check,
    needs=("mounts", "nfs_client"),
    clients=True,
    gain="Options that do what their writer expected; TCP transport allows large rsize/wsize.",
    tradeoff="None.",
    source=f"{MINET_NFS} (intr is ignored since 2.6.25); nfs(5)",
)
