"""Samba parameters set to a slow (or unsafe) value, one rule a row (rules/parameter.py)."""

from nastune.rules.model import Rule, Severity
from nastune.rules.parameter import Slow, samba
from nastune.sources import MINET_ZFS

OFF = ("no", "false", "0")
ON = ("yes", "true", "1")
# what each trade of durability means, said in the finding and in the rule's trade-off
STRICT_SYNC_RISK = (
    "strict sync = no makes smbd ignore the flushes clients ask for (a Windows 'flush', a macOS "
    "fsync): data a client was told is on disk can be lost in a server crash."
)
SYNC_ALWAYS_RISK = (
    "sync always = no leaves durability to the clients' own flush requests (honoured while strict sync "
    "is yes): data a client wrote without flushing can be lost in a server crash."
)
MULTICHANNEL_ADVICE = (
    "Clients must ask for it too: Linux mount.cifs with multichannel,max_channels=4; Windows uses it "
    'by itself. With several NICs or an RSS NIC, list them in `interfaces = "IP;capability=RSS,speed=N"`.'
)

RULES = [
    Rule(
        id="smb-aio-off",
        doc="""# smb-aio-off: Samba asynchronous I/O disabled

## Problem
With `aio read size` or `aio write size` at 0, smbd performs those requests synchronously in the
client's process: it cannot receive or answer anything else for that client while the disk works.

## Detection
The resolved configuration (testparm) has aio read size or aio write size = 0, globally or in a
share.

## Fix
`samba` parameter to 1 (the default: every request of at least one byte goes async), validated
with testparm and reloaded.

## Trade-off
Helper threads; negligible on a normal server.

## Source
smb.conf(5); lab: aio sizes 0 cost 10% on SMB upload under 1 Gbit shaping.
""",
        title="Samba asynchronous I/O disabled",
        area="smb",
        severity=Severity.medium,
        check=samba(
            ("aio read size", "aio write size"),
            Slow(
                ("0",),
                "1",
                10,
                lambda scope, key, _: (
                    f"[{scope}] {key} = 0: smbd serves every {key.split()[1]} synchronously in "
                    "its main process, so one slow disk request holds up the whole client connection."
                ),
            ),
        ),
        needs=("smb",),
        protocol="smb",
        gain="The lab measured 10% lost on SMB upload with aio read/write size 0.",
        tradeoff="Async I/O uses a pool of helper threads (aio max threads); none on a normal server.",
        source="smb.conf(5) (aio read size, aio write size); lab measurement",
    ),
    Rule(
        id="smb-multichannel-off",
        doc="""# smb-multichannel-off: SMB multichannel disabled

## Problem
Without multichannel each client session is one TCP connection: one stream through one queue of
the NIC, one CPU's worth of signing or encryption, one connection's congestion window.

## Detection
The resolved `[global] server multi channel support` is no (Samba 4.15 and later default to
yes on Linux).

## Fix
`samba` server multi channel support = yes. Clients ask for it (`mount.cifs ...
multichannel,max_channels=4`; Windows does by itself); an RSS NIC can be advertised with
`interfaces = "IP;capability=RSS,speed=N"`.

## Trade-off
Experimental on Linux before Samba 4.15: keep it off on older servers.

## Source
smb.conf(5), "server multi channel support" and "interfaces",
https://www.samba.org/samba/docs/current/man-html/smb.conf.5.html.
Samba 4.15.0 release notes, 2021, https://www.samba.org/samba/history/samba-4.15.0.html.
mount.cifs(8), multichannel and max_channels.
""",
        title="SMB multichannel disabled",
        area="smb",
        severity=Severity.low,
        check=samba(
            ("server multi channel support",),
            Slow(
                (*OFF, "off"),
                "yes",
                10,
                lambda *_: (
                    "SMB multichannel is off: a client gets one TCP connection per session, so one stream "
                    "and one CPU's worth of signing, encryption and interrupt work carry all its traffic."
                ),
                advice=MULTICHANNEL_ADVICE,
            ),
            shares=False,
            default="yes",
        ),
        needs=("smb",),
        gain="Several TCP connections per session spread work over CPUs and links: the way past one connection's "
        "ceiling, and what makes signing and encryption scale.",
        tradeoff="Before Samba 4.15 multichannel was experimental on Linux; keep it off on older servers.",
        source='smb.conf(5), "server multi channel support" and "interfaces", '
        "https://www.samba.org/samba/docs/current/man-html/smb.conf.5.html; Samba 4.15.0 release notes "
        "(multichannel no longer experimental on Linux), 2021, https://www.samba.org/samba/history/samba-4.15.0.html; "
        "mount.cifs(8), multichannel and max_channels",
    ),
    Rule(
        id="smb-sendfile-off",
        doc="""# smb-sendfile-off: Samba sendfile disabled

## Problem
Without sendfile, smbd reads file data into its own buffer and writes it to the socket: two
copies and more system calls per read request.

## Detection
`use sendfile` is no in [global] of the resolved configuration.

## Fix
`samba` use sendfile = yes.

## Trade-off
It is off by default because of historic client and file system bugs: verify after enabling.

## Source
smb.conf(5) (use sendfile).
""",
        title="Samba sendfile disabled",
        area="smb",
        severity=Severity.low,
        check=samba(
            ("use sendfile",),
            Slow(
                OFF,
                "yes",
                4,
                lambda *_: (
                    "use sendfile = no: file reads are copied through smbd's memory instead of going from "
                    "the page cache to the socket."
                ),
            ),
            shares=False,
        ),
        needs=("smb",),
        gain="Reads skip a copy through user space: less CPU per byte served, which is throughput on a small CPU.",
        tradeoff="Some clients and file systems have had bugs with sendfile (the reason it is off by default); "
        "verify reads after enabling.",
        source="smb.conf(5) (use sendfile)",
    ),
    Rule(
        id="smb-strict-sync-off",
        doc="""# smb-strict-sync-off: Samba ignores clients' flush requests

## Problem
With `strict sync = no`, smbd answers a client's flush request without flushing. The client
believes its data is on stable storage when it may still be in the server's page cache, so a
server crash or power loss loses it silently. Samba's default is `yes`.

## Detection
`strict sync` is no globally or in a share of the resolved configuration (testparm, or the file
read over Samba's defaults and its includes).

## Fix
`samba` strict sync = yes. The change is a durability trade (judged from the value it writes):
`strict sync = no` is a known speed setting for macOS clients, so nastune reverses it only with
`--accept-risk durability`.

## Trade-off
Clients that flush often wait for the disks on every flush.

## Source
smb.conf(5) (strict sync, sync always); "benchmark : OpenIndiana versus FreeNas", WikiMiNET, page wiki:divers:coin_geek:benchmark_nfs, 2013 (synchronous writes 10-20x the latency).
""",
        title="Samba ignores clients' flush requests",
        area="smb",
        severity=Severity.medium,
        check=samba(
            ("strict sync",),
            Slow(
                OFF,
                "yes",
                4,
                lambda scope, *_: (
                    f"[{scope}] strict sync = no: {STRICT_SYNC_RISK} It is often set for macOS "
                    "clients' speed; if that was the choice, keep it knowingly."
                ),
            ),
        ),
        needs=("smb",),
        gain="A client's flush means what it says again: its data is on disk when smbd answers.",
        tradeoff="Clients that flush often (macOS, databases on a share) wait for the disks on each flush; "
        "nastune changes it only with --accept-risk durability, as it reverses a speed-for-safety choice.",
        source=f"smb.conf(5) (strict sync, sync always); {MINET_ZFS} (sync vs async latency)",
    ),
    Rule(
        id="smb-sync-always",
        doc="""# smb-sync-always: Samba forces a sync after every write

## Problem
`sync always = yes` makes smbd call fsync after every write request, whatever the client asked.
Each write then waits for the disks to commit: small files suffer most.

## Detection
`sync always` is yes globally or in a share of the resolved configuration.

## Fix
`samba` sync always = no, marked as a durability trade-off: `apply` refuses it without
`--accept-risk durability`. `strict sync = yes` (the default) still honours clients' own flushes.

## Trade-off
Data that a client wrote but did not flush can be lost if the server crashes.

## Source
"benchmark : OpenIndiana versus FreeNas", WikiMiNET, page wiki:divers:coin_geek:benchmark_nfs, 2013 (synchronous writes 10-20x the latency); smb.conf(5).
""",
        title="Samba forces a sync after every write",
        area="smb",
        severity=Severity.medium,
        check=samba(
            ("sync always",),
            Slow(
                ON,
                "no",
                30,
                lambda scope, *_: (
                    f"[{scope}] sync always = yes: smbd flushes to disk after every write, so writes "
                    "run at the disks' commit latency (MiNET's 2013 benchmark: 10-20x the latency of async writes on "
                    "small files)."
                ),
                severity=Severity.medium,
            ),
        ),
        needs=("smb",),
        gain="MiNET's 2013 benchmark: synchronous writes were 10x (large files) to 20x (small files) "
        "slower than asynchronous ones.",
        tradeoff=SYNC_ALWAYS_RISK + " nastune applies it only with --accept-risk durability.",
        source=f"{MINET_ZFS} (sync vs async latency); smb.conf(5) (sync always, strict sync)",
    ),
]
