"""# smb-signing-cost: SMB signing: a slow algorithm first, or required by the server

## Problem
Signing adds a message authentication code to every SMB3 message. Windows 11 24H2 requires it on
every connection by default, macOS clients have required it for years, and a server may require
it itself (`server signing = mandatory`). With HMAC-SHA256 or AES-128-CMAC the server spends
several times more CPU per byte than with AES-128-GMAC, which a CPU with AES-NI and PCLMULQDQ
computes almost for free; a CPU without them pays for any algorithm.

## Detection
The resolved `[global] server smb3 signing algorithms` does not start with AES-128-GMAC (Samba
4.15 and later offer and prefer it), or the server requires signing on a CPU whose flags
(`/proc/cpuinfo`) lack `aes` or `pclmulqdq`. Medium when the server requires signing on such a
CPU, or when a slow algorithm comes first on a link of 10 Gbit/s or more; low otherwise.

<!-- figures: signing-rule -->
On nastune's lab, whose CPU has AES-NI (servers at half a core, 1 Gbit), requiring signing with
HMAC-SHA256 first cost 5.9% of SMB reads against no signing, and moving AES-128-GMAC first won back
+5.1% (+2.7%..+7.6%), a gain inside the noise floor of a verdict; encryption (AES-128-GCM) cost at
most 3.6%.
<!-- end of figures -->

<!-- figures: signing-rule-10gbit -->
On a 10 Gbit link (servers at half a core), HMAC-SHA256 first cost 38.8% of SMB reads against no
signing (781 -> 469 MB/s), and moving AES-128-GMAC first won back +48.7% (+32.7%..+66.6%), verdict
better.
<!-- end of figures -->

The cost grows where the CPU lacks the instructions or the link is faster than the CPU can sign.

## Fix
`samba` server smb3 signing algorithms = AES-128-GMAC, AES-128-CMAC, HMAC-SHA256. Where the
server requires signing, the plan also holds `server signing = default` (offered, not required),
marked as a security trade: applied only with `--accept-risk security`.

## Trade-off
None for the algorithm order: GMAC is as strong as CMAC. Not requiring signing lets a man in the
middle alter what clients read and write; clients that require it (Windows 11 24H2, macOS) sign
anyway.

## Source
smb.conf(5), "server smb3 signing algorithms" and "server signing" (Samba 4.15+),
https://www.samba.org/samba/docs/current/man-html/smb.conf.5.html.
Microsoft, "Overview of Server Message Block signing in Windows", 2024,
https://learn.microsoft.com/windows-server/storage/file-server/smb-signing-overview.
Microsoft, "Performance considerations for Azure NetApp Files SMB signing", 2024,
https://learn.microsoft.com/azure/azure-netapp-files/azure-netapp-files-smb-performance.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import FAST_LINK, crypto_evidence, link_mbit, present, samba_globals, samba_order, slow_crypto

FAST = "AES-128-GMAC"  # GMAC rides the CPU's AES and carry-less multiply: the cheapest signature
ORDER = "AES-128-GMAC, AES-128-CMAC, HMAC-SHA256"  # Samba's own default order
REQUIRED = ("mandatory", "required", "yes", "true", "on")


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    smb = present(facts.smb)
    g = samba_globals(facts)
    if g is None:
        return
    algorithms, reorder = samba_order(g, "server smb3 signing algorithms", ORDER)
    signing = g.get("server signing", "default")
    required = signing.lower() in REQUIRED
    slow = slow_crypto(facts)
    if algorithms[:1] == [FAST] and not (required and slow):
        return
    # with AES-NI a slow algorithm costs a few percent on 1 Gbit and a third of the reads on
    # 10 Gbit (bench/results/signing.json, signing-10gbit.json); any signing is dear without it
    dear = (required and slow) or (algorithms[:1] != [FAST] and (link_mbit(facts) or 0) >= FAST_LINK)
    source = smb.config.source
    yield rule.finding(
        target="global:server signing",
        impact=15 if dear else 6 if required else 4,
        severity=Severity.medium if dear else Severity.low,
        message=(
            f"Signed SMB3 sessions use {algorithms[0] if algorithms else 'no algorithm'} first, not {FAST}"
            if algorithms[:1] != [FAST]
            else "The server requires signing on every session"
        )
        + (
            "; the server requires signing (server signing = " + signing + ")"
            if required
            else "; Windows 11 24H2 and macOS clients require signing whatever the server says"
        )
        + ("; this CPU lacks AES or PCLMULQDQ instructions, so any signing is dear." if slow else "."),
        evidence=[
            Evidence(fact="[global] server smb3 signing algorithms", value=", ".join(algorithms), source=source),
            Evidence(fact="[global] server signing", value=signing, source=source),
            crypto_evidence(facts),
        ],
        changes=reorder
        + (
            [Change(knob="samba", target="global", key="server signing", current=signing, new="default")]
            if required
            else []
        ),
        advice="Signing that clients require (Windows 11 24H2, macOS) stays whatever the server says: there the "
        "algorithm and SMB multichannel are what lower its cost.",
    )


RULE = Rule(
    id="smb-signing-cost",
    title="SMB signing: a slow algorithm first, or required by the server",
    area="smb",
    severity=Severity.medium,
    check=check,
    needs=("smb", "system", "network"),
    gain="AES-128-GMAC signs at close to memory speed on a CPU with AES-NI and PCLMULQDQ; HMAC-SHA256 and "
    "AES-128-CMAC cost several times more CPU per byte. Azure NetApp Files measured a single-connection read "
    "fall from about 875 to about 250 MiB/s with signing required. On nastune's lab (a CPU with AES-NI) "
    "signing with HMAC-SHA256 first cost a few percent of SMB reads on 1 Gbit and over a third on 10 Gbit, where "
    "GMAC first won back over 40%.",
    tradeoff="None for the algorithm order: GMAC is as strong as CMAC, and clients that do not offer it (before "
    "Windows 11 and Samba 4.15) fall back to the next one. Not requiring signing is a security trade (a man in "
    "the middle can alter data): nastune makes it only with --accept-risk security.",
    source='smb.conf(5), "server smb3 signing algorithms" and "server signing", Samba 4.15+, '
    'https://www.samba.org/samba/docs/current/man-html/smb.conf.5.html; Microsoft, "Overview of Server '
    'Message Block signing in Windows", 2024, https://learn.microsoft.com/windows-server/storage/'
    'file-server/smb-signing-overview; Microsoft, "Performance considerations for Azure NetApp Files SMB '
    'signing", 2024, https://learn.microsoft.com/azure/azure-netapp-files/azure-netapp-files-smb-performance',
)
