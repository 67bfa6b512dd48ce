"""# smb-encryption-cost: SMB3 encryption required: its cipher and its CPU

## Problem
A share or server that requires encryption (`server smb encrypt = required`, or the older
`smb encrypt`) makes smbd encrypt and decrypt every byte. With AES-128-GCM and a CPU with AES-NI
and PCLMULQDQ this costs little (GnuTLS made encrypted reads 2.5x and writes 3x faster in Samba
4.12); with CCM, AES-256 first, or a CPU without those instructions it can halve throughput.

## Detection
Encryption is required in `[global]` or in a share. Medium; a larger impact when the CPU's flags
(`/proc/cpuinfo`) lack `aes` or `pclmulqdq`.

<!-- figures: encryption-rule -->
On nastune's lab (a CPU with AES-NI, 10 Gbit, servers at half a core), with encryption required and
AES-CCM first, moving AES-128-GCM first made SMB reads 3.5x as fast (178 -> 620 MB/s, +246.2%
(+211.4%..+285.0%)) and writes 3.8x (+275.8% (+190.1%..+387.0%)); encryption with AES-128-GCM first
still cost 19.8% of reads against none.
<!-- end of figures -->

## Fix
`samba` server smb3 encryption algorithms = AES-128-GCM, AES-128-CCM, AES-256-GCM, AES-256-CCM
where another cipher comes first. The plan also holds encryption `desired` (offered, not
required) where it is required, marked as a security trade: applied only with
`--accept-risk security`.

## Trade-off
None for the cipher order. Encryption merely offered lets anyone on the path read what a client
that does not ask for it reads and writes.

## Source
Samba 4.12.0 release notes, "SMB3 encryption via GnuTLS", 2020,
https://www.samba.org/samba/history/samba-4.12.0.html.
smb.conf(5), "server smb encrypt" and "server smb3 encryption algorithms",
https://www.samba.org/samba/docs/current/man-html/smb.conf.5.html.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import crypto_evidence, present, samba_globals, samba_order, samba_shares, slow_crypto

FAST = "AES-128-GCM"  # GCM rides the CPU's AES and carry-less multiply: the cheapest cipher
ORDER = "AES-128-GCM, AES-128-CCM, AES-256-GCM, AES-256-CCM"  # Samba's own default order
REQUIRED = ("required", "mandatory", "force")
KEYS = ("server smb encrypt", "smb encrypt")  # `smb encrypt` is the older name of the same parameter


def _required(g: dict[str, str], shares: dict[str, dict[str, str]]) -> list[tuple[str, str, str]]:
    """(section, parameter, value) wherever encryption is required: [global] and each share."""
    found = []
    for name, params in {"global": g, **shares}.items():
        for key in KEYS:
            if params.get(key, "").lower() in REQUIRED:
                found.append((name, key, params[key]))
                break
    return found


def _offered(required: list[tuple[str, str, str]]) -> list[Change]:
    """Encryption merely offered where it is required: a security trade, applied only with
    --accept-risk security."""
    return [Change(knob="samba", target=s, key=k, current=v, new="desired") for s, k, v in required]


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    smb = present(facts.smb)
    g = samba_globals(facts)
    required = _required(g, samba_shares(facts)) if g is not None else []
    if g is None or not required:
        return
    algorithms, reorder = samba_order(g, "server smb3 encryption algorithms", ORDER)
    slow = slow_crypto(facts)
    source = smb.config.source
    yield rule.finding(
        target="global:server smb3 encryption algorithms",
        impact=25 if slow else 15,
        severity=Severity.medium,
        message=f"SMB3 encryption is required ({', '.join(s for s, _, _ in required)}) "
        + (
            f"with {algorithms[0] if algorithms else 'no cipher'} first, not {FAST}"
            if algorithms[:1] != [FAST]
            else f"with {FAST}"
        )
        + (
            ": this CPU lacks AES or PCLMULQDQ instructions, so every byte costs it dearly."
            if slow
            else ": every byte is encrypted by the server's CPU."
        ),
        evidence=[
            *(Evidence(fact=f"[{s}] {k}", value=v, source=source) for s, k, v in required),
            Evidence(fact="[global] server smb3 encryption algorithms", value=", ".join(algorithms), source=source),
            crypto_evidence(facts),
        ],
        changes=reorder + _offered(required),
        advice="Where the data must be encrypted on the wire, keep it required and give SMB multichannel and a "
        "CPU with AES-NI the work; where the network is trusted, `desired` lets clients choose.",
    )


RULE = Rule(
    id="smb-encryption-cost",
    title="SMB3 encryption required: its cipher and its CPU",
    area="smb",
    severity=Severity.medium,
    check=check,
    needs=("smb", "system"),
    gain="AES-128-GCM through GnuTLS made encrypted reads 2.5x and writes 3x faster than Samba's own code before "
    "4.12; CCM and AES-256 cost more per byte, and a CPU without AES-NI pays for every byte in software.",
    tradeoff="None for the cipher order: a client that offers only CCM falls back to it. Encryption merely "
    "offered instead of required is a security trade (data readable on the path): nastune makes it only with "
    "--accept-risk security.",
    source='Samba 4.12.0 release notes, "SMB3 encryption via GnuTLS", 2020, '
    'https://www.samba.org/samba/history/samba-4.12.0.html; smb.conf(5), "server smb encrypt" and '
    '"server smb3 encryption algorithms", https://www.samba.org/samba/docs/current/man-html/smb.conf.5.html',
)
