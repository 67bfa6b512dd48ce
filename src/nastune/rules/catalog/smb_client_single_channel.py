"""# smb-client-single-channel: SMB mount with one channel on a fast link

## Problem
A Linux SMB mount (cifs) uses one TCP connection per session unless it asks for more: one
stream, one receive queue of the NIC and one CPU's worth of signing, encryption and receive
work. On a gigabit link that fills the link; at 10 Gbit/s and more, and with signing or
encryption required, it does not.

## Detection
A cifs or smb3 mount without `multichannel` and `max_channels` above 1 in its options
(/proc/mounts shows both when the mount asked for more than one channel), on a kernel 5.13 or
later, where the machine's link runs at 10 Gbit/s or more. Checked on each client of an
inventory that runs nastune.

## Fix
`nfs_client_mount` multichannel and max_channels=4 on the mount's /etc/fstab entry; they take
effect at the next mount. A mount outside /etc/fstab gets advice.

## Trade-off
Unmounting and mounting again interrupts what uses the share. The server must offer
multichannel (`server multi channel support`, on by default from Samba 4.15; the
smb-multichannel-off rule checks it); a server without it keeps the client on one channel.

## Source
mount.cifs(8), multichannel and max_channels,
https://www.samba.org/samba/docs/current/man-html/mount.cifs.8.html. Steve French, "smb3: if
max_channels set to more than one channel request multichannel", Linux commit c1f8a398b6d6,
2021. Samba 4.15.0 release notes, 2021, https://www.samba.org/samba/history/samba-4.15.0.html.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.facts.mounts import Mount
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import FAST_LINK, fstab_of, kernel_at_least, link_mbit, present

SMB = ("cifs", "smb3")
CHANNELS = 4


def single(m: Mount) -> bool:
    """The mount uses one channel: the kernel shows multichannel,max_channels=N only when it asked for more."""
    channels = m.option("max_channels") or ""
    return m.fstype in SMB and (m.option("multichannel") is None or not channels.isdigit() or int(channels) < 2)


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    mounts = present(facts.mounts)
    mbit = link_mbit(facts)
    if mbit is None or mbit < FAST_LINK or not kernel_at_least(facts, 5, 13):
        return
    fstab = fstab_of(facts, SMB)
    for m in filter(single, mounts.mounts.value or []):
        in_fstab = m.mountpoint in fstab
        yield rule.finding(
            target=m.mountpoint,
            impact=15,
            message=f"{m.mountpoint} ({m.device}) is an SMB mount over one TCP connection on a {mbit} Mbit/s link: "
            "one stream and one CPU's worth of signing, encryption and receive work carry all of it.",
            evidence=[
                Evidence(fact=f"{m.mountpoint} options", value=",".join(m.options), source=mounts.mounts.source),
                Evidence(fact="link rate (Mbit/s)", value=mbit, source="/sys/class/net"),
            ],
            changes=[
                Change(knob="nfs_client_mount", target=m.mountpoint, key="multichannel", new="multichannel"),
                Change(knob="nfs_client_mount", target=m.mountpoint, key="max_channels", new=CHANNELS),
            ]
            if in_fstab
            else [],
            advice=None
            if in_fstab
            else f"{m.mountpoint} is mounted outside /etc/fstab: add multichannel,max_channels={CHANNELS} where it "
            "is mounted.",
        )


RULE = Rule(
    id="smb-client-single-channel",
    title="SMB mount with one channel on a fast link",
    area="smb",
    severity=Severity.medium,
    check=check,
    needs=("mounts", "network", "system"),
    clients=True,
    gain="Several TCP connections per SMB session spread signing, encryption and receive work over CPUs and the "
    "NIC's queues: the way past one connection's ceiling where the server offers multichannel.",
    tradeoff="Takes effect at a mount: apply unmounts a mounted share and mounts it again (files open on it must be "
    "closed first). The server must offer multichannel (Samba "
    "4.15+ by default); otherwise the client stays on one channel, with nothing lost.",
    source="mount.cifs(8), multichannel and max_channels, https://www.samba.org/samba/docs/current/man-html/"
    'mount.cifs.8.html; Steve French, "smb3: if max_channels set to more than one channel request '
    'multichannel", Linux commit c1f8a398b6d6, 2021; Samba 4.15.0 release notes, 2021, '
    "https://www.samba.org/samba/history/samba-4.15.0.html",
)
