"""What zfs_property accepts: every value OpenZFS 2.1-2.3 takes for the properties it sets
(compression levels, recordsizes up to 16M), and a refusal that names the allowed set."""

from __future__ import annotations

import pytest

from nastune.rules.model import Change
from nastune.tune.knobs import KNOBS
from nastune.tune.system import TuneError


def _change(key: str, new: str, target: str = "tank/media") -> Change:
    return Change(knob="zfs_property", target=target, key=key, new=new)


@pytest.mark.parametrize(
    ("key", "new"),
    [("compression", "zstd-3"), ("compression", "zstd-fast-1000"), ("compression", "gzip-9"), ("recordsize", "16M"),
     ("recordsize", "1M"), ("recordsize", "512"), ("recordsize", "2m"), ("dedup", "blake3,verify"), ("xattr", "sa"),
     ("logbias", "throughput")],
)  # fmt: skip
def test_accepted(key: str, new: str):
    KNOBS["zfs_property"].validate(_change(key, new))


@pytest.mark.parametrize(
    ("key", "new", "named"),
    [("compression", "zstd-20", "zstd-19"), ("recordsize", "32M", "16M"), ("recordsize", "96K", "16M"),
     ("sync", "sometimes", "standard"), ("dedup", "edonr", "edonr,verify")],
)  # fmt: skip
def test_refused_naming_what_is_allowed(key: str, new: str, named: str):
    with pytest.raises(TuneError, match=named):
        KNOBS["zfs_property"].validate(_change(key, new))


def test_a_target_that_would_read_as_an_option_is_refused():
    with pytest.raises(TuneError, match="not a dataset"):
        KNOBS["zfs_property"].validate(_change("atime", "off", target="-r"))
