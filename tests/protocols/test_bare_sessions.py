"""A listing's time less a bare session's: the bare session is the fastest of several, since
jitter only adds to a session's time (a busy machine made the fastest of two slower than a
500-file listing, and the big-dir repeat failed three times)."""

from __future__ import annotations

import pytest

from nastune.protocols.client import BARE, BenchError, less_bare_sessions


def _sessions(*seconds: float):
    times = iter(seconds)
    return lambda: next(times)


def test_the_fastest_bare_session_is_the_one_subtracted():
    bare = _sessions(*[0.5, 0.3, 0.2, 0.4][:BARE])
    found = less_bare_sessions(bare, _sessions(0.25), _sessions(0.3), 10, "curl")
    assert found == pytest.approx({"list_us": 50_000, "miss_us": 10_000})


def test_a_listing_no_slower_than_every_bare_session_is_a_failed_repeat():
    with pytest.raises(BenchError, match="curl: the listing or the lookups took no longer than a bare session"):
        less_bare_sessions(_sessions(0.5, 0.3, 0.2, 0.4), _sessions(0.15), _sessions(0.3), 10, "curl")
