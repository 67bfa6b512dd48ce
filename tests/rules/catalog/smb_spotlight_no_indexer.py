"""smb-spotlight-no-indexer: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.facts import Facts
from tests.conftest import need
from tests.rules.kit import Case, F, changes, fail, nas, one, smb


def searched(listening: list[int]) -> Facts:
    """The small NAS's [data] share answering Spotlight queries from a local Elasticsearch, with
    these TCP ports listening."""
    facts = smb(smb(nas(), "data", spotlight="yes"), "global", spotlight_backend="elasticsearch")
    need(facts.network).listening = F(listening, "/proc/net/tcp")
    need(facts.network).listening6 = F([], "/proc/net/tcp6")
    return facts


CASE = Case(
    lambda: searched([22, 445]),
    lambda: searched([22, 445, 9200]),
    lambda fs: (
        (
            changes(fs) == [("global", "spotlight backend", "elasticsearch", "noindex")]
            and "TCP port 9200 (localhost): nothing listens" in [f"{e.fact}: {e.value}" for e in one(fs).evidence]
            and "spotlight = no" in one(fs).advice
        )
        or fail(fs)
    ),
)
