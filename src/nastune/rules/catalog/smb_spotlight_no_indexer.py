"""# smb-spotlight-no-indexer: Samba's Spotlight backend has no indexer to ask

## Problem
A Mac searching a share with the Finder sends Spotlight queries to the server. With
`spotlight = yes`, Samba answers them from the backend `spotlight backend` names: Tracker
(`tracker`) or Elasticsearch (`elasticsearch`). When that indexer does not run, every search
waits on queries that cannot be answered, and Mac users see the Finder's search spin.

## Detection
A share has `spotlight = yes` (its own or [global]'s), `spotlight backend` is `tracker` and no
Tracker process runs (tracker-miner-fs, tracker-store), or it is `elasticsearch` at a local address
(`elasticsearch:address`, default localhost) and nothing listens on its port
(`elasticsearch:port`, default 9200) in /proc/net/tcp or tcp6. An Elasticsearch on another host
is not judged: nastune cannot see it from the NAS.

## Fix
`spotlight backend = noindex` in [global]: Samba answers at once, with no results.

## Trade-off
Server-side searches of the share find nothing. Where Mac users need to find files by name on the
share, `spotlight = no` on it instead lets the Finder search the share itself, slowly but
completely; or start the indexer and let it index the share.

## In the lab
Not shown here: the lab's clients are smbclient and the kernel's cifs, which send no Spotlight
queries; only a Mac does.

## Source
Samba, smb.conf(5), `spotlight` and `spotlight backend`,
https://www.samba.org/samba/docs/current/man-html/smb.conf.5.html. Samba Wiki, "Spotlight with
Elasticsearch Backend", https://wiki.samba.org/index.php/Spotlight_with_Elasticsearch_Backend.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.facts.smb import SambaConfig
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present

YES = frozenset(("yes", "true", "1", "on"))
TRACKER = ("tracker-miner-f", "tracker-store")  # Tracker's indexer and store, as their comm names them
LOCAL = frozenset(("", "localhost", "127.0.0.1", "::1"))
ES_PORT = 9200  # Elasticsearch's own default, and Samba's elasticsearch:port


def _searched(c: SambaConfig) -> list[str]:
    """The shares that answer Spotlight queries (`spotlight = yes` there or in [global])."""
    default = c.globals.get("spotlight", "no")
    return sorted(n for n, p in c.shares.items() if p.get("spotlight", default).strip().lower() in YES)


def _missing(backend: str, c: SambaConfig, facts: Facts) -> Evidence | None:
    """Evidence that the backend's indexer is not there; None when it runs or nastune cannot tell
    (an Elasticsearch on another host)."""
    if backend == "tracker" and facts.system is not None:
        if any(facts.system.daemon(name) for name in TRACKER):
            return None
        none = "none running (tracker-miner-fs, tracker-store)"
        return Evidence(fact="Tracker's processes", value=none, source="/proc")
    if backend == "elasticsearch" and facts.network is not None:
        address = c.globals.get("elasticsearch:address", "localhost").strip().lower()
        raw = c.globals.get("elasticsearch:port", "").strip()
        port = int(raw) if raw.isdigit() else ES_PORT
        if address not in LOCAL or facts.network.listens(port) is not False:
            return None
        where = f"TCP port {port} ({address or 'localhost'})"
        return Evidence(fact=where, value="nothing listens", source="/proc/net/tcp, /proc/net/tcp6")
    return None


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    smb = present(facts.smb)
    c = smb.config.value if smb.config.known else None
    if c is None:
        return
    backend = c.globals.get("spotlight backend", "noindex").strip().lower()
    shares = _searched(c)
    missing = _missing(backend, c, facts) if shares else None
    if missing is None:
        return
    yield rule.finding(
        target="global:spotlight backend",
        impact=4,
        message=f"{', '.join(shares)} answer Spotlight searches through {backend}, whose indexer is not "
        "there: a Mac's search of the share waits on queries that cannot be answered.",
        evidence=[
            Evidence(fact="[global] spotlight backend", value=backend, source=smb.config.source),
            Evidence(fact="shares with spotlight = yes", value=", ".join(shares), source=smb.config.source),
            missing,
        ],
        changes=[Change(knob="samba", target="global", key="spotlight backend", current=backend, new="noindex")],
        advice="Where Mac users need to find files by name on the share, set `spotlight = no` there instead: "
        "the Finder then searches the share itself, slowly but completely. Or start the indexer "
        f"({backend}) and let it index the share.",
    )


RULE = Rule(
    id="smb-spotlight-no-indexer",
    title="Samba's Spotlight backend has no indexer to ask",
    area="smb",
    severity=Severity.low,
    check=check,
    needs=("smb",),
    gain="A Mac's search of the share gets Samba's answer at once instead of waiting on an indexer that is not there.",
    tradeoff="With noindex, server-side searches of the share find nothing; Finder's own search of the "
    "share (with spotlight = no) walks it instead.",
    source="Samba, smb.conf(5), spotlight and spotlight backend, https://www.samba.org/samba/docs/current/"
    "man-html/smb.conf.5.html; Samba Wiki, Spotlight with Elasticsearch Backend, "
    "https://wiki.samba.org/index.php/Spotlight_with_Elasticsearch_Backend",
)
