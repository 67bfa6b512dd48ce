from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present, samba_globals

OFF = ("no", "false", "0", "off")


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    smb = present(facts.smb)
    g = samba_globals(facts)
    if g is None:
        return
    value = g.get("server multi channel support", "yes")
    if value.lower() not in OFF:
        return
    yield rule.finding(
        target="global:server multi channel support",
        impact=10,
        message="SMB multichannel is off: a client gets one TCP connection per session, so one stream and one "
        "CPU's worth of signing, encryption and interrupt work carry all its traffic.",
        evidence=[Evidence(fact="[global] server multi channel support", value=value, source=smb.config.source)],
        changes=[Change(knob="samba", target="global", key="server multi channel support", current=value, new="yes")],
        advice="Clients must ask for it too: Linux mount.cifs with multichannel,max_channels=4; Windows uses it "
        'by itself. With several NICs or an RSS NIC, list them in `interfaces = "IP;capability=RSS,speed=N"`.',
    )


RULE = Rule(
    id="smb-multichannel-off",
    title="SMB multichannel disabled",
    area="smb",
    severity=Severity.low,
    check=check,
    needs=("smb",),
    gain="Several TCP connections per session spread work over CPUs and links: the way past one connection's "
    "ceiling, and what makes signing and encryption scale.",
    tradeoff="Before Samba 4.15 multichannel was experimental on Linux; keep it off on older servers.",
    source='smb.conf(5), "server multi channel support" and "interfaces", '
    "https://www.samba.org/samba/docs/current/man-html/smb.conf.5.html; Samba 4.15.0 release notes (multichannel "
    "no longer experimental on Linux), 2021, https://www.samba.org/samba/history/samba-4.15.0.html; mount.cifs(8), "
    "multichannel and max_channels",
)
